"""answer_contains: containment with whole numbers, the unanswerable label and the failure kinds.

Everything is a Polars expression; :func:`answer_contains` returns one struct expression, and
:func:`with_answer_contains` adds its three fields to a frame. The not-found detector lives in
:mod:`gradeframe.not_found`, the failure kinds and their chain in :mod:`gradeframe.kinds`.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

import polars as pl

from gradeframe import kinds
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
    keep_name,
    struct_fields,
    to_expr,
)
from gradeframe._subset import on_rows
from gradeframe.fold import NOT_IN_DOCUMENT_LABEL, fold, mark, needles
from gradeframe.not_found import (
    DEFAULT_NOT_FOUND_PHRASES,
    is_not_found,
    not_found_in_folded,
    phrase_pattern,
)

__all__ = [
    "DEFAULT_NOT_FOUND_PHRASES",
    "OUTPUT_COLUMNS",
    "answer_contains",
    "is_not_found",
    "json_list_refs",
    "with_answer_contains",
]

NotFound: TypeAlias = str | pl.Expr | Sequence[str] | None
Frame: TypeAlias = pl.DataFrame | pl.LazyFrame

#: The columns answer_contains adds, before ``prefix``.
OUTPUT_COLUMNS: Final = ("correct", "failure_kind", "outcome")
#: The columns ``explain=True`` adds after them.
EXPLAIN_COLUMNS: Final = ("matched", "near_miss")


def output_columns(*, explain: bool = False) -> tuple[str, ...]:
    """Return the columns answer_contains adds (before ``prefix``)."""
    return OUTPUT_COLUMNS + EXPLAIN_COLUMNS if explain else OUTPUT_COLUMNS


#: A budget note, as a whole word in any case ("_" is part of a word: "no_cost_cap_reached" is
#: another word).
_BUDGET_RE: Final = r"(?i)\b(?:" + "|".join(kinds.BUDGET_NOTES) + r")\b"
#: A refusal finish reason, as a whole word in any case.
_REFUSAL_RE: Final = r"(?i)\b(?:" + "|".join(kinds.REFUSAL_REASONS) + r")\b"


# --------------------------------------------------------------------------------------------
# Reading the inputs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Record:
    """The parts of a run's output record, each an expression over the frame."""

    text: pl.Expr  # String; null where there is no answer text
    partial: pl.Expr  # Boolean, never null
    budget_notes: pl.Expr  # Boolean, never null: the notes hold a budget note
    trace_refusal: pl.Expr  # Boolean, never null: a trace step finished with a refusal
    status: pl.Expr  # String (lower case, trimmed) or null
    carried: pl.Expr  # String or null: the row's own failure kind


# A literal: inside the stages struct every field is broadcast to the frame's length. (Not
# pl.repeat(None, pl.len()), which makes the streaming engine panic on an empty frame.)
_NULL_TEXT: Final = pl.lit(None, dtype=pl.String)
_FALSE: Final = pl.lit(value=False)


def _read_text(expr: pl.Expr, dtype: pl.DataType | None, name: str) -> pl.Expr:
    """Answer text: a text column, or the answer/text fields of a struct; else null."""
    if dtype is None or is_text(dtype):
        return expr if dtype is None else as_text(expr, dtype)
    if dtype.is_numeric() or dtype == pl.Boolean:
        raise _number_answer_error(name, dtype)
    fields = struct_fields(dtype)
    if not fields:
        return _NULL_TEXT  # lists and the like: not a string, so no answer text
    if "answer" not in fields and "text" not in fields:
        raise _no_text_field_error(name, fields)
    answer_part, text_part, not_a_string = None, None, _FALSE
    if "answer" in fields:
        field = expr.struct.field("answer")
        if is_text(fields["answer"]):
            answer_part = as_text(field, fields["answer"])
        elif fields["answer"] != pl.Null:
            not_a_string = field.is_not_null()  # a number or a list is no answer text
    if "text" in fields and is_text(fields["text"]):
        text_part = as_text(expr.struct.field("text"), fields["text"])
    parts = [p for p in (answer_part, text_part) if p is not None]
    if not parts:
        return _NULL_TEXT
    text = pl.coalesce(parts) if len(parts) > 1 else parts[0]  # `text` when `answer` is null
    return pl.when(not_a_string).then(_NULL_TEXT).otherwise(text)


def _number_answer_error(name: str, dtype: pl.DataType) -> TypeError:
    """Return the error for an answer column of numbers or booleans (SPEC §2 v3).

    Every row of such a column would be a ``parse_failure``: a silently wrong score. (A pandas
    object column that mixes text and numbers is text, and its numbers are per-row failures.)
    """
    what = "the expression" if name.startswith("__gradeframe_") else f"column {name!r}"
    shown = name if not name.startswith("__gradeframe_") else "answer"
    if dtype == pl.Boolean:
        advice = (
            f"compare Booleans with exact_match, or grade their text with "
            f"answer=pl.col({shown!r}).cast(pl.String)"
        )
    else:
        advice = (
            f"grade numbers with within (df.grade.within({shown!r}, 'refs', delta=...)), or "
            f"grade their text with answer=pl.col({shown!r}).cast(pl.String)"
        )
    msg = (
        f"`answer`: {what} has dtype {dtype}, not text: answer_contains reads answer text, and "
        f"every row would be a parse_failure. To {advice}."
    )
    return TypeError(msg)


#: Field names that usually hold a model's reply, suggested first when a struct has no
#: ``answer`` or ``text`` field.
_LIKELY_TEXT_FIELDS: Final = (
    "content",
    "response",
    "completion",
    "output",
    "reply",
    "prediction",
    "message",
    "result",
)


def _no_text_field_error(name: str, fields: dict[str, pl.DataType]) -> ValueError:
    """Return the error for a struct answer column without an ``answer`` or ``text`` field."""
    what = "the expression" if name.startswith("__gradeframe_") else f"column {name!r}"
    shown = name if not name.startswith("__gradeframe_") else "output"
    texts = [f for f, dtype in fields.items() if is_text(dtype)]
    likely = [f for f in _LIKELY_TEXT_FIELDS if f in texts]
    pick = (likely or texts or list(fields))[0]
    listed = ", ".join(f"{f!r} ({dtype})" for f, dtype in fields.items())
    msg = (
        f"`answer`: {what} is a struct with the fields {listed}, and neither an 'answer' nor a "
        "'text' field to read the answer text from. Pick the field that holds it, for example "
        f"answer=pl.col({shown!r}).struct.field({pick!r}) (on the command line: "
        f"--answer {shown}.{pick})."
    )
    return ValueError(msg)


