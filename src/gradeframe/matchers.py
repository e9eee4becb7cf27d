r"""exact_match, includes, matches, within: the four matchers of SPEC.md §3 (seed 004).

Each matcher is a function returning one struct expression with the fields ``correct``
(Boolean, never null) and ``expectation`` (String: the ``label``, or the matcher's default
description), plus its own extra fields, all named ``prefix + name``. The ``with_*`` functions
(and the ``.grade`` methods that delegate to them) add those fields to a frame as columns.

Arguments
---------
``actual`` is always a column name (``str``) or an expression. ``expected`` (``exact_match``,
``includes``, ``within``) is a column name or an expression too; a literal is passed as
``pl.lit(...)``. Because a ``str`` always names a column, a literal string must be wrapped:
``expected=pl.lit("Paris")``. Values that cannot be column names are read as literals for
convenience: a number or boolean in ``exact_match`` and ``within``, and a list of strings in
``includes`` (the needles, the same for every row). ``pattern`` and ``label`` are values, never
column names; per-row patterns come from ``pattern_column=``.

Dtypes are checked when the expression is built, if the frame's schema is known: the ``with_*``
functions and the ``.grade`` methods always know it. The bare expression functions called
without ``schema=`` work on any dtypes too: they read the dtypes when the data arrives (one
``map_batches`` call over whole columns), so their argument errors surface at ``collect()``.

Reading values
--------------
- Text is String, Categorical or Enum. Numbers are any numeric dtype; a float NaN is read as
  missing, as pandas reads it, so Polars and pandas agree.
- A pandas object column mixing strings, numbers and booleans keeps each value's kind (see
  :mod:`gradeframe._mixed`): ``"12"`` stays text and ``12`` stays a number.
- Where a matcher reads the answer as text (``includes``, ``matches``), a number or boolean is
  written as Polars writes it (``12``, ``2.5``, ``true``) and a null reads as ``""``, as the seed's
  ``to_s`` does.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any, Final, TypeAlias

import polars as pl
import regex

from gradeframe import _mixed
from gradeframe._inputs import (
    IntoExpr,
    Schema,
    as_text,
    check_column,
    check_output_names,
    check_prefix,
    dtype_error,
    frame_schema,
    is_text,
    to_expr,
)
from gradeframe._limits import MAX_METADATA_LENGTH
from gradeframe.fold import fold

__all__ = [
    "EXACT_MATCH_COLUMNS",
    "INCLUDES_COLUMNS",
    "MATCHES_COLUMNS",
    "MAX_METADATA_LENGTH",
    "REGEX_TIMEOUT",
    "WITHIN_COLUMNS",
    "exact_match",
    "includes",
    "matches",
    "with_exact_match",
    "with_includes",
    "with_matches",
    "with_within",
    "within",
]

Frame: TypeAlias = pl.DataFrame | pl.LazyFrame
PatternLike: TypeAlias = str | re.Pattern[str] | regex.Pattern[str]

#: Seconds one search may take on the ``regex`` fallback before the pattern is reported as too
#: slow (catastrophic backtracking). Read when the search runs, so it can be changed at runtime.
REGEX_TIMEOUT: float = 1.0

#: The columns each matcher adds, before ``prefix``.
EXACT_MATCH_COLUMNS: Final = ("correct", "expectation")
INCLUDES_COLUMNS: Final = ("correct", "expectation", "missing")
MATCHES_COLUMNS: Final = ("correct", "expectation")
WITHIN_COLUMNS: Final = ("correct", "expectation", "tolerance", "difference")

_DTYPES: Final[dict[str, pl.DataType]] = {
    "correct": pl.Boolean(),
    "expectation": pl.String(),
    "missing": pl.List(pl.String),
    "tolerance": pl.Float64(),
    "difference": pl.Float64(),
}

#: One number, after folding: optional sign, digits with an optional decimal part (or a bare
#: decimal part), optional exponent. Folded text is lower case, trimmed, separators dropped.
_NUMBER_RE: Final = r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e[+-]?[0-9]+)?$"

#: Flags of a compiled ``re``/``regex`` pattern that Polars runs as inline flags.
_INLINE_FLAGS: Final = (
    (re.IGNORECASE, "i"),
    (re.MULTILINE, "m"),
    (re.DOTALL, "s"),
    (re.VERBOSE, "x"),
)
#: Flags that change nothing Polars does differently (Unicode is its default; VERSION0 is regex's).
_NEUTRAL_FLAGS: Final = re.UNICODE | regex.VERSION0

#: A backslash escape, matched pairwise so that ``\\Z`` (a backslash, then "Z") is left alone.
_ESCAPE_RE: Final = re.compile(r"\\(.)", re.DOTALL)

_EMPTY_LIST: Final = pl.lit([], dtype=pl.List(pl.String))


# --------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------


def _check_flag(value: object, argument: str) -> None:
    if not isinstance(value, bool):
        msg = f"`{argument}` must be True or False, got {type(value).__name__}: {value!r}"
        raise TypeError(msg)


def _expectation(label: object, default: str) -> str:
    if label is None:
        return default
    if not isinstance(label, str):
        msg = f"`label` must be a str or None, got {type(label).__name__}: {label!r}"
        raise TypeError(msg)
    return label


def _is_number(value: object) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool)


def _format_number(value: Real) -> str:
    """Write a tolerance the way Python's ``str`` does (0.5, 1, 2.5)."""
    return str(value)


