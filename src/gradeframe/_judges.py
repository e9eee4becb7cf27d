"""Who judges that an answer reports "not in the document", or refuses: a column or a detector.

``not_found=`` and ``refusal=`` of :func:`gradeframe.answer_contains` each name a Boolean column,
give an expression, or choose the phrase detectors of :mod:`gradeframe.not_found` and
:mod:`gradeframe.refusal` (the default ones, or a list of phrases). :func:`judges` turns them
into the fields the answer_contains plan reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

import polars as pl

from gradeframe._inputs import Schema, check_column, dtype_error
from gradeframe.not_found import not_found_in_folded, phrase_pattern
from gradeframe.refusal import refusal_in_folded, refusal_pattern

__all__ = ["NotFound", "Refusal", "judges", "resolve_not_found", "resolve_refusal"]

NotFound: TypeAlias = str | pl.Expr | Sequence[str] | None
#: ``refusal=``: None (the trace and status only), True (the default detector), a Boolean column
#: name or expression, or a list of regex phrases.
Refusal: TypeAlias = bool | str | pl.Expr | Sequence[str] | None


def _boolean_column(name: str, argument: str, schema: Schema | None, hint: str) -> pl.Expr:
    """Return a Boolean column the user names, checked against the schema when there is one."""
    if schema is not None:
        check_column(schema, name, argument)
        dtype = schema[name]
        if dtype not in (pl.Boolean, pl.Null):
            raise dtype_error(argument, name, dtype, f"a Boolean column (or pass {hint})")
    return pl.col(name)


def resolve_not_found(not_found: NotFound, outcome: pl.Expr, schema: Schema | None) -> pl.Expr:
    if not_found is None:
        return not_found_in_folded(outcome, phrase_pattern(None))
    hint = "a list of phrases: not_found=['...']"
    detect = lambda phrases: not_found_in_folded(outcome, phrase_pattern(phrases))  # noqa: E731
    return _resolve(not_found, "not_found", schema, hint, "", detect)


def resolve_refusal(refusal: Refusal, outcome: pl.Expr, schema: Schema | None) -> pl.Expr | None:
    """Return the text refusal detected (Boolean), or None where ``refusal`` adds none."""
    if refusal is None or refusal is False:
        return None
    if refusal is True:
        return refusal_in_folded(outcome, refusal_pattern(None))
    hint = "refusal=True for the default detector, or a list of phrases: refusal=['...']"
    detect = lambda phrases: refusal_in_folded(outcome, refusal_pattern(phrases))  # noqa: E731
    return _resolve(refusal, "refusal", schema, hint, "None, True, ", detect)


def _resolve(
    value: object,
    argument: str,
    schema: Schema | None,
    hint: str,
    also: str,
    detect: Callable[[Sequence[str]], pl.Expr],
) -> pl.Expr:
    """Read ``not_found=`` or ``refusal=``: a Boolean column, an expression, or phrases."""
    if isinstance(value, str):
        return _boolean_column(value, argument, schema, hint)
    if isinstance(value, pl.Expr):
        return value
    if isinstance(value, Sequence):
        return detect(value)
    msg = (
        f"`{argument}` must be {also}a Boolean column name, a polars expression, or a list "
        f"of regex phrases; got {type(value).__name__}: {value!r}"
    )
    raise TypeError(msg)


def judges(
    not_found: NotFound, refusal: Refusal, schema: Schema | None
) -> tuple[dict[str, pl.Expr], dict[str, pl.Expr]]:
    """Return who judges not-found and refusal: (input fields, first verdict fields).

    A column or expression the user gives is read with the inputs (``judged``,
    ``refusal_judged``); a detector runs only where no acceptable answer was found (elsewhere
    on ""), so a right answer stays right.
    """
    if isinstance(not_found, str | pl.Expr):
        judge = {"judged": resolve_not_found(not_found, pl.field("outcome"), schema)}
        reports_not_found = pl.field("judged").fill_null(value=False)
    else:
        # The detector runs only where no acceptable answer was found (elsewhere on "").
        unfound = pl.when(pl.field("found")).then(pl.lit("")).otherwise(pl.field("outcome"))
        reports_not_found = resolve_not_found(not_found, unfound, schema).fill_null(value=False)
        judge = {}
    # The refusal in words: a column or expression the user gives is read with the inputs; the
    # detector runs only where no acceptable answer was found (a right answer stays right).
    verdict_first = {"not_found": reports_not_found}
    if isinstance(refusal, str | pl.Expr):
        judge["refusal_judged"] = resolve_refusal(refusal, pl.field("outcome"), schema)
        verdict_first["text_refusal"] = pl.field("refusal_judged").fill_null(value=False)
    else:
        unfound = pl.when(pl.field("found")).then(pl.lit("")).otherwise(pl.field("outcome"))
        detected = resolve_refusal(refusal, unfound, schema)
        if detected is not None:
            verdict_first["text_refusal"] = detected.fill_null(value=False)
    return judge, verdict_first