def _read_partial(expr: pl.Expr, dtype: pl.DataType | None, argument: str, name: str) -> pl.Expr:
    if dtype is None or dtype == pl.Boolean:
        return expr.fill_null(value=False)
    if dtype == pl.Null:
        return _FALSE
    if dtype.is_integer():
        return (expr != 0).fill_null(value=False)
    if is_text(dtype):  # a CSV read as text: "true"/"1" as the command line reads it
        words = as_text(expr, dtype).str.strip_chars().str.to_lowercase()
        return words.is_in(["true", "1"]).fill_null(value=False)
    raise dtype_error(argument, name, dtype, "Boolean")


def _read_notes(expr: pl.Expr, dtype: pl.DataType | None, argument: str, name: str) -> pl.Expr:
    if dtype is None:
        return pl.concat_list(expr).list.eval(pl.element().str.contains(_BUDGET_RE)).list.any()
    if is_text(dtype):
        return as_text(expr, dtype).str.contains(_BUDGET_RE).fill_null(value=False)
    if dtype == pl.Null:
        return _FALSE
    if isinstance(dtype, pl.List | pl.Array) and (is_text(dtype.inner) or dtype.inner == pl.Null):
        hits = expr.list.eval(as_text(pl.element(), dtype.inner).str.contains(_BUDGET_RE))
        return hits.list.any().fill_null(value=False)
    raise dtype_error(argument, name, dtype, "String or List(String)")


def _read_trace(expr: pl.Expr, dtype: pl.DataType | None, argument: str, name: str) -> pl.Expr:
    def reasons(element: pl.Expr, inner: pl.DataType) -> pl.Expr | None:
        if is_text(inner):
            return as_text(element, inner)
        fields = struct_fields(inner)
        if "finish_reason" in fields and is_text(fields["finish_reason"]):
            return as_text(element.struct.field("finish_reason"), fields["finish_reason"])
        if isinstance(inner, pl.Struct) or inner == pl.Null:
            return None  # steps without a finish reason never refuse
        raise dtype_error(
            argument,
            name,
            dtype,
            "a String, a List(String), or a List(Struct) with a String field 'finish_reason'",
        )

    if dtype is None:
        hits = pl.concat_list(expr).list.eval(pl.element().str.contains(_REFUSAL_RE))
        return hits.list.any().fill_null(value=False)
    if dtype == pl.Null:
        return _FALSE
    if isinstance(dtype, pl.List | pl.Array):
        found = reasons(pl.element(), dtype.inner)
        if found is None:
            return _FALSE
        return expr.list.eval(found.str.contains(_REFUSAL_RE)).list.any().fill_null(value=False)
    found = reasons(expr, dtype)
    return _FALSE if found is None else found.str.contains(_REFUSAL_RE).fill_null(value=False)


def _read_status(expr: pl.Expr, dtype: pl.DataType | None, argument: str, name: str) -> pl.Expr:
    if dtype is None or is_text(dtype):
        text = expr if dtype is None else as_text(expr, dtype)
        return text.str.strip_chars().str.to_lowercase()
    if dtype == pl.Null:
        return _NULL_TEXT
    raise dtype_error(argument, name, dtype, "String")


def _read_carried(expr: pl.Expr, dtype: pl.DataType | None, argument: str, name: str) -> pl.Expr:
    if dtype is None or is_text(dtype):
        text = expr if dtype is None else as_text(expr, dtype)
        return pl.when(text.str.strip_chars() != "").then(text)
    if dtype == pl.Null:
        return _NULL_TEXT
    raise dtype_error(argument, name, dtype, "String")


Reader: TypeAlias = Callable[[pl.Expr, pl.DataType | None, str, str], pl.Expr]

_READERS: Final[dict[str, tuple[Reader, pl.Expr]]] = {
    "partial": (_read_partial, _FALSE),
    "notes": (_read_notes, _FALSE),
    "trace": (_read_trace, _FALSE),
    "status": (_read_status, _NULL_TEXT),
    "failure_kind": (_read_carried, _NULL_TEXT),
}


def _resolve_record(
    answer: IntoExpr, flat: dict[str, IntoExpr | None], schema: Schema | None
) -> _Record:
    """Read the output record: flat columns passed by keyword win over struct fields."""
    answer_expr = to_expr(answer, "answer")
    answer_dtype = None
    if isinstance(answer, str) and schema is not None:
        check_column(schema, answer, "answer")
        answer_dtype = schema[answer]
    fields = struct_fields(answer_dtype) if answer_dtype is not None else {}

    parts: dict[str, pl.Expr] = {}
    for role, (reader, absent) in _READERS.items():
        given = flat[role]
        by_name = _by_name(role, given, fields, schema, (answer, *flat.values()))
        if by_name is not None:
            parts[role] = _read_by_name(reader, role, by_name)
        elif given is not None:
            expr = to_expr(given, role)
            dtype = None
            if isinstance(given, str) and schema is not None:
                check_column(schema, given, role)
                dtype = schema[given]
            parts[role] = reader(expr, dtype, role, given if isinstance(given, str) else role)
        elif role in fields:
            field = answer_expr.struct.field(role)
            parts[role] = reader(field, fields[role], "answer", f"{answer}.{role}")
        else:
            parts[role] = absent
    return _Record(
        text=_read_text(answer_expr, answer_dtype, answer if isinstance(answer, str) else "answer"),
        partial=parts["partial"],
        budget_notes=parts["notes"],
        trace_refusal=parts["trace"],
        status=parts["status"],
        carried=parts["failure_kind"],
    )


#: The record inputs read from a flat column of the same name when not given and not a field of
#: the answer struct (SPEC §2 v3). Not ``failure_kind``: that is an output column.
BY_NAME: Final = ("partial", "notes", "trace", "status")