def _into(value: Any, argument: str, *, literals: tuple[type, ...] = ()) -> pl.Expr:
    """Return the expression for a column name or expression, or a literal of the given types."""
    if literals and isinstance(value, literals) and not isinstance(value, str):
        return pl.lit(value)
    if isinstance(value, str | pl.Expr):
        return to_expr(value, argument)
    allowed = "a column name (str) or a polars expression (for a literal: pl.lit(...))"
    msg = f"`{argument}` must be {allowed}, got {type(value).__name__}: {value!r}"
    raise TypeError(msg)


def _resolve(value: Any, expr: pl.Expr, argument: str, schema: Schema) -> tuple[str, pl.DataType]:
    """Check a column exists and return (its name for messages, its dtype)."""
    if isinstance(value, str):
        check_column(schema, value, argument)
        return value, schema[value]
    dtype = pl.LazyFrame(schema=schema).select(expr.alias("_")).collect_schema()["_"]
    return f"__gradeframe_{argument}__", dtype  # dtype_error calls it "the expression"


def _struct_dtype(prefix: str, columns: Sequence[str]) -> pl.Struct:
    return pl.Struct({prefix + c: _DTYPES[c] for c in columns})


def _result(prefix: str, name: str, fields: dict[str, pl.Expr], expectation: str) -> pl.Expr:
    parts = {"correct": fields.pop("correct"), "expectation": pl.lit(expectation, pl.String)}
    parts.update(fields)
    return pl.struct([e.alias(prefix + k) for k, e in parts.items()]).alias(prefix + name)


def _deferred(
    build: Callable[[Schema, list[pl.Expr]], pl.Expr],
    inputs: list[pl.Expr],
    dtype: pl.Struct,
    name: str,
) -> pl.Expr:
    """Build the expression when the data arrives, from the dtypes it has (no schema given).

    One call over whole columns: the inputs become a frame, and the same expression the frame
    methods use runs on it. Length-1 inputs (literals) are broadcast.
    """

    def run(series: Sequence[pl.Series]) -> pl.Series:
        height = max(len(s) for s in series)
        columns = [
            (s if len(s) == height else s.new_from_index(0, height)).alias(f"_{i}")
            for i, s in enumerate(series)
        ]
        frame = pl.DataFrame(columns)
        return frame.select(build(frame.schema, [pl.col(c) for c in frame.columns])).to_series()

    return pl.map_batches(inputs, run, return_dtype=dtype).alias(name)


def _frame_result(
    frame: Frame, columns: Sequence[str], prefix: str, build: Callable[[Schema], pl.Expr]
) -> Frame:
    check_prefix(prefix)
    schema = frame_schema(frame)
    check_output_names(schema, [prefix + c for c in columns])
    # The struct is computed once, then taken apart: unnesting it in place would run the rule
    # (and any regex fallback in it) once per field.
    result = "__gradeframe_matcher__"
    return (
        frame.with_columns(build(schema).alias(result))
        .with_columns(pl.col(result).struct.unnest())
        .drop(result)
    )


# --------------------------------------------------------------------------------------------
# Reading values by dtype
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Value:
    """A column read by kind; a part is None when the column can hold no value of that kind."""

    expr: pl.Expr  # the column itself
    text: pl.Expr | None = None
    number: pl.Expr | None = None
    boolean: pl.Expr | None = None
    other: pl.Expr | None = None
    other_dtype: pl.DataType | None = None

    def parts(self) -> list[pl.Expr]:
        return [p for p in (self.text, self.number, self.boolean, self.other) if p is not None]

    def is_null(self) -> pl.Expr:
        parts = self.parts()
        if not parts:
            return self.expr.is_null()  # a Null column: true in every row
        return pl.all_horizontal([p.is_null() for p in parts])


