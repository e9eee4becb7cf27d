"""Acceptable answers as text: numbers in positional digits, and JSON-list refs.

One rule for every surface (frames, pandas, Dask, Spark, the command line).
"""

from __future__ import annotations

from typing import Final

import polars as pl

from gradeframe import _inputs
from gradeframe._inputs import IntoExpr, Schema

#: A number as Polars writes it: sign, integer digits, fraction digits, exponent ("1e-7",
#: "1.23e+22", "12400.0", "2.50" for a Decimal).
_NUMBER_PARTS_RE: Final = (
    r"^(?<sign>-?)(?<whole>\d+)(?:\.(?<fraction>\d*))?(?:e(?<exponent>[+-]?\d+))?$"
)


def number_text(expr: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """Write numbers in plain positional digits: the text of a numeric acceptable answer.

    ``12400.0`` is "12400", ``1e15`` "1000000000000000", ``1e-7`` "0.0000001", ``2.50`` "2.5";
    a float has the shortest digits that read back as the same value in its own width (Float32
    or Float64). NaN, infinities and null are null (no acceptable answer), and ``-0.0`` is "0".
    A Decimal keeps its scale: Decimal(4, 2) 2.50 is "2.50", as it was written.
    """
    if dtype.is_integer() or dtype.is_decimal():
        return expr.cast(pl.String)
    if dtype.is_float():
        written = pl.when(expr.is_finite()).then(expr).cast(pl.String)
    else:
        msg = f"not a numeric dtype: {dtype}"
        raise TypeError(msg)
    return _positional(written)


def _positional(written: pl.Expr) -> pl.Expr:
    """Rewrite a number written by Polars (maybe with an exponent) in positional digits."""
    parts = pl.field("parts")
    sign, whole = parts.struct.field("sign"), parts.struct.field("whole")
    fraction = parts.struct.field("fraction").fill_null("")
    exponent = parts.struct.field("exponent").cast(pl.Int64).fill_null(0)
    staged = pl.struct(parts=written.str.extract_groups(_NUMBER_PARTS_RE)).struct.with_fields(
        digits=whole + fraction,
        point=whole.str.len_chars().cast(pl.Int64) + exponent,  # digits before the point
    )
    digits, point = pl.field("digits"), pl.field("point")
    size = digits.str.len_chars().cast(pl.Int64)
    # zeros on the right (a large exponent), on the left (a small one), or neither; every branch
    # is evaluated, so the lengths are clipped to stay valid where the branch is not taken
    padded = (
        pl.when(point > size)
        .then(digits.str.reverse().str.zfill(point.clip(lower_bound=0)).str.reverse())
        .when(point < 1)
        .then(digits.str.zfill((size - point + 1).clip(lower_bound=0)))
        .otherwise(digits)
    )
    staged = staged.struct.with_fields(
        digits=padded, point=pl.max_horizontal(point, pl.lit(1, dtype=pl.Int64))
    )
    head = digits.str.slice(0, point).str.strip_chars_start("0")
    tail = digits.str.slice(point).str.strip_chars_end("0")
    staged = staged.struct.with_fields(
        head=pl.when(head == "").then(pl.lit("0")).otherwise(head), tail=tail
    )
    head, tail = pl.field("head"), pl.field("tail")
    zero = (head == "0") & (tail == "")
    text = (
        pl.when(zero).then(pl.lit("")).otherwise(sign)
        + head
        + pl.when(tail == "").then(pl.lit("")).otherwise("." + tail)
    )
    return _inputs.keep_name(staged.struct.with_fields(text=text).struct.field("text"), written)


def _ref_text(expr: pl.Expr, dtype: pl.DataType) -> pl.Expr | None:
    """Return acceptable answers of one scalar dtype as String (None: dtype unsupported)."""
    if _inputs.is_text(dtype):
        return _inputs.as_text(expr, dtype)
    if dtype == pl.Null:
        return expr.cast(pl.String)
    if dtype.is_integer() or dtype.is_float() or dtype.is_decimal():
        return number_text(expr, dtype)
    return None


def resolve_refs(refs: IntoExpr, schema: Schema | None) -> tuple[pl.Expr, bool, bool]:
    """Return the acceptable answers as String (scalar) or List(String), and two flags.

    The flags: whether they are a list, and whether they are text (one per row, where a value
    may be a JSON list: :func:`json_list_refs`).
    """
    expr = _inputs.to_expr(refs, "refs")
    if not isinstance(refs, str) or schema is None:
        # Without a schema, a String or List(String) column is assumed; concat_list takes both.
        return pl.concat_list(expr).list.eval(pl.element().cast(pl.String)), True, False
    _inputs.check_column(schema, refs, "refs")
    dtype = schema[refs]
    scalar = _ref_text(expr, dtype)
    if scalar is not None:
        return scalar, False, _inputs.is_text(dtype)
    if isinstance(dtype, pl.List | pl.Array):
        element = _ref_text(pl.element(), dtype.inner)
        if element is not None:
            listed = expr.arr.to_list() if isinstance(dtype, pl.Array) else expr
            return listed.list.eval(element), True, False
    raise _inputs.dtype_error(
        "refs",
        refs,
        dtype,
        "acceptable answers as String, a number, or a List of String or numbers",
    )


# --------------------------------------------------------------------------------------------
# JSON-list refs: one rule for every surface (frames, pandas, Dask, Spark, the command line)
# --------------------------------------------------------------------------------------------

# A String acceptable answer whose trimmed text is a JSON array of strings and numbers is that
# list of acceptable answers, on every surface; any other text ("[citation needed]",
# "[1, 2", an array holding null, true, an object or another array) is one acceptable answer.
# The grammar is checked by one regex (Polars' json_decode raises on the first bad cell, and a
# Python loop over the rows is not allowed), then the values are cut out of the checked text.

#: JSON white space (only these four: a no-break space inside the brackets is no JSON).
_JSON_SPACE: Final = r"[ \t\n\r]*"
#: A JSON string escape. A \u escape of a UTF-16 surrogate must come as a pair: Polars decodes
#: a lone one to "\x00", so a cell holding one is not read as a list.
_JSON_ESCAPE: Final = (
    r'\\(?:["\\/bfnrt]|u(?:[0-9a-cA-CefEF][0-9a-fA-F]{3}|[dD][0-7][0-9a-fA-F]{2}'
    r"|[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}))"
)
#: A JSON string: quotes around characters other than quote, backslash and control characters.
_JSON_STRING: Final = r'"(?:[^"\\\x00-\x1f]|' + _JSON_ESCAPE + r')*"'
#: A JSON number. The exponent has at most three digits: a number is written out in positional
#: digits (as numbers are written), and "1e999999999" would be a billion zeros; such a cell is one
#: acceptable answer, as written.
_JSON_NUMBER: Final = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]{1,3})?"
#: One value of the array: a string or a number (not null, true, false, an object or an array).
_JSON_VALUE: Final = f"(?:{_JSON_STRING}|{_JSON_NUMBER})"
#: The whole (trimmed) cell: "[", values separated by commas, "]".
JSON_LIST_RE: Final = (
    rf"^\[{_JSON_SPACE}(?:{_JSON_VALUE}(?:{_JSON_SPACE},{_JSON_SPACE}{_JSON_VALUE})*"
    rf"{_JSON_SPACE})?\]$"
)


