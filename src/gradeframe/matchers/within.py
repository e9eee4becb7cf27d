"""within: a numeric answer is close enough to the expected number."""

from __future__ import annotations

from numbers import Real
from typing import Final

import polars as pl

from gradeframe._inputs import IntoExpr, Schema
from gradeframe.fold import fold
from gradeframe.matchers import _base
from gradeframe.matchers._base import Input

__all__ = ["WITHIN", "WITHIN_COLUMNS", "with_within", "within"]

WITHIN: Final = _base.matcher(
    "within",
    {"actual": "mixed", "expected": "mixed"},
    tolerance=pl.Float64(),
    difference=pl.Float64(),
)
#: The columns within adds, before ``prefix``.
WITHIN_COLUMNS: Final = WITHIN.columns

#: Significant digits every compared value is rounded to, so floating-point noise never decides.
SIGNIFICANT_DIGITS: Final = 12

#: One number, after folding: optional sign, digits with an optional decimal part (or a bare
#: decimal part), optional exponent. Folded text is lower case, trimmed, separators dropped.
_NUMBER_RE: Final = r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e[+-]?[0-9]+)?$"


def _parse_number(text: pl.Expr) -> pl.Expr:
    """Read text as one number after folding ("1,204" is 1204); anything else is null."""
    folded = fold(text)
    return pl.when(folded.str.contains(_NUMBER_RE)).then(folded.cast(pl.Float64, strict=False))


def _rounded(value: pl.Expr) -> pl.Expr:
    return value.round_sig_figs(SIGNIFICANT_DIGITS)


@_base.shares_parameters
def within(
    actual: IntoExpr,
    expected: IntoExpr | float,
    *,
    delta: float | None = None,
    percent: float | None = None,
    label: str | None = None,
    prefix: str = "",
    schema: Schema | None = None,
) -> pl.Expr:
    r"""Check that numeric answers are close enough to ground truth.

    Give exactly one of ``delta`` (absolute tolerance) and ``percent`` (a percentage of
    ``|expected|``, so a zero expected admits only zero). A row is right when
    ``|actual - expected| <= tolerance``, where the answer, the expected value, their difference
    and the tolerance are each rounded to 12 significant digits, so that floating-point noise
    never decides: 1.1 is within 0.1 of 1.0, and 0.1 + 0.2 is within 0 of 0.3. ``tolerance``
    and ``difference`` hold the rounded values. A text answer is read as one number after
    folding (``"1,204"`` is 1204, ``" -3.5 "`` is -3.5); text that is not one number (``"about
    forty"``, ``"12 apples"``), a boolean or a null fails its row, with ``difference`` null. A
    non-numeric expected value raises naming the row: it is the eval's mistake, not the model's.

    Parameters
    ----------
    actual
        The answers: a column name or expression of numbers or text.
    expected
        The ground truth: a column name or an expression of numbers, or a number.
    delta
        The absolute tolerance (>= 0).
    percent
        The tolerance as a percentage of ``|expected|`` (>= 0).
    label
        Replaces the default description ``"within {delta} of expected"`` or
        ``"within {percent}% of expected"``.

    Returns
    -------
    pl.Expr
        A struct expression named ``prefix + "within"`` with the fields ``correct``,
        ``expectation``, ``tolerance`` (Float64) and ``difference`` (Float64).

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {"answer": ["1,204", "about forty", "1.1", None], "truth": [1200.0, 40.0, 1.0, 3.0]}
    ... )
    >>> df.select(gf.within("answer", "truth", delta=0.1)).unnest("within")
    shape: (4, 4)
    ┌─────────┬────────────────────────┬───────────┬────────────┐
    │ correct ┆ expectation            ┆ tolerance ┆ difference │
    │ ---     ┆ ---                    ┆ ---       ┆ ---        │
    │ bool    ┆ str                    ┆ f64       ┆ f64        │
    ╞═════════╪════════════════════════╪═══════════╪════════════╡
    │ false   ┆ within 0.1 of expected ┆ 0.1       ┆ 4.0        │
    │ false   ┆ within 0.1 of expected ┆ 0.1       ┆ null       │
    │ true    ┆ within 0.1 of expected ┆ 0.1       ┆ 0.1        │
    │ false   ┆ within 0.1 of expected ┆ 0.1       ┆ null       │
    └─────────┴────────────────────────┴───────────┴────────────┘
    """
    if (delta is None) == (percent is None):
        given = "neither" if delta is None else f"both (delta={delta!r}, percent={percent!r})"
        msg = f"`within` needs exactly one of `delta` and `percent`, and was given {given}."
        raise ValueError(msg)
    if delta is not None:
        _base.check_tolerance(delta, "delta")
        default = f"within {delta} of expected"
    else:
        _base.check_tolerance(percent, "percent")
        default = f"within {percent}% of expected"
    expectation = _base.expectation(label, default)
    if isinstance(expected, bool):
        msg = f"`expected` must be numeric, got bool: {expected!r}"
        raise TypeError(msg)
    arguments = {
        "actual": (actual, _base.into(actual, "actual")),
        "expected": (expected, _base.into(expected, "expected", literals=(Real,))),
    }
    return _base.expression(
        WITHIN,
        arguments,
        lambda inputs: _rule(inputs, delta=delta, percent=percent),
        expectation=expectation,
        prefix=prefix,
        schema=schema,
    )


