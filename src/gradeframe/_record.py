"""The output record answer_contains reads: answer text, partial, notes, trace, status, kind.

Each part is an expression over the frame; flat columns passed by keyword win over the fields of
the answer struct, and a few flat columns (``partial``, ``notes``, ``trace``, ``status``) are
read by name when they are not given.

A ``status`` is read trimmed and in lower case against the vocabularies of
:mod:`gradeframe.kinds`; a value in none of them is read as a normal finish and named in a
:class:`StatusWarning` (:func:`warn_unread_statuses`), so an unknown status is never silently
ignored.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeAlias

import polars as pl

from gradeframe import kinds
from gradeframe._inputs import (
    IntoExpr,
    Schema,
    as_text,
    check_column,
    dtype_error,
    is_text,
    struct_fields,
    to_expr,
)

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
NULL_TEXT: Final = pl.lit(None, dtype=pl.String)
_FALSE: Final = pl.lit(value=False)


def read_text(expr: pl.Expr, dtype: pl.DataType | None, name: str) -> pl.Expr:
    """Answer text: a text column, or the answer/text fields of a struct; else null."""
    if dtype is None or is_text(dtype):
        return expr if dtype is None else as_text(expr, dtype)
    if dtype.is_numeric() or dtype == pl.Boolean:
        raise _number_answer_error(name, dtype)
    fields = struct_fields(dtype)
    if not fields:
        return NULL_TEXT  # lists and the like: not a string, so no answer text
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
        return NULL_TEXT
    text = pl.coalesce(parts) if len(parts) > 1 else parts[0]  # `text` when `answer` is null
    return pl.when(not_a_string).then(NULL_TEXT).otherwise(text)


def _number_answer_error(name: str, dtype: pl.DataType) -> TypeError:
    """Return the error for an answer column of numbers or booleans.

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
        return NULL_TEXT
    raise dtype_error(argument, name, dtype, "String")


def _read_carried(expr: pl.Expr, dtype: pl.DataType | None, argument: str, name: str) -> pl.Expr:
    if dtype is None or is_text(dtype):
        text = expr if dtype is None else as_text(expr, dtype)
        return pl.when(text.str.strip_chars() != "").then(text)
    if dtype == pl.Null:
        return NULL_TEXT
    raise dtype_error(argument, name, dtype, "String")


Reader: TypeAlias = Callable[[pl.Expr, pl.DataType | None, str, str], pl.Expr]

_READERS: Final[dict[str, tuple[Reader, pl.Expr]]] = {
    "partial": (_read_partial, _FALSE),
    "notes": (_read_notes, _FALSE),
    "trace": (_read_trace, _FALSE),
    "status": (_read_status, NULL_TEXT),
    "failure_kind": (_read_carried, NULL_TEXT),
}


def resolve_record(
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
        text=read_text(answer_expr, answer_dtype, answer if isinstance(answer, str) else "answer"),
        partial=parts["partial"],
        budget_notes=parts["notes"],
        trace_refusal=parts["trace"],
        status=parts["status"],
        carried=parts["failure_kind"],
    )


#: The record inputs read from a flat column of the same name when not given and not a field of
#: the answer struct. Not ``failure_kind``: that is an output column.
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
            f"not given (flat record columns are read by name): rename it, or pass {role}=... "
            "naming the column that holds it."
        )
        raise TypeError(msg) from None


# --------------------------------------------------------------------------------------------
# Status values the chain does not read
# --------------------------------------------------------------------------------------------


class StatusWarning(UserWarning):
    """A ``status`` value answer_contains does not read: the row is read as a normal finish.

    ``counts`` holds each such value and its count (most first), for a caller that adds up the
    warnings of several calls (the command line grades in chunks and says it once).
    """

    def __init__(self, message: str, counts: list[tuple[str, int]] | None = None) -> None:
        super().__init__(message)
        self.counts = list(counts or [])


def unread_statuses(frame: pl.LazyFrame, status: pl.Expr) -> list[tuple[str, int]]:
    """Return each status value that is in no vocabulary of :mod:`gradeframe.kinds`, with its count.

    ``status`` is the record's status as read (trimmed, lower case); null and blank are a
    normal finish. Most rows first, then by value. One query over the status alone.
    """
    value = pl.col("status")
    counts = (
        frame.select(status.alias("status"))
        .filter(value.is_not_null() & (value != "") & ~value.is_in(kinds.KNOWN_STATUSES))
        .group_by("status")
        .len()
        .sort(["len", "status"], descending=[True, False])
        .collect()
    )
    return [(str(name), int(count)) for name, count in counts.iter_rows()]


def unread_status_message(counts: list[tuple[str, int]]) -> str:
    """Name each unread status value and its count, as the warning and the command line say it.

    Examples
    --------
    >>> unread_status_message([("pending", 3), ("queued", 1)])
    "status values not read: 'pending' (3), 'queued' (1); each row was read as a normal finish"
    """
    listed = ", ".join(f"{value!r} ({count})" for value, count in counts)
    return f"status values not read: {listed}; each row was read as a normal finish"


def warn_unread_statuses(frame: pl.LazyFrame, status: pl.Expr) -> None:
    """Warn once (:class:`StatusWarning`) naming the status values no vocabulary reads."""
    counts = unread_statuses(frame, status)
    if counts:
        message = StatusWarning(unread_status_message(counts), counts)
        warnings.warn(message, stacklevel=_callers_level())


def _callers_level() -> int:
    """Return the ``stacklevel`` of the first frame outside gradeframe: the user's own call.

    The grading goes through a different number of gradeframe's frames on each surface (a
    method, the expression form, pandas), so a fixed level would point into gradeframe.
    """
    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame = sys._getframe(1)  # the function that warns: level 1
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame = frame.f_back
        level += 1
    return level