def _read(expr: pl.Expr, dtype: pl.DataType) -> _Value:
    if dtype == pl.Null:
        return _Value(expr)
    if is_text(dtype):
        return _Value(expr, text=as_text(expr, dtype))
    if dtype == pl.Boolean:
        return _Value(expr, boolean=expr)
    if dtype.is_float():
        return _Value(expr, number=expr.fill_nan(None))
    if dtype.is_numeric():
        return _Value(expr, number=expr)
    if _mixed.is_mixed(dtype):
        number_dtype = next(f.dtype for f in dtype.fields if f.name == _mixed.NUMBER)  # type: ignore[union-attr]
        number = expr.struct.field(_mixed.NUMBER)
        return _Value(
            expr,
            text=expr.struct.field(_mixed.TEXT),
            number=number.fill_nan(None) if number_dtype.is_float() else number,
            boolean=expr.struct.field(_mixed.BOOLEAN),
        )
    return _Value(expr, other=expr, other_dtype=dtype)


def _as_text(value: _Value, argument: str, name: str, dtype: pl.DataType) -> pl.Expr:
    """Read a value as text, the way the seed's ``to_s`` does: null reads as ""."""
    parts = [value.text] if value.text is not None else []
    for part in (value.number, value.boolean):
        if part is not None:
            parts.append(part.cast(pl.String))
    if value.other is not None:
        other = value.other_dtype
        if other is None or other.is_nested() or other in (pl.Binary, pl.Object):
            raise dtype_error(argument, name, dtype, "text, a number or a boolean")
        parts.append(value.other.cast(pl.String))
    return pl.coalesce([*parts, pl.lit("")])


# --------------------------------------------------------------------------------------------
# exact_match
# --------------------------------------------------------------------------------------------


def exact_match(
    actual: IntoExpr,
    expected: IntoExpr | bool | float,
    *,
    ignore_case: bool = True,
    strip: bool = True,
    label: str | None = None,
    prefix: str = "",
    schema: Schema | None = None,
) -> pl.Expr:
    r"""Compare answers with ground truth, ignoring case and surrounding white space.

    Strings are compared after stripping surrounding white space and lower-casing (per the
    flags); anything else is compared with ``==``. A boolean or number is never coerced to
    text, so a string never matches a number or a boolean, and a boolean never matches a number
    (``"12"`` is not ``12``; ``True`` is not ``1``). Numbers compare by value (``1`` is
    ``1.0``). A null matches only a null, as ``nil == nil`` does in the seed.

    Parameters
    ----------
    actual
        The answers: a column name or an expression, of any dtype.
    expected
        The ground truth: a column name or an expression (a literal string is
        ``pl.lit("...")``); a number or boolean is taken as a literal.
    ignore_case
        Lower-case both sides before comparing (strings only).
    strip
        Strip surrounding white space from both sides (strings only).
    label
        Replaces the default description ``"exact match"`` in ``expectation``.
    prefix
        Put before each output name.
    schema
        The frame's schema, to check columns and dtypes now (the frame methods pass it).
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
    >>> df = pl.DataFrame({"answer": [12, 12, None]})
    >>> df.select(gf.exact_match("answer", 12.0)).unnest("exact_match")
    shape: (3, 2)
    ┌─────────┬─────────────┐
    │ correct ┆ expectation │
    │ ---     ┆ ---         │
    │ bool    ┆ str         │
    ╞═════════╪═════════════╡
    │ true    ┆ exact match │
    │ true    ┆ exact match │
    │ false   ┆ exact match │
    └─────────┴─────────────┘
    """
    _check_flag(ignore_case, "ignore_case")
    _check_flag(strip, "strip")
    check_prefix(prefix)
    expectation = _expectation(label, "exact match")
    actual_expr = _into(actual, "actual")
    expected_expr = _into(expected, "expected", literals=(Real,))
    options = {"ignore_case": ignore_case, "strip": strip, "label": label, "prefix": prefix}
    if schema is None:
        return _deferred(
            lambda s, cols: exact_match(cols[0], cols[1], **options, schema=s),  # type: ignore[arg-type]
            [actual_expr, expected_expr],
            _struct_dtype(prefix, EXACT_MATCH_COLUMNS),
            prefix + "exact_match",
        )
    _, actual_dtype = _resolve(actual, actual_expr, "actual", schema)
    _, expected_dtype = _resolve(expected, expected_expr, "expected", schema)
    left, right = _read(actual_expr, actual_dtype), _read(expected_expr, expected_dtype)

    def normal(text: pl.Expr) -> pl.Expr:
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
    correct = pl.any_horizontal([e.fill_null(value=False) for e in equal])
    return _result(prefix, "exact_match", {"correct": correct}, expectation)


def with_exact_match(
    frame: Frame,
    actual: IntoExpr,
    expected: IntoExpr | bool | float,
    *,
    ignore_case: bool = True,
    strip: bool = True,
    label: str | None = None,
    prefix: str = "",
) -> Frame:
    """Add ``correct`` and ``expectation`` to a DataFrame or LazyFrame; see :func:`exact_match`.

    Same rows, same order, input columns untouched; a LazyFrame stays lazy. Columns and dtypes
    are checked now.
    """
    return _frame_result(
        frame,
        EXACT_MATCH_COLUMNS,
        prefix,
        lambda schema: exact_match(
            actual,
            expected,
            ignore_case=ignore_case,
            strip=strip,
            label=label,
            prefix=prefix,
            schema=schema,
        ),
    )