def _rule(inputs: dict[str, Input], *, delta: float | None, percent: float | None) -> pl.Expr:
    source = inputs["actual"]
    answer = source.value
    if answer.other is not None:
        raise source.error("numbers or text")
    numbers = []
    if answer.number is not None:
        numbers.append(answer.number.cast(pl.Float64))
    if answer.text is not None:
        numbers.append(_parse_number(answer.text))
    if not numbers:  # booleans or nulls: no row holds a number (one null per row)
        numbers.append(pl.when(answer.expr.is_null() & pl.lit(value=False)).then(pl.lit(0.0)))
    value = pl.coalesce(numbers)

    target = inputs["expected"]
    truth = target.value
    if not (target.dtype == pl.Null or target.dtype.is_numeric() or truth.number is not None):
        cast = (
            "pl.col(...)" if target.name.startswith("__gradeframe_") else f"pl.col({target.name!r})"
        )
        raise target.error(
            f"numbers (within compares numbers; a non-numeric expected value is the eval's "
            f"mistake: fix it, or cast it first, for example {cast}.cast(pl.Float64))"
        )
    number = (
        pl.lit(None, dtype=pl.Float64) if truth.number is None else truth.number.cast(pl.Float64)
    )
    if truth.text is not None or truth.boolean is not None:  # a mixed pandas column
        number = pl.when(truth.text.is_null() & truth.boolean.is_null()).then(number)  # type: ignore[union-attr]
    bad = (number.is_null() | ~number.is_finite()).fill_null(value=True)
    problem = pl.when(bad).then(
        pl.lit("is ")
        + _base.shown(truth)
        + pl.lit(
            "; it must be a finite number (only the eval's author can fix the expected column)."
        )
    )
    checked = _base.check_rows(
        pl.struct(value=number, problem=problem), matcher="within", return_dtype=pl.Float64
    )

    # Staged in one struct so that each value is computed once: Polars does not share common
    # subexpressions inside a struct on an eager frame (the check would run three times).
    stages = pl.struct(value=_rounded(value), expected=_rounded(checked))
    if delta is not None:
        tolerance = pl.lit(float(delta), dtype=pl.Float64)
    else:
        tolerance = pl.field("expected").abs() * (float(percent) / 100)  # type: ignore[arg-type]
    stages = stages.struct.with_fields(
        tolerance=_rounded(tolerance),
        difference=_rounded((pl.field("value") - pl.field("expected")).abs()),
    )
    return stages.struct.with_fields(
        correct=(pl.field("difference") <= pl.field("tolerance")).fill_null(value=False)
    )


with_within = _base.frame_function(
    WITHIN.columns,
    within,
    """Add ``correct``, ``expectation``, ``tolerance`` and ``difference``; see :func:`within`.

    On a DataFrame a bad expected value raises now; on a LazyFrame at ``collect()``.
    """,
)
