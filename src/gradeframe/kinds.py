"""Failure kind names and the when/then chain that picks one per row.

The chain is written once, in the order of the table in SPEC.md §2; every scorer that explains
its failures goes through :func:`failure_chain`.
"""

from __future__ import annotations

from typing import Final

import polars as pl

NO_REFERENCE: Final = "no_reference"
ERROR: Final = "error"
PARSE_FAILURE: Final = "parse_failure"
BUDGET_STOP: Final = "budget_stop"
REFUSAL: Final = "refusal"
NOT_IN_DOCUMENT: Final = "not_in_document"
WRONG: Final = "wrong"

#: The standard kinds in table order (the carried kind sits between no_reference and error).
KINDS: Final[tuple[str, ...]] = (
    NO_REFERENCE,
    ERROR,
    PARSE_FAILURE,
    BUDGET_STOP,
    REFUSAL,
    NOT_IN_DOCUMENT,
    WRONG,
)

#: The notes that say a limit stopped a partial run.
BUDGET_NOTES: Final[tuple[str, ...]] = ("cost_cap_reached", "call_cap_reached", "limit_refused")

#: The trace finish reasons that say a model refused.
REFUSAL_REASONS: Final[tuple[str, ...]] = ("refusal", "content_filter")


def failure_chain(
    *,
    correct: pl.Expr,
    no_reference: pl.Expr,
    carried: pl.Expr,
    error: pl.Expr,
    parse_failure: pl.Expr,
    budget_stop: pl.Expr,
    refusal: pl.Expr,
    not_in_document: pl.Expr,
) -> pl.Expr:
    """Return the failure kind of each row: null when correct, else the first that applies.

    Every condition must be a Boolean expression that is never null, and ``carried`` a String
    expression that is null where the row carries no kind of its own.
    """
    return (
        pl.when(correct)
        .then(pl.lit(None, dtype=pl.String))
        .when(no_reference)
        .then(pl.lit(NO_REFERENCE))
        .when(carried.is_not_null())
        .then(carried)
        .when(error)
        .then(pl.lit(ERROR))
        .when(parse_failure)
        .then(pl.lit(PARSE_FAILURE))
        .when(budget_stop)
        .then(pl.lit(BUDGET_STOP))
        .when(refusal)
        .then(pl.lit(REFUSAL))
        .when(not_in_document)
        .then(pl.lit(NOT_IN_DOCUMENT))
        .otherwise(pl.lit(WRONG))
    )