# --------------------------------------------------------------------------------------------
# includes
# --------------------------------------------------------------------------------------------


def _needle_list(expr: pl.Expr, dtype: pl.DataType, name: str) -> tuple[pl.Expr, bool]:
    """Return the needles as String (one per row) or List(String), and whether a list."""

    def element_text(element: pl.Expr, inner: pl.DataType) -> pl.Expr | None:
        if is_text(inner):
            return as_text(element, inner)
        if inner == pl.Null or inner.is_integer():
            return element.cast(pl.String)
        return None

    scalar = element_text(expr, dtype)
    if scalar is not None:
        return scalar, False
    if isinstance(dtype, pl.List | pl.Array):
        element = element_text(pl.element(), dtype.inner)
        if element is not None:
            listed = expr.arr.to_list() if isinstance(dtype, pl.Array) else expr
            return listed.list.eval(element), True
    raise dtype_error("expected", name, dtype, "String or List(String)")


def includes(
    actual: IntoExpr,
    expected: IntoExpr | Sequence[str],
    *,
    ignore_case: bool = True,
    label: str | None = None,
    prefix: str = "",
    schema: Schema | None = None,
) -> pl.Expr:
    r"""Check that every expected text appears in the answer.

    ``missing`` lists the needles that were not found, in their given order (as given, not
    lower-cased). A row with no needles (an empty list, or a null ``expected``) is never a match.
    A null answer reads as ``""``; a null needle inside a list reads as ``""`` too, which every
    answer contains (the seed's ``to_s``). A number or boolean answer is read as text.

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
    label
        Replaces the default description ``"includes expected text"``.
    prefix
        Put before each output name.
    schema
        The frame's schema, to check columns and dtypes now (the frame methods pass it).

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
    """
    _check_flag(ignore_case, "ignore_case")
    check_prefix(prefix)
    expectation = _expectation(label, "includes expected text")
    actual_expr = _into(actual, "actual")
    literal: list[str] | None = None
    if isinstance(expected, list | tuple):
        for i, needle in enumerate(expected):
            if not isinstance(needle, str):
                kind = type(needle).__name__
                msg = f"`expected[{i}]` must be a str (a needle), got {kind}: {needle!r}"
                raise TypeError(msg)
        literal = list(expected)
        inputs = [actual_expr]
    else:
        expected_expr = _into(expected, "expected")
        inputs = [actual_expr, expected_expr]
    options = {"ignore_case": ignore_case, "label": label, "prefix": prefix}
    if schema is None:
        return _deferred(
            lambda s, cols: includes(
                cols[0],
                literal if literal is not None else cols[1],
                **options,  # type: ignore[arg-type]
                schema=s,
            ),
            inputs,
            _struct_dtype(prefix, INCLUDES_COLUMNS),
            prefix + "includes",
        )
    actual_name, actual_dtype = _resolve(actual, actual_expr, "actual", schema)
    haystack = _as_text(_read(actual_expr, actual_dtype), "actual", actual_name, actual_dtype)

    def lower(text: pl.Expr) -> pl.Expr:
        return text.str.to_lowercase() if ignore_case else text

    haystack = lower(haystack)
    if literal is not None:
        if not literal:
            correct = haystack.is_null() & pl.lit(value=False)  # one False per row
            return _result(
                prefix, "includes", {"correct": correct, "missing": _EMPTY_LIST}, expectation
            )
        found = [haystack.str.contains(lower(pl.lit(n)), literal=True) for n in literal]
        missing = pl.concat_list(
            [
                pl.when(~f).then(pl.lit(n)).otherwise(None)
                for f, n in zip(found, literal, strict=True)
            ]
        ).list.drop_nulls()
        correct = pl.all_horizontal(found)
        return _result(prefix, "includes", {"correct": correct, "missing": missing}, expectation)

    expected_name, expected_dtype = _resolve(expected, expected_expr, "expected", schema)
    needles, listed = _needle_list(expected_expr, expected_dtype, expected_name)
    if not listed:
        found = haystack.str.contains(lower(needles), literal=True)
        missing = (
            pl.when(needles.is_null() | found).then(_EMPTY_LIST).otherwise(pl.concat_list(needles))
        )
        correct = (needles.is_not_null() & found).fill_null(value=False)
        return _result(prefix, "includes", {"correct": correct, "missing": missing}, expectation)

    # Each row's needles travel with its haystack in one list [haystack, needles..., lowered...],
    # so one list.eval sees both: the haystack is its first element.
    # Staged in one struct so that each value is computed once (see `within`).
    e = pl.element()
    stages = pl.struct(
        haystack=haystack, needles=needles.list.eval(e.fill_null("")).fill_null(_EMPTY_LIST)
    )
    listed_needles = pl.field("needles")
    lowered = listed_needles.list.eval(lower(e)) if ignore_case else listed_needles
    count = (e.len() - 1) // 2
    stages = stages.struct.with_fields(
        missing=pl.concat_list(pl.field("haystack"), listed_needles, lowered).list.eval(
            e.slice(1, count).filter(
                ~e.first().str.contains(e.slice(1 + count, count), literal=True)
            )
        )
    )
    stages = stages.struct.with_fields(
        correct=(listed_needles.list.len() > 0) & (pl.field("missing").list.len() == 0)
    )
    fields = {"correct": pl.field("correct"), "missing": pl.field("missing")}
    return (
        stages.struct.with_fields(__result=_result(prefix, "includes", fields, expectation))
        .struct.field("__result")
        .alias(prefix + "includes")
    )


