"""What every log reader shares: the column schema, the output record, errors and file access.

Most readers parse their tool's JSON into one Python dict per graded attempt (the tools write
nested, variably typed JSON that no columnar reader takes as it is) and :func:`build_frame` turns
the rows into one Polars frame; the inspect reader, whose logs grow largest, parses with Polars
and casts with :func:`conform`. Either way every frame has the common dtypes, so frames of
different tools concatenate.
"""

from __future__ import annotations

import json
import os
import struct
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeAlias

import polars as pl

PathLike: TypeAlias = str | os.PathLike[str]

#: One step of a run: what it was and how it finished.
TRACE_STEP = pl.Struct({"step": pl.String, "finish_reason": pl.String})

#: The output record, in the vocabulary ``answer_contains`` reads from a struct column.
OUTPUT = pl.Struct(
    {
        "answer": pl.String,
        "partial": pl.Boolean,
        "notes": pl.List(pl.String),
        "trace": pl.List(TRACE_STEP),
        "status": pl.String,
    }
)

#: The columns every reader returns, in this order, with these dtypes.
IDENTITY: dict[str, pl.DataType] = {
    "tool": pl.String(),
    "log": pl.String(),
    "model": pl.String(),
    "task": pl.String(),
    "sample_id": pl.String(),
    "epoch": pl.Int64(),
    "input": pl.String(),
    "output": OUTPUT,
    "refs": pl.List(pl.String),
    "tool_score": pl.String(),
    "tool_correct": pl.Boolean(),
}

#: Columns a reader adds where its tool records them.
MEASURES: dict[str, pl.DataType] = {
    "input_tokens": pl.Int64(),
    "output_tokens": pl.Int64(),
    "total_tokens": pl.Int64(),
    "seconds": pl.Float64(),
}

#: The notes that make a partial run a budget stop (see the failure kinds).
COST_CAP = "cost_cap_reached"
CALL_CAP = "call_cap_reached"

_ZIP_ZSTD = 93  # zip compression method number of Zstandard


class LogFormatError(ValueError):
    """A log file that cannot be read: truncated, corrupt, or not the format it claims to be."""


def log_error(path: PathLike, problem: str, *, line: int | None = None) -> LogFormatError:
    """Return an error naming the file (and the line) and what is wrong with it."""
    where = f"{os.fspath(path)}" + (f", line {line}" if line is not None else "")
    return LogFormatError(f"{where}: {problem}")


def _json_problem(error: json.JSONDecodeError) -> str:
    return (
        f"not valid JSON ({error.msg}: line {error.lineno}, column {error.colno}); "
        "the log is truncated or corrupt"
    )


def load_json(path: PathLike, data: bytes | str | None = None, *, member: str | None = None) -> Any:
    """Parse one JSON document, raising a :class:`LogFormatError` naming the file on failure."""
    if data is None:
        data = Path(path).read_bytes()
    try:
        return json.loads(data)
    except json.JSONDecodeError as error:
        where = f"{os.fspath(path)}[{member}]" if member else path
        raise log_error(where, _json_problem(error)) from None
    except UnicodeDecodeError as error:
        raise log_error(path, f"not UTF-8 text ({error.reason})") from None


def iter_json_lines(path: PathLike) -> Iterator[tuple[int, Any]]:
    """Yield ``(line number, parsed object)`` for each non-blank line of a JSON Lines file."""
    with Path(path).open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                yield number, json.loads(raw)
            except json.JSONDecodeError as error:
                problem = (
                    f"not valid JSON ({error.msg}: column {error.colno}); "
                    "the log is truncated or corrupt"
                )
                raise log_error(path, problem, line=number) from None
            except UnicodeDecodeError as error:
                raise log_error(path, f"not UTF-8 text ({error.reason})", line=number) from None


def first_json_line(path: PathLike) -> Any:
    """Return the first line of a file parsed as JSON, or None when it is not a JSON object."""
    try:
        with Path(path).open("rb") as handle:
            line = handle.readline(4_000_000)
        value = json.loads(line)
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def head(path: PathLike, size: int = 65_536) -> str:
    """Return the first ``size`` bytes of a file as text (for format detection)."""
    try:
        with Path(path).open("rb") as handle:
            return handle.read(size).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _zstd() -> Any:
    try:
        import zstandard
    except ImportError:  # pragma: no cover - depends on the environment
        msg = (
            "reading this inspect .eval log needs the 'zstandard' package (its members are "
            "compressed with Zstandard): pip install 'gradeframe[logs]'"
        )
        raise ImportError(msg) from None
    return zstandard