def _by_name(
    role: str,
    given: IntoExpr | None,
    fields: dict[str, pl.DataType],
    schema: Schema | None,
    arguments: tuple[object, ...],
) -> pl.DataType | None:
    """Return the dtype of the flat column read by name for ``role`` (None: none is read)."""
    if given is not None or role not in BY_NAME or role in fields or schema is None:
        return None
    if role not in schema or role in arguments:  # a column passed as another input is that
        return None
    return schema[role]


def _read_by_name(reader: Reader, role: str, dtype: pl.DataType) -> pl.Expr:
    """Read the flat column named like ``role``; a dtype that cannot be it says how it was read."""
    try:
        return reader(pl.col(role), dtype, role, role)
    except TypeError as exc:
        msg = (
            f"{exc} A column named {role!r} is read as the {role} of each row when `{role}` is "
            f"not given (SPEC: flat record columns by name): rename it, or pass {role}=... "
            "naming the column that holds it."
        )
        raise TypeError(msg) from None


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
    A Decimal keeps its scale (SPEC v3 §2): Decimal(4, 2) 2.50 is "2.50", as it was written.
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
    return keep_name(staged.struct.with_fields(text=text).struct.field("text"), written)


def _ref_text(expr: pl.Expr, dtype: pl.DataType) -> pl.Expr | None:
    """Return acceptable answers of one scalar dtype as String (None: dtype unsupported)."""
    if is_text(dtype):
        return as_text(expr, dtype)
    if dtype == pl.Null:
        return expr.cast(pl.String)
    if dtype.is_integer() or dtype.is_float() or dtype.is_decimal():
        return number_text(expr, dtype)
    return None


def _resolve_refs(refs: IntoExpr, schema: Schema | None) -> tuple[pl.Expr, bool, bool]:
    """Return the acceptable answers as String (scalar) or List(String), and two flags.

    The flags: whether they are a list, and whether they are text (one per row, where a value
    may be a JSON list: :func:`json_list_refs`).
    """
    expr = to_expr(refs, "refs")
    if not isinstance(refs, str) or schema is None:
        # Without a schema, a String or List(String) column is assumed; concat_list takes both.
        return pl.concat_list(expr).list.eval(pl.element().cast(pl.String)), True, False
    check_column(schema, refs, "refs")
    dtype = schema[refs]
    scalar = _ref_text(expr, dtype)
    if scalar is not None:
        return scalar, False, is_text(dtype)
    if isinstance(dtype, pl.List | pl.Array):
        element = _ref_text(pl.element(), dtype.inner)
        if element is not None:
            listed = expr.arr.to_list() if isinstance(dtype, pl.Array) else expr
            return listed.list.eval(element), True, False
    raise dtype_error(
        "refs",
        refs,
        dtype,
        "acceptable answers as String, a number, or a List of String or numbers",
    )


# --------------------------------------------------------------------------------------------
# JSON-list refs: one rule for every surface (frames, pandas, Dask, Spark, the command line)
# --------------------------------------------------------------------------------------------

# A String acceptable answer whose trimmed text is a JSON array of strings and numbers is that
# list of acceptable answers (SPEC §2 "On the user's path"); any other text ("[citation needed]",
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
#: digits (as §2 writes numbers), and "1e999999999" would be a billion zeros; such a cell is one
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
    ``[12400]``, ``[]``) becomes that list; numbers are written as SPEC §2 writes numbers, in
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
    return keep_name(decoded, text)


# --------------------------------------------------------------------------------------------
# Containment
# --------------------------------------------------------------------------------------------


# Each stage below reads the fields the stages before it added to one struct (pl.field), so every
# intermediate value is computed once: Polars does not share common subexpressions inside a
# struct on an eager frame, and the rules reuse the folded text many times.

# The boundary rules, checked on the (at most two) characters around one occurrence. They run on
# tiny strings, so they are cheap; see _check_occurrence. A word character is a letter, a number
# or a combining mark (fold.WORD); a digit is a Unicode decimal digit (\d).
#: Before an occurrence that begins with a digit: a digit, ".", or a minus sign ("-" not after a
#: word character; the context is cut at two characters, and "^" is the text's start only when
#: the occurrence is within two characters of it, which is exactly when the cut is shorter).
_BAD_BEFORE_DIGIT: Final = r"[\d.]$|(?:^|[^\p{L}\p{N}\p{M}])-$"
#: Before an occurrence that begins with "-" and a digit (or "-", "." and a digit): a word
#: character or ".".
_BAD_BEFORE_MINUS: Final = r"[\p{L}\p{N}\p{M}.]$"
#: Before an occurrence that begins with "." and a digit: a digit.
_BAD_BEFORE_DOT: Final = r"\d$"
#: After an occurrence that ends with a digit: a digit, or "." and a digit.
_BAD_AFTER_DIGIT: Final = r"^\.?\d"


#: Acceptable answers longer than this (in bytes) are searched by splitting the text at them:
#: Polars' literal search compiles a regex when the pattern is one value for a whole column (a
#: one-row frame or batch), and a pattern of a few hundred KB exceeds the regex size limit.
LONG_PATTERN: Final = 4096


def contains_literal(text: pl.Expr, pattern: pl.Expr) -> pl.Expr:
    """Return whether ``text`` contains ``pattern`` (a column) as a literal, at any length."""
    return _literal_search(text, pattern, find=False)


def find_literal(text: pl.Expr, pattern: pl.Expr) -> pl.Expr:
    """Return the byte offset of the first literal ``pattern`` in ``text``, at any length."""
    return _literal_search(text, pattern, find=True)


