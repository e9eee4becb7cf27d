"""What the command line's modules share: formats, flags, errors in the command line's words."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import polars as pl

from gradeframe._inputs import check_column as _check_column
from gradeframe._inputs import struct_fields

#: Extensions and the format each names.
FORMATS: Final = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".csv": "csv",
    ".jsonl": "ndjson",
    ".ndjson": "ndjson",
    ".json": "json",
}

#: Rows scored at a time; progress is reported between chunks.
CHUNK_ROWS: Final = 50_000

#: The exit status of a usage or input error.
EXIT_ERROR: Final = 2

#: The columns answer_contains adds (before ``--prefix``).
OUTPUT_COLUMNS: Final = ("correct", "failure_kind", "outcome")

#: Record fields a CSV reader rebuilds by name: Boolean, or JSON text.
BOOLEAN_FIELDS: Final = frozenset({"partial"})
JSON_FIELDS: Final = frozenset({"notes", "trace"})

#: The Python argument behind each flag, so that errors name the flag the user typed.
FLAGS: Final = {
    "answer": "--answer",
    "refs": "--refs",
    "partial": "--partial",
    "notes": "--notes",
    "trace": "--trace",
    "status": "--status",
    "failure_kind": "--failure-kind",
    "not_found": "--not-found",
    "phrases": "--not-found",
    "refusal": "--refusals",
    "whole_words": "--whole-words",
    "prefix": "--prefix",
    "by": "--by",
    "cluster": "--cluster",
}


class CliError(Exception):
    """An error shown to the user as one line, with exit status 2."""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def in_cli_words(message: str) -> str:
    """Rewrite a library error in the command line's words (``--answer``, not ``answer=``).

    Examples
    --------
    >>> in_cli_words("`answer='respons'`: the frame has no column 'respons'.")
    "--answer respons: the frame has no column 'respons'."
    >>> in_cli_words("`failure_kind`: column 'k' has dtype i64; expected text.")
    "`--failure-kind`: column 'k' has dtype i64; expected text."
    """

    def with_value(match: re.Match[str]) -> str:
        flag = FLAGS[match.group(1)]
        value = match.group(2)
        if value[:1] in "'\"" and value[-1:] == value[:1]:
            value = value[1:-1]
        return f"{flag} {value}"

    names = "|".join(sorted(FLAGS, key=len, reverse=True))
    message = re.sub(rf"`({names})=([^`]+)`", with_value, message)
    message = re.sub(rf"`({names})(?:\[\d+\])?=?`", lambda m: f"`{FLAGS[m.group(1)]}`", message)
    return re.sub(r"Pass `--prefix` \(for example prefix='(\w+)'\)", r"Pass --prefix \1", message)


# --------------------------------------------------------------------------------------------
# Columns
# --------------------------------------------------------------------------------------------


def check_column(schema: pl.Schema, name: str, flag: str) -> None:
    """Raise naming the flag as typed (``--by modle``) when the input has no such column."""
    try:
        _check_column(schema, name, "__flag__")
    except pl.exceptions.ColumnNotFoundError as exc:
        message = str(exc).replace(f"`__flag__={name!r}`", f"{flag} {name}")
        raise CliError(message.replace("the frame has", "the input has")) from None


def column_or_field(schema: pl.Schema, name: str, flag: str) -> str | pl.Expr:
    """Resolve ``--answer output.content``: a column named exactly so wins, else a struct field."""
    if name in schema:
        return name
    parts = name.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        head = ".".join(parts[:cut])
        if head not in schema:
            continue
        expr, dtype, path = pl.col(head), schema[head], head
        for part in parts[cut:]:
            fields = struct_fields(dtype)
            if part not in fields:
                what = (
                    f"its fields are: {', '.join(fields)}"
                    if fields
                    else f"it is not a struct (dtype {dtype})"
                )
                msg = f"{flag} {name}: column {path!r} has no field {part!r}; {what}"
                raise CliError(msg)
            expr, dtype, path = expr.struct.field(part), fields[part], f"{path}.{part}"
        return expr.alias(name)
    check_column(schema, name, flag)
    return name  # pragma: no cover - check_column raised


def check_record(frame: pl.DataFrame, answer: str | pl.Expr, name: str) -> None:
    """Refuse a struct ``--answer`` with neither an ``answer`` nor a ``text`` field."""
    dtype = frame.lazy().select(answer).collect_schema().dtypes()[0]
    fields = struct_fields(dtype)
    if fields and "answer" not in fields and "text" not in fields:
        text_fields = [f for f, d in fields.items() if d == pl.String] or list(fields)
        what = "column" if isinstance(answer, str) else "field"
        msg = (
            f"--answer {name}: the struct {what} {name!r} has no 'answer' or 'text' field (its "
            f"fields are: {', '.join(fields)}); pick the field that holds the answer, "
            f"for example --answer {name}.{text_fields[0]}"
        )
        raise CliError(msg)


def _group_by(values: list[str] | None) -> list[str]:
    names = [part.strip() for value in values or [] for part in value.split(",")]
    return [name for name in names if name]


def _format_of(path: Path, what: str) -> str:
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        known = ", ".join(FORMATS)
        msg = f"{what} {str(path)!r}: unknown extension {path.suffix!r}; use one of {known}"
        raise CliError(msg)
    return fmt
