"""Failure kind names and the when/then chain that picks one per row.

The chain is written once, in table order; every scorer that explains its failures goes through
:func:`failure_chain`.

=====  ==================  ===============================================================
order  kind                when
=====  ==================  ===============================================================
0      ``no_reference``    no usable acceptable answer
1      the carried kind    the row carries its own non-blank ``failure_kind`` (never right)
2      ``error``           ``status`` is one of :data:`ERROR_STATUSES` (never right)
3      ``budget_stop``     ``partial`` is true and ``notes`` holds a budget note, or
                           ``status`` is one of :data:`BUDGET_STATUSES`
4      ``refusal``         a ``trace`` step finished with a refusal, or ``status`` is one
                           of :data:`REFUSAL_STATUSES`
5      ``parse_failure``   no answer text
6      ``not_in_document`` an answer was expected and the answer is a not-found report
7      ``grader_failure``  the grader, not the model, failed: no verdict was read
8      ``wrong``           anything else
=====  ==================  ===============================================================

A stop and a refusal come before ``parse_failure``: the two orders differ only on rows without
answer text, and there the stop or the refusal is the reason the text is missing (a content
filter leaves an empty reply).
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
GRADER_FAILURE: Final = "grader_failure"

#: The standard kinds in the order reports list their counts (the order they have always had).
KINDS: Final[tuple[str, ...]] = (
    NO_REFERENCE,
    ERROR,
    PARSE_FAILURE,
    BUDGET_STOP,
    REFUSAL,
    NOT_IN_DOCUMENT,
    WRONG,
)

#: The standard kinds in the order the chain tries them (the carried kind sits after
#: ``no_reference``).
CHAIN_ORDER: Final[tuple[str, ...]] = (
    NO_REFERENCE,
    ERROR,
    BUDGET_STOP,
    REFUSAL,
    PARSE_FAILURE,
    NOT_IN_DOCUMENT,
    GRADER_FAILURE,
    WRONG,
)

#: The notes that say a limit stopped a partial run (matched as whole words, in any case).
BUDGET_NOTES: Final[tuple[str, ...]] = ("cost_cap_reached", "call_cap_reached", "limit_refused")

#: The trace finish reasons that say a model refused (matched as whole words, in any case).
REFUSAL_REASONS: Final[tuple[str, ...]] = ("refusal", "content_filter")

# The ``status`` vocabulary. A status is compared trimmed and in lower case; each value below is
# read as its row of the chain, and any value in none of these lists is read as a normal finish
# and named in a warning (it may be a word a tool uses that the chain does not know).

#: Statuses of a failed run: chain row 2, ``error``.
ERROR_STATUSES: Final[tuple[str, ...]] = ("error", "failed", "failure", "exception", "timeout")

#: Statuses of a refused run: chain row 4, ``refusal``.
REFUSAL_STATUSES: Final[tuple[str, ...]] = ("refused", "refusal", "content_filter")

#: Statuses of a reply a token budget ended: chain row 3, ``budget_stop`` (as if ``partial``
#: were true and ``notes`` named a limit).
BUDGET_STATUSES: Final[tuple[str, ...]] = ("length", "max_tokens")

#: Statuses of a normal finish (a null or blank status is one too).
FINISHED_STATUSES: Final[tuple[str, ...]] = (
    "ok",
    "success",
    "succeeded",
    "completed",
    "complete",
    "done",
    "stop",
    "end_turn",
)

#: Every status value the chain reads; any other one is a normal finish, with a warning.
KNOWN_STATUSES: Final[tuple[str, ...]] = (
    *ERROR_STATUSES,
    *REFUSAL_STATUSES,
    *BUDGET_STATUSES,
    *FINISHED_STATUSES,
)


def failure_chain(
    *,
    correct: pl.Expr,
    no_reference: pl.Expr,
    carried: pl.Expr,
    error: pl.Expr,
    budget_stop: pl.Expr,
    refusal: pl.Expr,
    parse_failure: pl.Expr,
    not_in_document: pl.Expr,
    grader_failure: pl.Expr | None = None,
) -> pl.Expr:
    """Return the failure kind of each row: null when correct, else the first that applies.

    Every condition must be a Boolean expression that is never null, and ``carried`` a String
    expression that is null where the row carries no kind of its own. ``grader_failure``
    (verdicts) is true where no verdict was read; scorers without a grader leave it out.
    """
    chain = (
        pl.when(correct)
        .then(pl.lit(None, dtype=pl.String))
        .when(no_reference)
        .then(pl.lit(NO_REFERENCE))
        .when(carried.is_not_null())
        .then(carried)
        .when(error)
        .then(pl.lit(ERROR))
        .when(budget_stop)
        .then(pl.lit(BUDGET_STOP))
        .when(refusal)
        .then(pl.lit(REFUSAL))
        .when(parse_failure)
        .then(pl.lit(PARSE_FAILURE))
        .when(not_in_document)
        .then(pl.lit(NOT_IN_DOCUMENT))
    )
    if grader_failure is not None:
        chain = chain.when(grader_failure).then(pl.lit(GRADER_FAILURE))
    return chain.otherwise(pl.lit(WRONG))