def _literal_search(text: pl.Expr, pattern: pl.Expr, *, find: bool) -> pl.Expr:
    # Polars' own literal search, batch by batch; only a batch holding a long pattern takes the
    # slower split for those rows (one check per batch: the common case costs nothing more).
    text_col, pattern_col = pl.col("text"), pl.col("pattern")
    if find:
        plain = text_col.str.find(pattern_col, literal=True)
    else:
        plain = text_col.str.contains(pattern_col, literal=True)
    long = pattern_col.str.len_bytes() > LONG_PATTERN
    split = pl.when(long).then(text_col).str.splitn(pattern_col, 2)
    hit = split.struct.field("field_1").is_not_null()
    by_split = (
        pl.when(hit).then(split.struct.field("field_0").str.len_bytes().cast(pl.UInt32))
        if find
        else hit
    )
    masked = text_col.str.find if find else text_col.str.contains
    short = masked(pl.when(~long).then(pattern_col), literal=True)
    safe = pl.when(long).then(by_split).otherwise(short)

    def run(batch: pl.Series) -> pl.Series:
        frame = batch.struct.unnest()
        lengths = frame.get_column("pattern").str.len_bytes()
        needs_split = bool((lengths > LONG_PATTERN).any())
        return frame.select((safe if needs_split else plain).alias(batch.name)).to_series()

    dtype = pl.UInt32() if find else pl.Boolean()
    return pl.struct(text=text, pattern=pattern).map_batches(
        run, return_dtype=dtype, is_elementwise=True
    )


def _ref_rules(ref: pl.Expr) -> pl.Expr:
    """Work out everything about acceptable answers that does not depend on the answer."""
    # The folded text is a struct field that the rules read, so it is folded once (Polars does
    # not share a subexpression between the fields of a struct).
    folded = pl.field("ref")
    return pl.struct(ref=fold(ref)).struct.with_fields(
        usable=(folded.is_not_null() & (folded != "")).fill_null(value=False),
        label=(folded == NOT_IN_DOCUMENT_LABEL).fill_null(value=False),
        digit_first=folded.str.contains(r"^\d").fill_null(value=False),
        minus_first=folded.str.contains(r"^-\.?\d").fill_null(value=False),
        dot_first=folded.str.contains(r"^\.\d").fill_null(value=False),
        digit_last=folded.str.contains(r"\d$").fill_null(value=False),
        first_bytes=folded.str.head(1).str.len_bytes(),
    )


def _ref_info(refs: pl.Expr) -> pl.Expr:
    """Apply :func:`_ref_rules` once per distinct acceptable answer (they repeat across rows)."""
    distinct = refs.unique(maintain_order=True)  # the same order on both sides of the mapping
    return refs.replace_strict(distinct, _ref_rules(distinct), default=None)


_RULES: Final = ("digit_first", "minus_first", "dot_first", "digit_last")


def _match_stages(base: pl.Expr) -> pl.Expr:
    """Add ``found``, ``usable`` and ``label`` to a struct with ``outcome`` and ``info``.

    A literal search over every row; then, on the rows with an occurrence alone, the boundary
    rules on the two characters around the first one (:func:`_check_occurrence`), and, on the
    rows where it breaks a rule, a second search (:func:`_rescan`).
    """
    info = pl.field("info")

    def rule(name: str) -> pl.Expr:
        return info.struct.field(name).fill_null(value=False)

    searched = pl.when(rule("usable") & ~rule("label")).then(pl.field("outcome"))
    staged = base.struct.with_fields(
        plain=contains_literal(searched, info.struct.field("ref")).fill_null(value=False),
        usable=rule("usable"),
        label=rule("label"),
    )
    found = on_rows(
        pl.field("plain"),
        {
            "outcome": pl.field("outcome"),
            "ref": info.struct.field("ref"),
            "first_bytes": info.struct.field("first_bytes"),
            **{name: rule(name) for name in _RULES},
        },
        _check_occurrence(),
        otherwise=_none_found,
        dtype=pl.Boolean(),
    )
    return staged.struct.with_fields(found=found)


def _check_occurrence() -> pl.Expr:
    """Check the boundary rules around the first occurrence, and search again where it fails.

    It reads ``outcome``, ``ref``, ``first_bytes`` and the four rules of ``ref``, on rows where
    ``ref`` occurs in ``outcome``. Each value is a struct field, computed once.
    """
    position = pl.field("position")
    raw = pl.field("outcome").cast(pl.Binary)  # find gives bytes; cut at character boundaries
    staged = pl.struct("outcome", "ref", "first_bytes", *_RULES).struct.with_fields(
        position=find_literal(pl.field("outcome"), pl.field("ref"))
    )
    after = raw.bin.slice(position + pl.field("ref").str.len_bytes())
    staged = staged.struct.with_fields(  # a field each: the four rules below read them
        before=raw.bin.head(position).cast(pl.String).str.tail(2),
        after=after.cast(pl.String).str.head(2),
    )
    before, after = pl.field("before"), pl.field("after")
    broken = (
        (pl.field("digit_first") & before.str.contains(_BAD_BEFORE_DIGIT))
        | (pl.field("minus_first") & before.str.contains(_BAD_BEFORE_MINUS))
        | (pl.field("dot_first") & before.str.contains(_BAD_BEFORE_DOT))
        | (pl.field("digit_last") & after.str.contains(_BAD_AFTER_DIGIT))
    ).fill_null(value=False)
    staged = staged.struct.with_fields(broken=broken)
    rescanned = on_rows(
        pl.field("broken"),
        {
            "outcome": pl.field("outcome"),
            "ref": pl.field("ref"),
            "after": position + pl.field("first_bytes"),
        },
        _rescan(),
        otherwise=_none_found,
        dtype=pl.Boolean(),
    )
    return staged.struct.with_fields(found=~pl.field("broken") | rescanned).struct.field("found")


def _rescan() -> pl.Expr:
    """Search again, on the rows whose first occurrence broke a rule (about one in ten).

    It reads ``outcome``, ``ref`` and ``after`` (the byte offset just past the first character
    of the first occurrence). Only the rows with another occurrence after the first (overlapping
    ones too; a few in ten thousand) are marked and searched for the needle, which finds any
    occurrence that keeps the rules: marking costs several regex passes.
    """
    later = pl.col("outcome").cast(pl.Binary).bin.slice(pl.col("after")).cast(pl.String)
    first, second = needles(pl.col("ref"))
    marked = mark(pl.col("outcome"))
    hit = contains_literal(marked, first) | contains_literal(marked, second).fill_null(value=False)
    return on_rows(
        contains_literal(later, pl.col("ref")),
        {"outcome": pl.col("outcome"), "ref": pl.col("ref")},
        hit.fill_null(value=False),
        otherwise=_none_found,
        dtype=pl.Boolean(),
    )


