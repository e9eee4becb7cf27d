"""includes: every expected text (needle) appears in the answer."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

import polars as pl

from gradeframe import fold as folding
from gradeframe._containment import LONG_PATTERN, contains_literal
from gradeframe._inputs import IntoExpr, Schema, as_text, is_text
from gradeframe.matchers import _base
from gradeframe.matchers._base import Input

__all__ = ["INCLUDES", "INCLUDES_COLUMNS", "includes", "with_includes"]

INCLUDES: Final = _base.matcher(
    "includes", {"actual": "mixed", "expected": "refs"}, missing=pl.List(pl.String)
)
#: The columns includes adds, before ``prefix``.
INCLUDES_COLUMNS: Final = INCLUDES.columns

_EMPTY_LIST: Final = pl.lit([], dtype=pl.List(pl.String))


@_base.shares_parameters
def includes(
    actual: IntoExpr,
    expected: IntoExpr | Sequence[str],
    *,
    ignore_case: bool = True,
    fold: bool = False,
    label: str | None = None,
    prefix: str = "",
    schema: Schema | None = None,
) -> pl.Expr:
    r"""Check that every expected text appears in the answer.

    ``missing`` lists the needles that were not found, in their given order (as given, not
    lower-cased). A row with no needles (an empty list, or a null ``expected``) is never a match.
    A null answer reads as ``""``; a null needle inside a list reads as ``""`` too, which every
    answer contains. A number or boolean answer is read as text.

    With ``fold=True`` each needle is found as :func:`gradeframe.answer_contains` finds an
    acceptable answer: both sides folded, and numbers matched whole, so "12,400 units"
    includes "12400" but "-12" does not include "12" and "2012" does not include "12".

    Parameters
    ----------
    actual
        The answers: a column name or an expression.
    expected
        The needles: a column name or expression of String (one needle per row) or
        List(String) (all required); or a Python list of strings, the same needles for every
        row (a single literal needle is ``["..."]`` or ``pl.lit("...")``).
    ignore_case
        Compare with both sides lower-cased.
    fold
        Fold both sides and match numbers whole (see above). Folding lower-cases, so
        ``ignore_case`` must stay True.
    label
        Replaces the default description ``"includes expected text"``.

    Returns
    -------
    pl.Expr
        A struct expression named ``prefix + "includes"`` with the fields ``correct``,
        ``expectation`` and ``missing`` (List(String)).

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "summary": ["Revenue rose; costs fell.", "Revenue rose.", None],
    ...         "keywords": [["revenue", "Costs"], ["revenue", "costs"], ["profit"]],
    ...     }
    ... )
    >>> df.select(gf.includes("summary", "keywords")).unnest("includes")
    shape: (3, 3)
    ┌─────────┬────────────────────────┬────────────┐
    │ correct ┆ expectation            ┆ missing    │
    │ ---     ┆ ---                    ┆ ---        │
    │ bool    ┆ str                    ┆ list[str]  │
    ╞═════════╪════════════════════════╪════════════╡
    │ true    ┆ includes expected text ┆ []         │
    │ false   ┆ includes expected text ┆ ["costs"]  │
    │ false   ┆ includes expected text ┆ ["profit"] │
    └─────────┴────────────────────────┴────────────┘
    >>> df = pl.DataFrame({"summary": ["Sold 12,400 units in 2012", "Lost -12 units", None]})
    >>> df.select(gf.includes("summary", ["12400", "12"], fold=True)).unnest("includes")
    shape: (3, 3)
    ┌─────────┬────────────────────────┬─────────────────┐
    │ correct ┆ expectation            ┆ missing         │
    │ ---     ┆ ---                    ┆ ---             │
    │ bool    ┆ str                    ┆ list[str]       │
    ╞═════════╪════════════════════════╪═════════════════╡
    │ false   ┆ includes expected text ┆ ["12"]          │
    │ false   ┆ includes expected text ┆ ["12400", "12"] │
    │ false   ┆ includes expected text ┆ ["12400", "12"] │
    └─────────┴────────────────────────┴─────────────────┘
    """
    _base.check_flag(ignore_case, "ignore_case")
    _base.check_flag(fold, "fold")
    if fold and not ignore_case:
        msg = "`fold=True` lower-cases every text, so it cannot be combined with ignore_case=False."
        raise ValueError(msg)
    literal = _base.text_list(expected, "expected", "a needle")
    arguments = {"actual": (actual, _base.into(actual, "actual"))}
    if literal is None:
        arguments["expected"] = (expected, _base.into(expected, "expected"))
    return _base.expression(
        INCLUDES,
        arguments,
        lambda inputs: _rule(inputs, literal, ignore_case=ignore_case, fold=fold),
        expectation=_base.expectation(label, "includes expected text"),
        prefix=prefix,
        schema=schema,
    )


def _contains(haystack: pl.Expr, needle: pl.Expr, *, long: bool) -> pl.Expr:
    """Whether ``needle`` occurs in ``haystack`` as a literal.

    Polars compiles a literal pattern into a regex when it is one value for the whole column
    (a literal needle, a one-row frame or batch), and a needle of a few hundred KB exceeds the
    regex size limit; ``long=True`` (a needle that may be long) takes the search that works at
    any length (:func:`gradeframe._containment.contains_literal`, one check per batch).
    """
    if long:
        return contains_literal(haystack, needle)
    return haystack.str.contains(needle, literal=True)


def _found(haystack: pl.Expr, needle: pl.Expr, *, fold: bool, long: bool = True) -> pl.Expr:
    """Whether the needle occurs in the (lowered or marked) haystack."""
    if not fold:
        return _contains(haystack, needle, long=long)
    first, second = folding.needles(folding.fold(needle))
    return _contains(haystack, first, long=long) | _contains(haystack, second, long=long).fill_null(
        value=False
    )


def _is_long(needle: str) -> bool:
    """Whether a literal needle may be too long for Polars' regex (folding can add markers)."""
    return len(needle.encode("utf-8", "surrogatepass")) > LONG_PATTERN // 4


