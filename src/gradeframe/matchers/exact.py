"""exact_match: the answer equals the expected value (or one of a list of them)."""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real
from typing import Final

import polars as pl

from gradeframe import fold as folding
from gradeframe._inputs import IntoExpr, Schema, is_text
from gradeframe.matchers import _base
from gradeframe.matchers._base import Input

__all__ = ["EXACT_MATCH", "EXACT_MATCH_COLUMNS", "exact_match", "with_exact_match"]

EXACT_MATCH: Final = _base.matcher("exact_match", {"actual": "mixed", "expected": "mixed"})
#: The columns exact_match adds, before ``prefix``.
EXACT_MATCH_COLUMNS: Final = EXACT_MATCH.columns


def exact_match(
    actual: IntoExpr,
    expected: IntoExpr | bool | float | Sequence[str],
    *,
    ignore_case: bool = True,
    strip: bool = True,
    fold: bool = False,
    label: str | None = None,
    prefix: str = "",
    schema: Schema | None = None,
) -> pl.Expr:
    r"""Compare answers with ground truth, ignoring case and surrounding white space.

    Strings are compared after stripping surrounding white space and lower-casing (per the
    flags); anything else is compared with ``==``. A boolean or number is never coerced to
    text, so a string never matches a number or a boolean, and a boolean never matches a number
    (``"12"`` is not ``12``; ``True`` is not ``1``). Numbers compare by value (``1`` is
    ``1.0``). A null matches only a null.

    A list of strings as the expected value of a text answer means "any of them"; a list answer
    against a list expected value is compared with ``==`` (same items, same order).

    Parameters
    ----------
    actual
        The answers: a column name or an expression, of any dtype.
    expected
        The ground truth: a column name or an expression (a literal string is
        ``pl.lit("...")``); a number or boolean is taken as a literal, and a Python list of
        strings as the acceptable answers of every row.
    ignore_case
        Lower-case both sides before comparing (strings only).
    strip
        Strip surrounding white space from both sides (strings only).
    fold
        Compare folded texts (see :func:`gradeframe.fold`: lower case, dashes, thousands
        separators dropped, white space collapsed), so "3,000" equals "3000". Folding already
        ignores case and surrounding space, so ``ignore_case`` and ``strip`` must stay True.
    label
        Replaces the default description ``"exact match"`` in ``expectation``.
    prefix
        Put before each output name.
    schema
        The frame's schema, to check columns and dtypes now (the frame functions pass it).
        Without it, dtypes are read when the data arrives.

    Returns
    -------
    pl.Expr
        A struct expression named ``prefix + "exact_match"`` with the fields ``correct`` and
        ``expectation``.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {"answer": ["  Paris ", "Lyon", None, None], "truth": ["paris", "Paris", "Nice", None]}
    ... )
    >>> df.grade.exact_match("answer", "truth")
    shape: (4, 4)
    ┌──────────┬───────┬─────────┬─────────────┐
    │ answer   ┆ truth ┆ correct ┆ expectation │
    │ ---      ┆ ---   ┆ ---     ┆ ---         │
    │ str      ┆ str   ┆ bool    ┆ str         │
    ╞══════════╪═══════╪═════════╪═════════════╡
    │   Paris  ┆ paris ┆ true    ┆ exact match │
    │ Lyon     ┆ Paris ┆ false   ┆ exact match │
    │ null     ┆ Nice  ┆ false   ┆ exact match │
    │ null     ┆ null  ┆ true    ┆ exact match │
    └──────────┴───────┴─────────┴─────────────┘
    >>> df = pl.DataFrame({"answer": ["3,000", "3000 ", "about 3000", None]})
    >>> df.select(gf.exact_match("answer", ["3000", "three thousand"], fold=True)).unnest(
    ...     "exact_match"
    ... )
    shape: (4, 2)
    ┌─────────┬─────────────┐
    │ correct ┆ expectation │
    │ ---     ┆ ---         │
    │ bool    ┆ str         │
    ╞═════════╪═════════════╡
    │ true    ┆ exact match │
    │ true    ┆ exact match │
    │ false   ┆ exact match │
    │ false   ┆ exact match │
    └─────────┴─────────────┘
    """
    _base.check_flag(ignore_case, "ignore_case")
    _base.check_flag(strip, "strip")
    _base.check_flag(fold, "fold")
    if fold and not (ignore_case and strip):
        off = "ignore_case=False" if not ignore_case else "strip=False"
        msg = f"`fold=True` lower-cases and trims every text, so it cannot be combined with {off}."
        raise ValueError(msg)
    arguments = {
        "actual": (actual, _base.into(actual, "actual")),
        "expected": _base.expected_argument(expected, "an acceptable answer", literals=(Real,)),
    }
    return _base.expression(
        EXACT_MATCH,
        arguments,
        lambda inputs: _rule(inputs, ignore_case=ignore_case, strip=strip, fold=fold),
        expectation=_base.expectation(label, "exact match"),
        prefix=prefix,
        schema=schema,
    )


def _rule(inputs: dict[str, Input], *, ignore_case: bool, strip: bool, fold: bool) -> pl.Expr:
    left, right = inputs["actual"].value, inputs["expected"].value

    def normal(text: pl.Expr) -> pl.Expr:
        if fold:
            return folding.fold(text)
        text = text.str.strip_chars() if strip else text
        return text.str.to_lowercase() if ignore_case else text

    equal: list[pl.Expr] = [left.is_null() & right.is_null()]
    if left.text is not None and right.text is not None:
        equal.append(normal(left.text) == normal(right.text))
    if left.number is not None and right.number is not None:
        equal.append(left.number == right.number)
    if left.boolean is not None and right.boolean is not None:
        equal.append(left.boolean == right.boolean)
    if left.other is not None and right.other is not None and left.other_dtype == right.other_dtype:
        equal.append(left.other == right.other)
    if left.text is not None and _is_text_list(right.other_dtype):
        options = right.other.list.eval(normal(pl.element().cast(pl.String)))  # type: ignore[union-attr]
        equal.append(
            pl.when(left.text.is_not_null()).then(options.list.contains(normal(left.text)))
        )
    return pl.struct(correct=pl.any_horizontal([e.fill_null(value=False) for e in equal]))


def _is_text_list(dtype: pl.DataType | None) -> bool:
    return isinstance(dtype, pl.List) and (is_text(dtype.inner) or dtype.inner == pl.Null)


with_exact_match = _base.frame_function(
    EXACT_MATCH.columns,
    exact_match,
    """Add ``correct`` and ``expectation`` to a DataFrame or LazyFrame; see :func:`exact_match`.

    Same rows, same order, input columns untouched; a LazyFrame stays lazy. Columns and dtypes
    are checked now.
    """,
)