def _none_found(frame: pl.DataFrame) -> pl.Series:
    return pl.zeros(frame.height, dtype=pl.Boolean, eager=True)


#: The flags one item of a list gives its row, as bits: any item with the flag sets it.
_ITEM_FLAGS: Final = {"found": 1, "usable": 2, "label": 4}


def _match_unrolled(row: pl.Expr, width: int, *, explain: bool = False) -> pl.Expr:
    """Match a list of at most ``width`` acceptable answers row by row (streams: no explode).

    Each item is matched by its own expression on the row (none nests in another, which keeps
    planning linear in ``width``) and packs its flags into bits, OR-ed across the items. With
    ``explain``, each item is a field of the row (computed once) that also gives its
    explanations, and the first item's that has one is the row's.
    """
    codes, items = [], {}
    for i in range(width):
        given = pl.field("refs").list.get(i, null_on_oob=True)
        item = pl.struct(
            outcome=pl.field("outcome"),
            info=_ref_rules(given),
            **({"refs": given} if explain else {}),
        )
        code = sum(
            (pl.field(flag).cast(pl.Int8) * bit for flag, bit in _ITEM_FLAGS.items()),
            start=pl.lit(0, dtype=pl.Int8),
        )
        staged = _match_stages(item).struct.with_fields(code=code)
        if not explain:
            codes.append(staged.struct.field("code"))
            continue
        items[f"__item{i}"] = _explained(staged)
        codes.append(pl.field(f"__item{i}").struct.field("code"))
    if items:
        row = row.struct.with_fields(**items)
    either = functools.reduce(operator.or_, codes, pl.lit(0, dtype=pl.Int8))  # bitwise
    row = row.struct.with_fields(codes=either)
    row = row.struct.with_fields(
        **{flag: (pl.field("codes") & bit) > 0 for flag, bit in _ITEM_FLAGS.items()}
    )
    if not explain:
        return row
    first = {
        name: pl.coalesce([pl.field(item).struct.field(name) for item in items])
        if items
        else _NULL_TEXT
        for name in EXPLAIN_COLUMNS
    }
    return row.struct.with_fields(**first)


def _match_one(row: pl.Expr, *, explain: bool = False, json_text: bool = False) -> pl.Expr:
    """Match one acceptable answer per row, row by row: the row struct is the item.

    ``json_text``: the acceptable answers are text, so a row's may be a JSON list
    (:func:`_json_rows` matches those rows' items).
    """
    row = _match_stages(row.struct.with_fields(info=_ref_rules(pl.field("refs"))))
    return _after_match_one(row, explain=explain, json_text=json_text)


def _after_match_one(row: pl.Expr, *, explain: bool, json_text: bool) -> pl.Expr:
    """Add the explanations and the JSON-list rows to a row matched against one answer."""
    if explain:
        row = _explained(row)
    if json_text:
        row = _json_rows(row, explain=explain)
    return row


def check_explain(explain: object) -> None:
    """Raise a TypeError unless ``explain`` is a bool."""
    if not isinstance(explain, bool):
        msg = f"`explain` must be True or False, got {type(explain).__name__}: {explain!r}"
        raise TypeError(msg)


# --------------------------------------------------------------------------------------------
# Explanations (explain=True) and JSON-list rows
# --------------------------------------------------------------------------------------------


def _explained(item: pl.Expr) -> pl.Expr:
    """Add ``matched`` and ``near_miss`` to a matched item (fields ``refs``, ``plain``, ``found``).

    ``matched`` is the acceptable answer as given where it was found; ``near_miss`` is it where
    its folded text occurs in the folded answer (``plain``) but no occurrence keeps the boundary
    rules of :func:`_check_occurrence` (the whole-number rules). Any rule that rejects an
    occurrence there shows here the same way: the whole-word rule of ``whole_words=True``
    belongs in that check, and then needs nothing here.
    """
    given = pl.field("refs")
    return item.struct.with_fields(
        matched=pl.when(pl.field("found")).then(given),
        near_miss=pl.when(pl.field("plain") & ~pl.field("found")).then(given),
    )


#: The bit of a JSON-list row's code that says the row's acceptable answer is a JSON list (the
#: other bits are _ITEM_FLAGS).
_JSON_BIT: Final = 8


def _json_rows(row: pl.Expr, *, explain: bool) -> pl.Expr:
    """Match the items of JSON-list acceptable answers, on those rows only (:func:`on_rows`).

    ``row`` was matched against its acceptable answer as one text. Rows whose acceptable answer
    holds no "[" (one literal search) are left as they are; on the others,
    :func:`json_list_refs` reads the list and :func:`_match_any` matches its items, and where
    it is a list its flags (and explanations) replace the row's.
    """
    columns = {"outcome": pl.field("outcome"), "refs": pl.field("refs")}
    listed = pl.struct(outcome=pl.col("outcome"), refs=json_list_refs(pl.col("refs")))
    listed = listed.struct.with_fields(__json=pl.field("refs").is_not_null())
    matched = _match_any(listed, explain=explain)
    flags = {**_ITEM_FLAGS, "__json": _JSON_BIT}
    code = sum(
        (pl.field(flag).cast(pl.Int8) * bit for flag, bit in flags.items()),
        start=pl.lit(0, dtype=pl.Int8),
    )
    codes = on_rows(
        pl.field("refs").str.contains("[", literal=True),
        columns,
        matched.struct.with_fields(__code=code).struct.field("__code"),
        otherwise=_no_code,
        dtype=pl.Int8(),
    )
    row = row.struct.with_fields(__json=codes)
    is_json = (pl.field("__json") & _JSON_BIT) > 0
    row = row.struct.with_fields(
        **{
            flag: pl.when(is_json).then((pl.field("__json") & bit) > 0).otherwise(pl.field(flag))
            for flag, bit in _ITEM_FLAGS.items()
        }
    )
    if not explain:
        return row
    texts = {
        name: on_rows(
            is_json,
            columns,
            matched.struct.field(name),
            otherwise=_no_text,
            dtype=pl.String(),
        )
        for name in EXPLAIN_COLUMNS
    }
    return row.struct.with_fields(
        **{
            name: pl.when(is_json).then(text).otherwise(pl.field(name))
            for name, text in texts.items()
        }
    )