def _rule(
    inputs: dict[str, Input], literal: list[str] | None, *, ignore_case: bool, fold: bool
) -> pl.Expr:
    haystack = inputs["actual"].text()
    if fold:
        # The marked folded answer: a needle occurs in it exactly where the folded needle
        # occurs with its numbers whole (see gradeframe.fold).
        haystack = folding.mark(folding.fold(haystack))
    elif ignore_case:
        haystack = haystack.str.to_lowercase()

    def lower(text: pl.Expr) -> pl.Expr:
        return text.str.to_lowercase() if ignore_case and not fold else text

    if literal is not None:
        if not literal:
            never = haystack.is_null() & pl.lit(value=False)  # one False per row
            return pl.struct(correct=never, missing=_EMPTY_LIST)
        found = [_found(haystack, lower(pl.lit(n)), fold=fold, long=_is_long(n)) for n in literal]
        missing = pl.concat_list(
            [
                pl.when(~f).then(pl.lit(n)).otherwise(None)
                for f, n in zip(found, literal, strict=True)
            ]
        ).list.drop_nulls()
        return pl.struct(correct=pl.all_horizontal(found), missing=missing)

    needles, listed = _needle_list(inputs["expected"])
    if not listed:
        found = _found(haystack, lower(needles), fold=fold)
        missing = (
            pl.when(needles.is_null() | found).then(_EMPTY_LIST).otherwise(pl.concat_list(needles))
        )
        return pl.struct(
            correct=(needles.is_not_null() & found).fill_null(value=False), missing=missing
        )

    e = pl.element()
    stages = pl.struct(
        haystack=haystack, needles=needles.list.eval(e.fill_null("")).fill_null(_EMPTY_LIST)
    )
    listed_needles = pl.field("needles")
    missing = pl.struct(haystack=pl.field("haystack"), needles=listed_needles).map_batches(
        functools.partial(_missing, fold=fold, ignore_case=ignore_case),
        return_dtype=pl.List(pl.String),
        is_elementwise=True,
    )
    stages = stages.struct.with_fields(missing=missing)
    return stages.struct.with_fields(
        correct=(listed_needles.list.len() > 0) & (pl.field("missing").list.len() == 0)
    )


def _missing(batch: pl.Series, *, fold: bool, ignore_case: bool) -> pl.Series:
    """Return the needles each row misses, over a batch of rows (lists of needles).

    ``batch`` holds ``haystack`` (the lowered answer, or with ``fold=True`` the marked folded
    answer) and ``needles`` (a list). Without ``fold`` and with no long needle in the batch,
    one ``list.eval`` finds them; else one item per (row, needle) is searched for, and the
    missing needles are gathered back per row (a group-by over the batch, never a loop over
    rows).
    """
    frame = batch.struct.unnest()
    longest = frame.get_column("needles").list.eval(pl.element().str.len_bytes()).explode().max()
    if not fold and (longest is None or longest <= LONG_PATTERN):  # type: ignore[operator]
        # Each row's needles travel with its haystack in one list [haystack, needles...,
        # lowered...], so one list.eval sees both: the haystack is its first element.
        e = pl.element()
        needles = pl.col("needles")
        lowered = needles.list.eval(e.str.to_lowercase()) if ignore_case else needles
        count = (e.len() - 1) // 2
        missing = pl.concat_list(pl.col("haystack"), needles, lowered).list.eval(
            e.slice(1, count).filter(
                ~e.first().str.contains(e.slice(1 + count, count), literal=True)
            )
        )
        return frame.select(missing).to_series().alias(batch.name)
    frame = frame.with_row_index("row")

    def lower(text: pl.Expr) -> pl.Expr:
        return text.str.to_lowercase() if ignore_case and not fold else text

    items = (
        frame.lazy()
        .explode("needles", empty_as_null=False)
        .filter(pl.col("needles").is_not_null())
        .select(
            "row",
            needle="needles",
            found=_found(pl.col("haystack"), lower(pl.col("needles")), fold=fold),
        )
    )
    missing = items.filter(~pl.col("found")).group_by("row").agg(pl.col("needle"))
    return (
        frame.lazy()
        .select("row")
        .join(missing, on="row", how="left", maintain_order="left")
        .select(pl.col("needle").fill_null(_EMPTY_LIST))
        .collect()
        .to_series()
        .alias(batch.name)
    )


def _needle_list(source: Input) -> tuple[pl.Expr, bool]:
    """Return the needles as String (one per row) or List(String), and whether a list."""

    def element_text(element: pl.Expr, inner: pl.DataType) -> pl.Expr | None:
        if is_text(inner):
            return as_text(element, inner)
        if inner == pl.Null or inner.is_integer():
            return element.cast(pl.String)
        return None

    expr, dtype = source.expr, source.dtype
    scalar = element_text(expr, dtype)
    if scalar is not None:
        return scalar, False
    if isinstance(dtype, pl.List | pl.Array):
        element = element_text(pl.element(), dtype.inner)
        if element is not None:
            listed = expr.arr.to_list() if isinstance(dtype, pl.Array) else expr
            return listed.list.eval(element), True
    raise source.error("String or List(String)")


with_includes = _base.frame_function(
    INCLUDES.columns,
    includes,
    "Add ``correct``, ``expectation`` and ``missing`` to a frame; see :func:`includes`.",
)