def with_includes(
    frame: Frame,
    actual: IntoExpr,
    expected: IntoExpr | Sequence[str],
    *,
    ignore_case: bool = True,
    label: str | None = None,
    prefix: str = "",
) -> Frame:
    """Add ``correct``, ``expectation`` and ``missing`` to a frame; see :func:`includes`."""
    return _frame_result(
        frame,
        INCLUDES_COLUMNS,
        prefix,
        lambda schema: includes(
            actual, expected, ignore_case=ignore_case, label=label, prefix=prefix, schema=schema
        ),
    )


# --------------------------------------------------------------------------------------------
# matches
# --------------------------------------------------------------------------------------------


def _for_polars(source: str, flags: int) -> str | None:
    r"""Return the pattern as Polars should run it, or None when only ``regex`` can.

    Inline flags stand for the compiled pattern's flags; Python's ``\Z`` (end of text) is Rust's
    ``\z``. ``\A`` and ``\z`` mean the same in both engines.
    """
    extra = flags & ~_NEUTRAL_FLAGS
    inline = ""
    for flag, letter in _INLINE_FLAGS:
        if extra & flag:
            inline += letter
            extra &= ~flag
    if extra:
        return None  # ASCII, LOCALE, regex's V1, FULLCASE, ...: only the regex module has them
    body = _ESCAPE_RE.sub(lambda m: r"\z" if m.group(1) == "Z" else m.group(0), source)
    return f"(?{inline}){body}" if inline else body


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _compile_fallback(source: str, flags: int, where: str) -> regex.Pattern[str]:
    try:
        return regex.compile(source, flags)
    except (regex.error, ValueError, TypeError) as exc:
        msg = f"{where}: {source!r} is not a valid regular expression ({_first_line(exc)})."
        raise ValueError(msg) from None


def _polars_accepts(pattern: str) -> bool:
    try:
        pl.select(pl.lit("", dtype=pl.String).str.contains(pattern))
    except pl.exceptions.PolarsError:
        return False
    return True


def _search_distinct(compiled: regex.Pattern[str], where: str, text: pl.Series) -> pl.Series:
    """Run a ``regex`` pattern once per distinct text and spread the answers back."""
    distinct = text.unique()
    found = []
    for value in distinct.to_list():
        try:
            found.append(compiled.search(value, timeout=REGEX_TIMEOUT) is not None)
        except TimeoutError:
            shown = value if len(value) <= 80 else value[:77] + "..."
            msg = (
                f"{where}: {compiled.pattern!r} took longer than {REGEX_TIMEOUT} s on one answer "
                f"({shown!r}); the pattern backtracks catastrophically. Rewrite it, or raise "
                "gradeframe.matchers.REGEX_TIMEOUT."
            )
            raise ValueError(msg) from None
    return text.replace_strict(
        distinct, pl.Series(found, dtype=pl.Boolean), return_dtype=pl.Boolean
    )


def _pattern_source(pattern: object) -> tuple[str, int]:
    if isinstance(pattern, re.Pattern | regex.Pattern):
        if not isinstance(pattern.pattern, str):
            msg = f"`pattern` must be a text pattern, got a bytes pattern: {pattern!r}"
            raise TypeError(msg)
        return pattern.pattern, pattern.flags
    if isinstance(pattern, str):
        return pattern, 0
    msg = (
        "`pattern` must be a str, re.Pattern or regex.Pattern, "
        f"got {type(pattern).__name__}: {pattern!r}"
    )
    raise TypeError(msg)


def _match_one(text: pl.Expr, pattern: object) -> pl.Expr:
    """One pattern for every row: Polars runs it if it can, else the regex module does."""
    source, flags = _pattern_source(pattern)
    where = "`pattern`"
    polars_pattern = _for_polars(source, flags)
    if polars_pattern is not None and _polars_accepts(polars_pattern):
        return text.str.contains(polars_pattern)
    compiled = _compile_fallback(source, flags, where)
    search = functools.partial(_search_distinct, compiled, where)
    return text.map_batches(search, return_dtype=pl.Boolean)