def read_zip_member(path: PathLike, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """Return the bytes of one zip member, including Zstandard members on any Python version."""
    try:
        if info.compress_type != _ZIP_ZSTD:
            return archive.read(info)
        handle = archive.fp
        assert handle is not None  # an open archive always has its file
        handle.seek(info.header_offset)
        header = handle.read(30)
        if len(header) < 30 or header[:4] != b"PK\x03\x04":
            raise zipfile.BadZipFile("bad local file header")
        name_length, extra_length = struct.unpack("<HH", header[26:30])
        handle.seek(info.header_offset + 30 + name_length + extra_length)
        raw = handle.read(info.compress_size)
        if len(raw) < info.compress_size:
            raise zipfile.BadZipFile("member cut short")
        zstandard = _zstd()
        reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
        data = reader.read()
    except ImportError:
        raise
    except Exception as error:  # zlib, zstd and zip errors all mean a corrupt member
        problem = f"cannot read member {info.filename!r} ({error}); the log is truncated or corrupt"
        raise log_error(path, problem) from None
    if len(data) != info.file_size:
        problem = f"member {info.filename!r} is cut short; the log is truncated or corrupt"
        raise log_error(path, problem)
    return data


def open_zip(path: PathLike) -> zipfile.ZipFile:
    """Open a zip archive, raising a :class:`LogFormatError` naming the file when it is broken."""
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as error:
        problem = f"not a readable zip archive ({error}); the log is truncated or corrupt"
        raise log_error(path, problem) from None


def as_text(value: Any) -> str | None:
    """Return a value as text: strings as they are, None as None, anything else as JSON."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def as_text_list(value: Any) -> list[str] | None:
    """Return acceptable answers as a list of strings (a scalar becomes a one-element list)."""
    if value is None:
        return None
    if isinstance(value, list | tuple):
        return [text for text in (as_text(v) for v in value) if text is not None]
    text = as_text(value)
    return None if text is None else [text]


def json_text(value: Any) -> str | None:
    """Return a value as compact JSON text (None stays None)."""
    if value is None:
        return None
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def output_record(
    answer: str | None,
    *,
    partial: bool | None = None,
    notes: list[str] | None = None,
    trace: list[tuple[str | None, str | None]] | None = None,
    status: str | None = None,
) -> dict[str, Any]:
    """Return the output record of one attempt as a dict for the ``output`` struct column."""
    return {
        "answer": answer,
        "partial": partial,
        "notes": notes,
        "trace": None
        if trace is None
        else [{"step": step, "finish_reason": reason} for step, reason in trace],
        "status": status,
    }


def build_frame(rows: list[dict[str, Any]], extras: Mapping[str, pl.DataType]) -> pl.DataFrame:
    """Build a reader's frame: the identity columns, the measures present, then the extras."""
    schema: dict[str, pl.DataType] = dict(IDENTITY)
    present = set().union(*(row.keys() for row in rows)) if rows else set(MEASURES)
    schema.update({name: dtype for name, dtype in MEASURES.items() if name in present})
    schema.update(extras)
    return pl.DataFrame(rows, schema=schema, orient="row" if not rows else None, strict=False)


def conform(frame: pl.DataFrame, extras: Mapping[str, pl.DataType]) -> pl.DataFrame:
    """Cast a reader's frame built with Polars to the common dtypes (the same as build_frame's)."""
    schema = {**IDENTITY, **MEASURES, **extras}
    return frame.cast({name: schema[name] for name in frame.columns if name in schema})


def concat(frames: Iterable[pl.DataFrame]) -> pl.DataFrame:
    """Stack frames of several logs or tools into one (columns missing in a frame are null)."""
    frames = list(frames)
    if len(frames) == 1:
        return frames[0]
    return pl.concat(frames, how="diagonal_relaxed")
