r"""Text a file holds that UTF-8, or Polars, cannot: lone surrogates, bytes that are not UTF-8.

Python text may hold a lone UTF-16 surrogate ("\ud800": bytes decoded with
``surrogateescape``, a JSON escape read by Python's json); UTF-8, and so Polars, cannot. The
command line reads such text as U+FFFD (JSON), names the line of a CSV that is not UTF-8, and
opens a file whose name is not UTF-8 itself (Polars cannot take such a path).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Final

import polars as pl

__all__ = [
    "SURROGATE",
    "first_bad_line",
    "holds_nul",
    "lone_surrogates_replaced",
    "read_json_lines",
    "source_of",
]


@contextmanager
def source_of(path: Path) -> Iterator[Path | BinaryIO]:
    """Give Polars the path, or an open file when the path is not UTF-8 (Polars cannot take it).

    A file name holding bytes that are not UTF-8 reaches Python as text with lone surrogates
    (``surrogateescape``); Python opens it, Polars reads the open file.
    """
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        with path.open("rb") as handle:
            yield handle
        return
    yield path


#: A lone UTF-16 surrogate in Python text.
SURROGATE: Final = re.compile("[\ud800-\udfff]")
#: A JSON escape of a lone UTF-16 surrogate: a high one not followed by a low one, or a low one
#: not after a high one (a first look: the backslash may itself be escaped; the pairs that
#: emoji are written as in ASCII JSON are not matched).
_LONE_ESCAPE: Final = re.compile(
    rb"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)
#: Every JSON escape in order (so that "\\\\" is one escape and the parity of backslashes is
#: kept): a high and a low surrogate together (a pair: kept), a lone surrogate, or another.
_ESCAPES: Final = re.compile(
    rb"(\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|(\\u[dD][89a-fA-F][0-9a-fA-F]{2})"
    rb"|\\.",
    re.DOTALL,
)


def lone_surrogates_replaced(data: bytes) -> bytes:
    r"""Replace the JSON escapes of lone UTF-16 surrogates with ``\ufffd`` (U+FFFD).

    A lone surrogate (``"\ud800"`` with no low half after it) is not text: Polars' JSON
    reader reads a high one as a NUL character and refuses a low one. Both become the
    replacement character U+FFFD, in ``.json`` and ``.jsonl`` files alike; pairs are kept.

    Examples
    --------
    >>> lone_surrogates_replaced(rb'{"a": "x\ud800 \ud83d\ude00 \\ud800"}')
    b'{"a": "x\\ufffd \\ud83d\\ude00 \\\\ud800"}'
    """

    def one(match: re.Match[bytes]) -> bytes:
        return b"\\ufffd" if match.group(2) else match.group(0)

    return _ESCAPES.sub(one, data)


def read_json_lines(path: Path, source: Path | BinaryIO) -> pl.DataFrame:
    r"""Read JSON Lines with Polars; lone surrogate escapes read as U+FFFD.

    Polars reads a lone high surrogate escape ("\ud800") as a NUL character and refuses a
    lone low one. Files without either take the fast path (Polars alone, and a look for NUL
    characters in the text it read); only a file Polars refused, or whose text holds a NUL
    where the file has a lone surrogate escape, is read into memory and its escapes replaced.
    """
    try:
        frame = pl.read_ndjson(source, infer_schema_length=None)
    except pl.exceptions.ComputeError as exc:
        if "InvalidUnicodeCodepoint" not in str(exc):
            raise
    else:
        if not holds_nul(frame) or _LONE_ESCAPE.search(path.read_bytes()) is None:
            return frame
    data = lone_surrogates_replaced(path.read_bytes())
    return pl.read_ndjson(io.BytesIO(data), infer_schema_length=None)


def holds_nul(frame: pl.DataFrame) -> bool:
    """Say whether any text of the frame, in records and lists too, holds a NUL character."""

    def found(expr: pl.Expr, dtype: pl.DataType) -> list[pl.Expr]:
        if dtype == pl.String:
            return [expr.str.contains("\x00", literal=True).any()]
        if isinstance(dtype, pl.Struct):
            return [e for f in dtype.fields for e in found(expr.struct.field(f.name), f.dtype)]
        if isinstance(dtype, pl.List):
            return found(expr.explode(), dtype.inner)
        return []

    checks = [
        e.alias(str(i))
        for i, e in enumerate(
            e for name, dtype in frame.schema.items() for e in found(pl.col(name), dtype)
        )
    ]
    return bool(checks) and any(frame.select(checks).row(0))


def first_bad_line(path: Path) -> str:
    """Say the first line of a file that is not UTF-8 (an error path: the file is read again)."""
    data = path.read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - data.rfind(b"\n", 0, exc.start)
        bad = data[exc.start : exc.end]
        return f" (line {line}, byte {column}: {bad!r} is not UTF-8; save the file as UTF-8)"
    return ""