def _no_code(frame: pl.DataFrame) -> pl.Series:
    return pl.zeros(frame.height, dtype=pl.Int8, eager=True)


def _no_text(frame: pl.DataFrame) -> pl.Series:
    return pl.repeat(None, frame.height, dtype=pl.String, eager=True)


def _explanation(name: str) -> pl.Expr:
    """Return the output ``matched`` or ``near_miss``.

    Both are null for unanswerable items, and ``near_miss`` is null where an answer was found.
    """
    unanswerable = pl.field("label")
    if name == "near_miss":
        unanswerable = unanswerable | pl.field("matched").is_not_null()
    return pl.when(~unanswerable).then(pl.field(name))


def _match_any(row: pl.Expr, *, explain: bool = False) -> pl.Expr:
    """Match a list of acceptable answers per row: one item per (row, acceptable answer).

    Every row explodes to at least one item (a null for an empty or null list), so the items of
    row i end at ``ends[i]``; the running count of each flag at the row ends, less the one at the
    previous row's end, says whether any item of the row has it. With ``explain``, each item
    also carries the first explanation of its row from the row's first item on (a backward fill
    read at the row's first item, carried forward to its last), read at the row ends too.
    """
    row = row.struct.with_fields(
        counts=pl.field("refs").list.len().fill_null(0).cast(pl.Int64).clip(lower_bound=1)
    )
    rows = pl.int_range(pl.len(), dtype=pl.Int64).repeat_by(pl.field("counts")).explode()
    refs = pl.field("refs").explode(empty_as_null=True, keep_nulls=True)
    given = {"refs": refs, "__row": rows} if explain else {}
    items = _match_stages(
        pl.struct(outcome=pl.field("outcome").gather(rows), info=_ref_info(refs), **given)
    )
    flags: tuple[str, ...] = ("found", "usable", "label")
    if explain:
        items = _explained(items)
        start = (pl.field("__row") != pl.field("__row").shift(1)).fill_null(value=True)
        firsts = {
            name: pl.when(start).then(pl.field(name).backward_fill()).forward_fill()
            for name in EXPLAIN_COLUMNS
        }
        flags = (*flags, *EXPLAIN_COLUMNS)
        items = items.struct.with_fields(
            **{f"__first_{name}": first for name, first in firsts.items()}
        )
    running = items.struct.with_fields(
        **{flag: pl.field(flag).is_not_null().cast(pl.Int64).cum_sum() for flag in flags[3:]},
        **{flag: pl.field(flag).cast(pl.Int64).cum_sum() for flag in flags[:3]},
    )
    row = row.struct.with_fields(running=running.gather(pl.field("counts").cum_sum() - 1))

    def any_item(flag: str) -> pl.Expr:
        total = pl.field("running").struct.field(flag)
        return (total - total.shift(1, fill_value=0)) > 0

    row = row.struct.with_fields(**{flag: any_item(flag) for flag in flags})
    if not explain:
        return row
    return row.struct.with_fields(
        **{
            name: pl.when(pl.field(name)).then(pl.field("running").struct.field(f"__first_{name}"))
            for name in EXPLAIN_COLUMNS
        }
    )


# --------------------------------------------------------------------------------------------
# answer_contains
# --------------------------------------------------------------------------------------------


def _resolve_not_found(not_found: NotFound, outcome: pl.Expr, schema: Schema | None) -> pl.Expr:
    if not_found is None:
        return not_found_in_folded(outcome, phrase_pattern(None))
    if isinstance(not_found, str):
        if schema is not None:
            check_column(schema, not_found, "not_found")
            dtype = schema[not_found]
            if dtype not in (pl.Boolean, pl.Null):
                raise dtype_error(
                    "not_found",
                    not_found,
                    dtype,
                    "a Boolean column (or pass a list of phrases: not_found=['...'])",
                )
        return pl.col(not_found)
    if isinstance(not_found, pl.Expr):
        return not_found
    if isinstance(not_found, Sequence):
        return not_found_in_folded(outcome, phrase_pattern(not_found))
    msg = (
        "`not_found` must be a Boolean column name, a polars expression, or a list of regex "
        f"phrases; got {type(not_found).__name__}: {not_found!r}"
    )
    raise TypeError(msg)