def _match_column(series: Sequence[pl.Series]) -> pl.Series:
    """Per-row patterns, run once per distinct pattern over the rows that carry it.

    Rows are sorted by pattern, so each distinct pattern is one contiguous run: Polars runs it
    on that run with the pattern as a literal (compiled once), or the regex module does. The
    Python loop is over distinct patterns, never rows. (Polars' per-row ``str.contains`` with a
    pattern column recompiles whenever the pattern changes from one row to the next: minutes
    per million rows with a hundred interleaved patterns.)
    """
    text, patterns = series
    height = max(len(text), len(patterns))
    text = text if len(text) == height else text.new_from_index(0, height)
    patterns = patterns if len(patterns) == height else patterns.new_from_index(0, height)
    if patterns.null_count():
        row = patterns.is_null().arg_true()[0]
        msg = f"`pattern_column`: row {row} has no pattern (null); every row needs one."
        raise ValueError(msg)
    if height == 0:
        return pl.Series(dtype=pl.Boolean)
    order = patterns.arg_sort()
    sorted_text = text.gather(order)
    runs = patterns.gather(order).rle().struct.unnest()
    chunks = []
    start = 0
    for length, source in runs.iter_rows():
        part = sorted_text.slice(start, length)
        polars_pattern = _for_polars(source, 0)
        try:
            chunks.append(part.str.contains(polars_pattern))
        except pl.exceptions.PolarsError:
            row = order.slice(start, length).min()
            where = f"`pattern_column` row {row}"
            compiled = _compile_fallback(source, 0, where)
            chunks.append(_search_distinct(compiled, where, part))
        start += length
    return pl.concat(chunks).gather(order.arg_sort())


def matches(
    actual: IntoExpr,
    pattern: PatternLike | None = None,
    *,
    pattern_column: IntoExpr | None = None,
    label: str | None = None,
    prefix: str = "",
    schema: Schema | None = None,
) -> pl.Expr:
    r"""Check that answers match a regular expression (anywhere in the text, like ``search``).

    Give exactly one of ``pattern`` (the same for every row) and ``pattern_column`` (one per
    row). Polars' regex engine runs every pattern it accepts; a pattern it rejects (lookaround,
    backreferences, atomic groups, ...) runs on the ``regex`` module instead, once per distinct
    pattern over the distinct answers, each search limited to :data:`REGEX_TIMEOUT` seconds so a
    catastrophic pattern raises naming it instead of hanging. ``\A`` is the start of the text
    and ``\z`` (or Python's ``\Z``) its end, in both engines; ``^`` and ``$`` follow the engine
    that runs the pattern (``$`` on the ``regex`` module also matches before a final newline).
    A null answer reads as ``""``, as the seed's ``to_s`` does; a number or boolean is read as
    text.

    Parameters
    ----------
    actual
        The answers: a column name or an expression.
    pattern
        A regular expression (str), or a compiled ``re.Pattern``/``regex.Pattern`` whose
        IGNORECASE, MULTILINE, DOTALL and VERBOSE flags are kept (as inline flags for Polars;
        other flags make the ``regex`` module run it). Never a column name.
    pattern_column
        A String column name or expression holding one pattern per row. A null or invalid
        pattern raises naming the row.
    label
        Replaces the default description ``"matches expected pattern"``.
    prefix
        Put before each output name.
    schema
        The frame's schema, to check columns and dtypes now (the frame methods pass it).

    Returns
    -------
    pl.Expr
        A struct expression named ``prefix + "matches"`` with the fields ``correct`` and
        ``expectation``.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame({"code": ["AB-1234", "ab-1234", "AB-1234\n", None]})
    >>> df.select(gf.matches("code", r"\A[A-Z]{2}-\d{4}\z")).unnest("matches")
    shape: (4, 2)
    ┌─────────┬──────────────────────────┐
    │ correct ┆ expectation              │
    │ ---     ┆ ---                      │
    │ bool    ┆ str                      │
    ╞═════════╪══════════════════════════╡
    │ true    ┆ matches expected pattern │
    │ false   ┆ matches expected pattern │
    │ false   ┆ matches expected pattern │
    │ false   ┆ matches expected pattern │
    └─────────┴──────────────────────────┘
    """
    check_prefix(prefix)
    expectation = _expectation(label, "matches expected pattern")
    if (pattern is None) == (pattern_column is None):
        given = "neither" if pattern is None else "both"
        msg = (
            "`matches` needs exactly one of `pattern` (one for every row) and `pattern_column` "
            f"(one per row), and was given {given}."
        )
        raise ValueError(msg)
    actual_expr = _into(actual, "actual")
    inputs = [actual_expr]
    if pattern is not None:
        _pattern_source(pattern)  # type errors now
    else:
        column_expr = _into(pattern_column, "pattern_column")
        inputs.append(column_expr)
    if schema is None:
        return _deferred(
            lambda s, cols: matches(
                cols[0],
                pattern,
                pattern_column=None if pattern is not None else cols[1],
                label=label,
                prefix=prefix,
                schema=s,
            ),
            inputs,
            _struct_dtype(prefix, MATCHES_COLUMNS),
            prefix + "matches",
        )
    actual_name, actual_dtype = _resolve(actual, actual_expr, "actual", schema)
    text = _as_text(_read(actual_expr, actual_dtype), "actual", actual_name, actual_dtype)
    if pattern is not None:
        correct = _match_one(text, pattern)
    else:
        column_name, column_dtype = _resolve(pattern_column, column_expr, "pattern_column", schema)
        if not (is_text(column_dtype) or column_dtype == pl.Null):
            raise dtype_error("pattern_column", column_name, column_dtype, "String")
        correct = pl.map_batches(
            [text, column_expr.cast(pl.String)], _match_column, return_dtype=pl.Boolean
        )
    return _result(prefix, "matches", {"correct": correct.fill_null(value=False)}, expectation)