def json_list_refs(text: pl.Expr) -> pl.Expr:
    r"""Read String acceptable answers that are JSON lists: List(String) there, null elsewhere.

    A value whose trimmed text is a JSON array of strings and numbers (``["61.9", "61.9 m"]``,
    ``[12400]``, ``[]``) becomes that list; numbers are written as everywhere, in
    plain positional digits (``12400.0`` is "12400", ``1e15`` "1000000000000000"). Any other
    value, such as "[citation needed]", "[1, 2" or ``[null]``, is null (one acceptable answer, as
    written). Rows without a "[" cost one literal search; the grammar is checked with one regex
    on the rest, so a bad cell never raises.

    Examples
    --------
    >>> import polars as pl
    >>> refs = pl.Series("refs", ['["61.9", "61.9 m"]', "[12400.0, 1e15]", "[citation needed]"])
    >>> refs.to_frame().select(json_list_refs(pl.col("refs")))["refs"].to_list()
    [['61.9', '61.9 m'], ['12400', '1000000000000000'], None]
    """
    candidate = pl.when(text.str.contains("[", literal=True)).then(text).str.strip_chars()
    tokens = (
        pl.when(candidate.str.contains(JSON_LIST_RE))
        .then(candidate)
        .str.extract_all(_JSON_VALUE)  # the text was checked: the values cut out are exact
    )
    value = pl.element()
    escaped = value.str.contains("\\", literal=True)
    string = (
        pl.when(escaped)
        .then(pl.when(escaped).then(value).str.json_decode(pl.String))
        .otherwise(value.str.slice(1, value.str.len_chars() - 2))  # no escape: drop the quotes
    )
    number = _positional(value.str.to_lowercase())
    decoded = tokens.list.eval(pl.when(value.str.starts_with('"')).then(string).otherwise(number))
    return _inputs.keep_name(decoded, text)