def answer_contains(
    answer: IntoExpr = "answer",
    refs: IntoExpr = "refs",
    *,
    partial: IntoExpr | None = None,
    notes: IntoExpr | None = None,
    trace: IntoExpr | None = None,
    status: IntoExpr | None = None,
    failure_kind: IntoExpr | None = None,
    not_found: NotFound = None,
    explain: bool = False,
    prefix: str = "",
    schema: Schema | None = None,
) -> pl.Expr:
    r"""Score answers against acceptable answers, with numbers matched whole.

    Returns one struct expression with the fields ``correct`` (Boolean, never null),
    ``failure_kind`` (String, null when correct) and ``outcome`` (the folded answer), each
    named ``prefix + name``. The frame method ``df.grade.answer_contains`` adds the same three
    columns to the frame; it also reads struct output records and checks every column first, and
    it is the fast path on large frames (it runs the same stages one at a time; as one
    expression, Polars evaluates a struct again for each stage that is not elementwise, which
    costs most with lists of acceptable answers).

    Parameters
    ----------
    answer
        The answer: a String column, or (with ``schema``, as the frame methods pass) a struct
        column holding the output record (fields ``answer``, ``text``, ``partial``, ``notes``,
        ``trace``, ``status``, ``failure_kind``).
    refs
        The acceptable answers: String, a number, or a List of them (any one is right).
        ``NOT_IN_DOCUMENT`` marks an unanswerable item; blank ones are ignored.
    partial, notes, trace, status, failure_kind
        Flat columns that win over the struct fields of the same name.
    not_found
        Who decides that an answer reports "not in the document": a Boolean column name or
        expression, or a list of regex phrases replacing :data:`DEFAULT_NOT_FOUND_PHRASES`.
    explain
        Also add ``matched`` (String: the first acceptable answer found, as given) and
        ``near_miss`` (String: an acceptable answer whose folded text occurs in the answer only
        where a whole-number rule rejects it, such as "45.2" in "It is 145.2 m."); both null
        for unanswerable items, and ``near_miss`` null where an answer was found. Off by
        default, at no cost.
    prefix
        Put before each output name.
    schema
        The frame's schema. Without it, ``answer`` is read as String and ``refs`` as String or
        List(String); the frame methods always pass it.

    Returns
    -------
    pl.Expr
        A struct expression named ``prefix + "answer_contains"``.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "answer": ["It made 12,400 units.", "About 145.2 m", "NOT_IN_DOCUMENT", None],
    ...         "refs": ["12400", "45.2", "NOT_IN_DOCUMENT", "7"],
    ...     }
    ... )
    >>> df.select(gf.answer_contains("answer", "refs")).unnest("answer_contains")
    shape: (4, 3)
    ┌─────────┬───────────────┬──────────────────────┐
    │ correct ┆ failure_kind  ┆ outcome              │
    │ ---     ┆ ---           ┆ ---                  │
    │ bool    ┆ str           ┆ str                  │
    ╞═════════╪═══════════════╪══════════════════════╡
    │ true    ┆ null          ┆ it made 12400 units. │
    │ false   ┆ wrong         ┆ about 145.2 m        │
    │ true    ┆ null          ┆ not_in_document      │
    │ false   ┆ parse_failure ┆ null                 │
    └─────────┴───────────────┴──────────────────────┘
    """
    given = {
        "partial": partial,
        "notes": notes,
        "trace": trace,
        "status": status,
        "failure_kind": failure_kind,
        "not_found": not_found,
    }
    check_explain(explain)
    if schema is None:
        return _deferred(answer, refs, prefix=prefix, explain=explain, **given)
    plan = _plan(answer, refs, prefix=prefix, schema=schema, explain=explain, **given)  # type: ignore[arg-type]
    stages = plan.base.struct.with_fields(**plan.folding)
    stages = (
        _match_any(stages, explain=explain)
        if plan.listed
        else _match_one(stages, explain=explain, json_text=plan.json_text)
    )
    for stage in plan.verdict:
        stages = stages.struct.with_fields(**stage)
    return (
        stages.struct.with_fields(__result=plan.result)
        .struct.field("__result")
        .alias(prefix + "answer_contains")
    )


def _deferred(
    answer: IntoExpr, refs: IntoExpr, *, prefix: str, explain: bool, **flat: object
) -> pl.Expr:
    """Grade when the data arrives, knowing its dtypes (the expression form without a schema).

    One call over whole columns, not rows: the inputs become a frame and the frame method runs
    on it, so struct output records and numeric acceptable answers are read as on a frame.
    """
    check_prefix(prefix)
    arguments = {"answer": answer, "refs": refs, **flat}
    if not isinstance(flat.get("not_found"), str | pl.Expr):
        arguments.pop("not_found", None)  # phrases or None: not a column
    columns: dict[str, pl.Expr] = {}
    names: dict[str, str] = {}
    for argument, value in arguments.items():
        if value is None:
            continue
        expr = to_expr(value, argument)
        name = value if isinstance(value, str) else f"__gradeframe_{argument}__"
        columns[name] = expr.alias(name)
        names[argument] = name
    order = list(columns)

    def run(series: Sequence[pl.Series]) -> pl.Series:
        # Named by position: in group_by().agg() and over() Polars hands the batches over
        # without their names (as column_0, column_1, ...).
        frame = pl.DataFrame([s.alias(name) for s, name in zip(series, order, strict=True)])
        graded = with_answer_contains(
            frame,
            **{**flat, **names, "prefix": prefix, "explain": explain},  # type: ignore[arg-type]
        )
        return graded.select(
            pl.struct(prefix + name for name in output_columns(explain=explain)).alias(
                prefix + "answer_contains"
            )
        ).to_series()

    dtype = pl.Struct(
        {
            prefix + name: pl.Boolean if name == "correct" else pl.String
            for name in output_columns(explain=explain)
        }
    )
    return pl.map_batches(
        [columns[n] for n in order], run, return_dtype=dtype, is_elementwise=True
    ).alias(prefix + "answer_contains")


@dataclass(frozen=True)
class _Plan:
    """answer_contains as stages over one struct: run as one expression or stage by stage."""

    base: pl.Expr  # the struct of inputs: text, refs, partial, budget_notes, ...
    refs: pl.Expr  # the acceptable answers, as String or List(String)
    folding: dict[str, pl.Expr]  # adds outcome
    listed: bool  # refs is a list of acceptable answers (else one per row)
    json_text: bool  # refs is text, one per row: a row's may be a JSON list
    explain: bool  # add matched and near_miss
    verdict: tuple[dict[str, pl.Expr], ...]  # after matching: not_found, correct, failure_kind
    result: pl.Expr  # the output struct, from the fields