def with_matches(
    frame: Frame,
    actual: IntoExpr,
    pattern: PatternLike | None = None,
    *,
    pattern_column: IntoExpr | None = None,
    label: str | None = None,
    prefix: str = "",
) -> Frame:
    """Add ``correct`` and ``expectation`` to a frame; see :func:`matches`."""
    return _frame_result(
        frame,
        MATCHES_COLUMNS,
        prefix,
        lambda schema: matches(
            actual,
            pattern,
            pattern_column=pattern_column,
            label=label,
            prefix=prefix,
            schema=schema,
        ),
    )


# --------------------------------------------------------------------------------------------
# within
# --------------------------------------------------------------------------------------------


def _check_tolerance(value: object, argument: str) -> None:
    if not _is_number(value):
        msg = f"`{argument}` must be a number, got {type(value).__name__}: {value!r}"
        raise TypeError(msg)
    if not math.isfinite(value) or value < 0:  # type: ignore[arg-type]
        msg = f"`{argument}` must be a finite number >= 0, got {value!r}"
        raise ValueError(msg)


def _parse_number(text: pl.Expr) -> pl.Expr:
    """Read text as one number after folding ("1,204" is 1204); anything else is null."""
    folded = fold(text)
    return pl.when(folded.str.contains(_NUMBER_RE)).then(folded.cast(pl.Float64, strict=False))


def _shown(value: _Value) -> pl.Expr:
    """How an expected value is shown in an error message."""
    parts = []
    if value.text is not None:
        parts.append(pl.lit("'") + value.text + pl.lit("'"))
    for part in (value.number, value.boolean):
        if part is not None:
            parts.append(part.cast(pl.String))
    return pl.coalesce([*parts, pl.lit("null")])