def _plan(
    answer: IntoExpr,
    refs: IntoExpr,
    *,
    partial: IntoExpr | None,
    notes: IntoExpr | None,
    trace: IntoExpr | None,
    status: IntoExpr | None,
    failure_kind: IntoExpr | None,
    not_found: NotFound,
    prefix: str,
    schema: Schema | None,
    explain: bool = False,
) -> _Plan:
    check_prefix(prefix)
    record = _resolve_record(
        answer,
        {
            "partial": partial,
            "notes": notes,
            "trace": trace,
            "status": status,
            "failure_kind": failure_kind,
        },
        schema,
    )
    ref_expr, listed, json_text = _resolve_refs(refs, schema)
    if isinstance(not_found, str | pl.Expr):
        judge = {"judged": _resolve_not_found(not_found, pl.field("outcome"), schema)}
        reports_not_found = pl.field("judged").fill_null(value=False)
    else:
        # The detector runs only where no acceptable answer was found (elsewhere on "").
        unfound = pl.when(pl.field("found")).then(pl.lit("")).otherwise(pl.field("outcome"))
        reports_not_found = _resolve_not_found(not_found, unfound, schema).fill_null(value=False)
        judge = {}

    status_field = pl.field("status")
    error = (status_field == "error").fill_null(value=False)
    refusal = pl.field("trace_refusal") | (status_field == "refused").fill_null(value=False)
    budget_stop = pl.field("partial") & pl.field("budget_notes")
    outcome = pl.field("outcome")
    parse_failure = (outcome.is_null() | (outcome == "")).fill_null(value=True)
    correct = (
        pl.field("usable")
        & pl.field("carried").is_null()
        & ~error
        & ~parse_failure
        & (
            pl.field("found")
            | (pl.field("label") & pl.field("not_found") & ~budget_stop & ~refusal)
        )
    )
    kind = kinds.failure_chain(
        correct=pl.field("correct"),
        no_reference=~pl.field("usable"),
        carried=pl.field("carried"),
        error=error,
        budget_stop=budget_stop,
        refusal=refusal,
        parse_failure=parse_failure,
        not_in_document=~pl.field("label") & pl.field("not_found"),
    )
    base = pl.struct(
        text=record.text,
        refs=ref_expr,
        partial=record.partial,
        budget_notes=record.budget_notes,
        trace_refusal=record.trace_refusal,
        status=record.status,
        carried=record.carried,
        **judge,
    )
    return _Plan(
        base=base,
        refs=ref_expr,
        folding={"outcome": fold(pl.field("text"))},
        listed=listed,
        json_text=json_text,
        explain=explain,
        verdict=(
            {"not_found": reports_not_found},
            {"correct": correct},
            {"failure_kind": kind},
        ),
        result=pl.struct(
            pl.field("correct").alias(prefix + "correct"),
            pl.field("failure_kind").alias(prefix + "failure_kind"),
            pl.field("outcome").alias(prefix + "outcome"),
            *(_explanation(name).alias(prefix + name) for name in EXPLAIN_COLUMNS if explain),
        ),
    )


def with_answer_contains(
    frame: Frame,
    answer: IntoExpr = "answer",
    refs: IntoExpr = "refs",
    *,
    partial: IntoExpr | None = None,
    notes: IntoExpr | None = None,
    trace: IntoExpr | None = None,
    status: IntoExpr | None = None,
    failure_kind: IntoExpr | None = None,
    not_found: NotFound = None,
    explain: bool = False,
    prefix: str = "",
) -> Frame:
    """Add ``correct``, ``failure_kind`` and ``outcome`` to a DataFrame or LazyFrame.

    Same rows, same order, input columns untouched; a LazyFrame stays lazy. Columns and dtypes
    are checked now, not at ``collect()``. See :func:`answer_contains` for the parameters.
    """
    check_prefix(prefix)
    check_explain(explain)
    names = [prefix + name for name in output_columns(explain=explain)]
    check_output_names(frame_schema(frame), names)
    # Expressions become temporary columns first, so that their dtypes are known and checked
    # now, like those of named columns, instead of failing deep inside Polars at collect().
    given = {
        "answer": answer,
        "refs": refs,
        "partial": partial,
        "notes": notes,
        "trace": trace,
        "status": status,
        "failure_kind": failure_kind,
        "not_found": not_found,
    }
    temporary = {
        f"__gradeframe_{argument}__": value.alias(f"__gradeframe_{argument}__")
        for argument, value in given.items()
        if isinstance(value, pl.Expr)
    }
    named = {
        argument: f"__gradeframe_{argument}__" if isinstance(value, pl.Expr) else value
        for argument, value in given.items()
    }
    staged = frame.with_columns(*temporary.values()) if temporary else frame
    plan = _plan(**named, prefix=prefix, schema=frame_schema(staged), explain=explain)  # type: ignore[arg-type]
    state = "__gradeframe_answer_contains__"
    if isinstance(staged, pl.LazyFrame):
        width = _list_width(staged, plan) if plan.listed else 0
        if width <= MAX_UNROLLED_REFS:
            row = plan.base.struct.with_fields(**plan.folding)
            row = (
                _match_unrolled(row, width, explain=explain)
                if plan.listed
                else _match_one(row, explain=explain, json_text=plan.json_text)
            )
            for fields in plan.verdict:
                row = row.struct.with_fields(**fields)
            row = row.struct.with_fields(__result=plan.result).struct.field("__result")
            return (
                staged.with_columns(row.alias(state))
                .with_columns(pl.col(state).struct.unnest())
                .drop(state, *temporary)
            )

    # A DataFrame is graded stage by stage, each stage kept as a column: a stage that is not
    # elementwise (the distinct acceptable answers, the explode of a list) would otherwise make
    # Polars evaluate the whole struct before it again. Run lazily, collected once: fewer passes
    # over the data, and faster than stage by stage eagerly.
    lazy = staged.lazy()

    def stage(frame: pl.LazyFrame, fields: dict[str, pl.Expr]) -> pl.LazyFrame:
        return frame.with_columns(pl.col(state).struct.with_fields(**fields))

    lazy = stage(lazy.with_columns(plan.base.alias(state)), plan.folding)
    if plan.listed:
        lazy = lazy.with_columns(_match_any(pl.col(state), explain=explain))
    else:
        lazy = stage(lazy, {"info": _ref_info(pl.field("refs"))})
        lazy = lazy.with_columns(_match_stages(pl.col(state)))
        if explain or plan.json_text:
            matched = _after_match_one(pl.col(state), explain=explain, json_text=plan.json_text)
            lazy = lazy.with_columns(matched)
    for fields in plan.verdict:
        lazy = stage(lazy, fields)
    lazy = (
        lazy.with_columns(pl.col(state).struct.with_fields(__result=plan.result))
        .with_columns(pl.col(state).struct.field("__result").struct.unnest())
        .drop(state, *temporary)
    )
    return lazy.collect() if isinstance(staged, pl.DataFrame) else lazy


#: On a LazyFrame, lists of up to this many acceptable answers are matched row by row, so that
#: the query streams; longer lists are exploded (fast, but the query no longer streams).
MAX_UNROLLED_REFS: Final = 16


def _list_width(frame: pl.LazyFrame, plan: _Plan) -> int:
    """Return the longest list of acceptable answers (one cheap query of that column)."""
    longest = frame.select(plan.refs.list.len().max()).collect().item()
    return int(longest or 0)