def _check_expected_numbers(series: Sequence[pl.Series]) -> pl.Series:
    """Raise naming the first row whose expected value is not a finite number."""
    number, shown = series
    bad = (number.is_null() | ~number.is_finite()).fill_null(value=True)
    if bad.any():
        row = bad.arg_true()[0]
        value = shown[row] if len(shown) > row else shown[0]
        msg = (
            f"`within`: the expected value in row {row} is {value}; it must be a finite number "
            "(only the eval's author can fix the expected column)."
        )
        raise ValueError(msg)
    return number


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
    ``|actual - expected| <= tolerance``, in floating point as written (as RSpec's
    ``be_within``). A text answer is read as one number after folding (``"1,204"`` is 1204,
    ``" -3.5 "`` is -3.5); text that is not one number (``"about forty"``, ``"12 apples"``), a
    boolean or a null fails its row, with ``difference`` null. A non-numeric expected value
    raises naming the row: it is the eval's mistake, not the model's.

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
    prefix
        Put before each output name.
    schema
        The frame's schema, to check columns and dtypes now (the frame methods pass it).

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
    ...     {"answer": ["1,204", "about forty", "25", None], "truth": [1200, 40, 27, 3]}
    ... )
    >>> df.select(gf.within("answer", "truth", delta=5)).unnest("within")
    shape: (4, 4)
    ┌─────────┬──────────────────────┬───────────┬────────────┐
    │ correct ┆ expectation          ┆ tolerance ┆ difference │
    │ ---     ┆ ---                  ┆ ---       ┆ ---        │
    │ bool    ┆ str                  ┆ f64       ┆ f64        │
    ╞═════════╪══════════════════════╪═══════════╪════════════╡
    │ true    ┆ within 5 of expected ┆ 5.0       ┆ 4.0        │
    │ false   ┆ within 5 of expected ┆ 5.0       ┆ null       │
    │ true    ┆ within 5 of expected ┆ 5.0       ┆ 2.0        │
    │ false   ┆ within 5 of expected ┆ 5.0       ┆ null       │
    └─────────┴──────────────────────┴───────────┴────────────┘
    """
    if (delta is None) == (percent is None):
        given = "neither" if delta is None else f"both (delta={delta!r}, percent={percent!r})"
        msg = f"`within` needs exactly one of `delta` and `percent`, and was given {given}."
        raise ValueError(msg)
    if delta is not None:
        _check_tolerance(delta, "delta")
        default = f"within {_format_number(delta)} of expected"
    else:
        _check_tolerance(percent, "percent")
        default = f"within {_format_number(percent)}% of expected"  # type: ignore[arg-type]
    check_prefix(prefix)
    expectation = _expectation(label, default)
    actual_expr = _into(actual, "actual")
    if isinstance(expected, bool):
        msg = f"`expected` must be numeric, got bool: {expected!r}"
        raise TypeError(msg)
    expected_expr = _into(expected, "expected", literals=(Real,))
    if schema is None:
        return _deferred(
            lambda s, cols: within(
                cols[0],
                cols[1],
                delta=delta,
                percent=percent,
                label=label,
                prefix=prefix,
                schema=s,
            ),
            [actual_expr, expected_expr],
            _struct_dtype(prefix, WITHIN_COLUMNS),
            prefix + "within",
        )
    actual_name, actual_dtype = _resolve(actual, actual_expr, "actual", schema)
    expected_name, expected_dtype = _resolve(expected, expected_expr, "expected", schema)

    answer = _read(actual_expr, actual_dtype)
    if answer.other is not None:
        raise dtype_error("actual", actual_name, actual_dtype, "numbers or text")
    numbers = []
    if answer.number is not None:
        numbers.append(answer.number.cast(pl.Float64))
    if answer.text is not None:
        numbers.append(_parse_number(answer.text))
    if not numbers:  # booleans or nulls: no row holds a number (one null per row)
        numbers.append(pl.when(answer.expr.is_null() & pl.lit(value=False)).then(pl.lit(0.0)))
    value = pl.coalesce(numbers)

    truth = _read(expected_expr, expected_dtype)
    if not (expected_dtype == pl.Null or expected_dtype.is_numeric() or truth.number is not None):
        cast = (
            "pl.col(...)"
            if expected_name.startswith("__gradeframe_")
            else f"pl.col({expected_name!r})"
        )
        raise dtype_error(
            "expected",
            expected_name,
            expected_dtype,
            f"numbers (within compares numbers; a non-numeric expected value is the eval's "
            f"mistake: fix it, or cast it first, for example {cast}.cast(pl.Float64))",
        )
    truth_number = (
        pl.lit(None, dtype=pl.Float64) if truth.number is None else truth.number.cast(pl.Float64)
    )
    if truth.text is not None or truth.boolean is not None:  # a mixed pandas column
        truth_number = pl.when(truth.text.is_null() & truth.boolean.is_null()).then(truth_number)  # type: ignore[union-attr]
    checked = pl.map_batches(
        [truth_number, _shown(truth)], _check_expected_numbers, return_dtype=pl.Float64
    )

    # Staged in one struct so that each value is computed once: Polars does not share common
    # subexpressions inside a struct on an eager frame (the check would run three times).
    stages = pl.struct(value=value, expected=checked)
    if delta is not None:
        tolerance = pl.lit(float(delta), dtype=pl.Float64)
    else:
        tolerance = pl.field("expected").abs() * (float(percent) / 100)  # type: ignore[arg-type]
    stages = stages.struct.with_fields(
        tolerance=tolerance, difference=(pl.field("value") - pl.field("expected")).abs()
    )
    stages = stages.struct.with_fields(
        correct=(pl.field("difference") <= pl.field("tolerance")).fill_null(value=False)
    )
    fields = {name: pl.field(name) for name in ("correct", "tolerance", "difference")}
    return (
        stages.struct.with_fields(__result=_result(prefix, "within", fields, expectation))
        .struct.field("__result")
        .alias(prefix + "within")
    )


def with_within(
    frame: Frame,
    actual: IntoExpr,
    expected: IntoExpr | float,
    *,
    delta: float | None = None,
    percent: float | None = None,
    label: str | None = None,
    prefix: str = "",
) -> Frame:
    """Add ``correct``, ``expectation``, ``tolerance`` and ``difference``; see :func:`within`.

    On a DataFrame a bad expected value raises now; on a LazyFrame at ``collect()``.
    """
    return _frame_result(
        frame,
        WITHIN_COLUMNS,
        prefix,
        lambda schema: within(
            actual,
            expected,
            delta=delta,
            percent=percent,
            label=label,
            prefix=prefix,
            schema=schema,
        ),
    )
