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
import re
import struct
import zipfile
import zlib
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
    # "grader_failure" where the tool's own grader failed (its verdict is then null), else null.
    # Every reader has it, the formats added later too (build_frame adds it from this schema).
    "tool_failure": pl.String(),
}

#: ``tool_failure`` of a row whose tool could not grade it (a judge's unreadable reply, an
#: unscored inspect score): the tool failed, not the model (``tool_correct`` is then null).
GRADER_FAILURE = "grader_failure"

#: Columns a reader adds where its tool records them.
MEASURES: dict[str, pl.DataType] = {
    "input_tokens": pl.Int64(),
    "output_tokens": pl.Int64(),
    "total_tokens": pl.Int64(),
    "cache_read_tokens": pl.Int64(),  # input tokens read from the provider's prompt cache
    "reasoning_tokens": pl.Int64(),
    "seconds": pl.Float64(),
    "cost": pl.Float64(),  # the cost the tool recorded for the model's call (its currency)
    # a grader's or judge's tokens, never added to the model's (inspect's grader role or other
    # models' usage, promptfoo's grading tokens), and the grader's name
    "grader_input_tokens": pl.Int64(),
    "grader_output_tokens": pl.Int64(),
    "grader_model": pl.String(),
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
    where = f"{os.fspath(path)}[{member}]" if member else path
    if data is None:
        data = Path(path).read_bytes()
    try:
        return json.loads(data)
    except json.JSONDecodeError as error:
        raise log_error(where, _json_problem(error)) from None
    except UnicodeDecodeError as error:
        raise log_error(where, f"not UTF-8 text ({error.reason})") from None
    except RecursionError:
        raise log_error(where, _TOO_DEEP) from None


_TOO_DEEP = "JSON nested too deeply to read (a corrupt or hostile log)"


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
            except RecursionError:
                raise log_error(path, _TOO_DEEP, line=number) from None


def first_json_line(path: PathLike) -> Any:
    """Return the first line of a file parsed as JSON, or None when it is not a JSON object.

    The whole first line is read, however long: recognising a log must not depend on how much
    of it is read.
    """
    try:
        with Path(path).open("rb") as handle:
            line = handle.readline()
        value = json.loads(line)
    except (OSError, ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def head(path: PathLike, size: int = 65_536) -> str:
    """Return the first ``size`` bytes of a file as text (for format detection)."""
    try:
        with Path(path).open("rb") as handle:
            return handle.read(size).decode("utf-8", errors="replace")
    except OSError:
        return ""


def markers_in(path: PathLike, markers: Iterable[bytes]) -> set[bytes]:
    """Return which of ``markers`` occur anywhere in a file (read in chunks, to its end).

    Recognising a log by a key that may come late (promptfoo's ``"evalId"`` after megabytes of
    results) must not depend on a prefix size.
    """
    wanted = set(markers)
    found: set[bytes] = set()
    keep = max((len(m) for m in wanted), default=1) - 1
    tail = b""
    try:
        with Path(path).open("rb") as handle:
            while found != wanted and (chunk := handle.read(1 << 20)):
                window = tail + chunk
                found.update(m for m in wanted - found if m in window)
                tail = window[-keep:] if keep else b""
    except OSError:
        return found
    return found


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


#: The default cap on the bytes decompressed from one ``.eval`` log (``max_bytes=``): 2 GiB.
MAX_BYTES = 2 * 1024**3

_CHUNK = 1 << 20  # bytes decompressed at a time


class _Window:
    """A read-only view of ``size`` bytes of a file from ``start`` (one member's data)."""

    def __init__(self, handle: Any, start: int, size: int) -> None:
        self.handle, self.position, self.left = handle, start, size

    def read(self, size: int = -1) -> bytes:
        size = self.left if size < 0 else min(size, self.left)
        self.handle.seek(self.position)
        data = self.handle.read(size)
        self.position += len(data)
        self.left -= len(data)
        return data


class ZipLog:
    """The members of a zip log (an inspect ``.eval``), read with bounded memory.

    Each member is decompressed a chunk at a time and never past the size its directory entry
    declares (a member that holds more is an error naming it), the bytes decompressed from the
    whole log are capped at ``max_bytes``, and an archive whose entries share one member's
    data, or repeat a name, is refused before anything is decompressed.
    """

    def __init__(self, path: PathLike, archive: zipfile.ZipFile, max_bytes: int | None) -> None:
        self.path, self.archive, self.max_bytes = path, archive, max_bytes
        self.read_bytes = 0
        self.infos: dict[str, zipfile.ZipInfo] = {}
        offsets: dict[int, str] = {}
        for info in archive.infolist():
            if info.filename in self.infos:
                problem = f"two members are named {info.filename!r}; the log is corrupt"
                raise log_error(path, problem)
            if info.header_offset in offsets:
                problem = (
                    f"members {offsets[info.header_offset]!r} and {info.filename!r} point at "
                    "the same data (a zip bomb, or a corrupt log)"
                )
                raise log_error(path, problem)
            offsets[info.header_offset] = info.filename
            self.infos[info.filename] = info

    def _error(self, name: str, problem: str) -> LogFormatError:
        return log_error(self.path, f"member {name!r} {problem}")

    def _open(self, info: zipfile.ZipInfo) -> Any:
        """Return a stream of the member's decompressed bytes."""
        if info.compress_type != _ZIP_ZSTD:
            return self.archive.open(info)  # zipfile stops at the declared size, checks the CRC
        handle = self.archive.fp
        assert handle is not None  # an open archive always has its file
        handle.seek(info.header_offset)
        header = handle.read(30)
        if len(header) < 30 or header[:4] != b"PK\x03\x04":
            raise zipfile.BadZipFile("bad local file header")
        name_length, extra_length = struct.unpack("<HH", header[26:30])
        local_name = handle.read(name_length)
        if local_name.decode("utf-8", errors="replace") != info.filename:
            raise zipfile.BadZipFile(f"its local header names {local_name!r}")
        start = info.header_offset + 30 + name_length + extra_length
        source = _Window(handle, start, info.compress_size)
        return _zstd().ZstdDecompressor().stream_reader(source, read_across_frames=True)

    def chunks(self, name: str) -> Iterator[bytes]:
        """Yield a member's bytes a chunk at a time, never past its declared size."""
        info = self.infos[name]
        declared = info.file_size
        if self.max_bytes is not None and self.read_bytes + declared > self.max_bytes:
            problem = (
                f"reading member {name!r} ({declared:,} bytes) would take the log past "
                f"max_bytes={self.max_bytes:,} decompressed bytes (a zip bomb, or a log "
                "larger than the limit: pass a larger max_bytes=, or None, to read it)"
            )
            raise log_error(self.path, problem)
        got, crc = 0, 0
        try:
            stream = self._open(info)
            while chunk := stream.read(min(_CHUNK, declared - got + 1)):
                got += len(chunk)
                if got > declared:
                    problem = f"holds more than the {declared:,} bytes it declares (a zip bomb)"
                    raise self._error(name, problem)
                crc = zlib.crc32(chunk, crc)
                yield chunk
        except LogFormatError:
            raise
        except ImportError:
            raise
        except Exception as error:  # zlib, zstd and zip errors all mean a corrupt member
            problem = f"cannot be read ({error}); the log is truncated or corrupt"
            raise self._error(name, problem) from None
        finally:
            self.read_bytes += got
        if got < declared:
            raise self._error(name, "is cut short; the log is truncated or corrupt")
        if info.compress_type == _ZIP_ZSTD and crc != info.CRC:
            raise self._error(name, "fails its CRC check; the log is corrupt")

    def read(self, name: str) -> bytes:
        """Return a member's bytes (for the small members: header, summaries)."""
        return b"".join(self.chunks(name))


def read_zip_member(path: PathLike, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """Return the bytes of one zip member, including Zstandard members on any Python version."""
    return ZipLog(path, archive, MAX_BYTES).read(info.filename)


def open_zip(path: PathLike) -> zipfile.ZipFile:
    """Open a zip archive, raising a :class:`LogFormatError` naming the file when it is broken."""
    try:
        return zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as error:
        problem = f"not a readable zip archive ({error}); the log is truncated or corrupt"
        raise log_error(path, problem) from None


# ---- malformed fields: every error names the file, the record and the field ----------------

#: What a reader's code raises on a field of an unexpected type or shape.
FIELD_ERRORS = (AttributeError, TypeError, KeyError, IndexError, ValueError, RecursionError)


_Trail: TypeAlias = list[tuple[str, Any]]


class _Traced(dict):  # type: ignore[type-arg]
    """A record that notes each field read from it, with its value (to name a malformed one)."""

    def __init__(self, value: dict[Any, Any], path: str, trail: _Trail, depth: int) -> None:
        super().__init__(value)
        self._path, self._trail, self._depth = path, trail, depth

    def _wrap(self, key: Any, value: Any) -> Any:
        name = f"{self._path}.{key}" if self._path else str(key)
        self._trail.append((name, value))
        return _traced(value, name, self._trail, self._depth + 1)

    def get(self, key: Any, default: Any = None) -> Any:
        return self._wrap(key, super().get(key, default))

    def __getitem__(self, key: Any) -> Any:
        return self._wrap(key, super().__getitem__(key))


class _TracedList(list):  # type: ignore[type-arg]
    def __init__(self, value: list[Any], path: str, trail: _Trail, depth: int) -> None:
        super().__init__(_traced(v, f"{path}[{i}]", trail, depth + 1) for i, v in enumerate(value))
        self._path, self._trail = path, trail

    def __getitem__(self, index: Any) -> Any:
        value = super().__getitem__(index)
        if isinstance(index, int):
            self._trail.append((f"{self._path}[{index % len(self)}]", value))
        return value

    def __iter__(self) -> Any:
        for index, value in enumerate(super().__iter__()):
            self._trail.append((f"{self._path}[{index}]", value))
            yield value


def _traced(value: Any, path: str, trail: _Trail, depth: int) -> Any:
    if depth > 50:  # deeper than any reader looks
        return value
    if isinstance(value, dict) and not isinstance(value, _Traced):
        return _Traced(value, path, trail, depth)
    if isinstance(value, list) and not isinstance(value, _TracedList):
        return _TracedList(value, path, trail, depth)
    return value


def _problem(error: BaseException) -> str:
    if isinstance(error, RecursionError):
        return "nested too deeply"
    text = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {text}"[:200]


def field_error(
    where: PathLike, what: str, function: Any, record: Any, *args: Any, error: BaseException
) -> LogFormatError:
    """Return the error for a record a reader could not read, naming the field it stopped at.

    The reader runs again on a copy of the record that notes each field read: the last one
    read before the same error is the malformed field.
    """
    trail: _Trail = []
    again: BaseException = error
    try:
        function(_traced(record, "", trail, 0), *args)
    except LogFormatError as named_error:
        return named_error
    except Exception as rerun:  # the same error again, now with the fields read noted
        again = rerun
    field = _culprit(trail, again)
    field = f" field {field!r}" if field else ""
    return log_error(where, f"{what}:{field} has an unexpected value ({_problem(error)})")


def _culprit(trail: _Trail, error: BaseException) -> str | None:
    """Return the field an error was about.

    That is the field whose value the error names (an AttributeError's object), else the last
    field read whose value has the type it names ("'int' object is not iterable"), else the
    last field read.
    """
    if not trail:
        return None
    if isinstance(error, AttributeError) and error.obj is not None:
        for name, value in reversed(trail):
            if value is error.obj:
                return name
    named = re.match(r"'(\w+)' object", str(error))
    if named:
        kinds = {"dict": dict, "list": list}
        for name, value in reversed(trail):
            kind = kinds.get(named[1])
            if type(value).__name__ == named[1] or (kind and isinstance(value, kind)):
                return name
    return trail[-1][0]


def record_row(function: Any, record: Any, *args: Any, where: PathLike, what: str) -> Any:
    """Return ``function(record, *args)``; a malformed field raises a named LogFormatError."""
    try:
        return function(record, *args)
    except LogFormatError:
        raise
    except FIELD_ERRORS as error:
        raise field_error(where, what, function, record, *args, error=error) from None


#: Where a row came from: the file (with its line) and the record, as ``record_row`` takes them.
Location: TypeAlias = tuple[PathLike, str]


def rows_frame(
    rows: list[dict[str, Any]],
    schema: Mapping[str, pl.DataType],
    *,
    where: PathLike,
    locations: list[Location] | None = None,
    fields: Mapping[str, str] | None = None,
) -> pl.DataFrame:
    """Build a frame from rows; a value of the wrong type raises naming its record and field.

    ``locations`` say where each row came from, and ``fields`` the log field behind a column
    (a column not listed is named as it is).
    """
    try:
        return pl.DataFrame(rows, schema=schema, orient="row" if not rows else None, strict=False)
    except (pl.exceptions.PolarsError, *FIELD_ERRORS) as error:
        for name, dtype in schema.items():
            for index, row in enumerate(rows):
                try:
                    pl.DataFrame([{name: row.get(name)}], schema={name: dtype}, strict=False)
                except (pl.exceptions.PolarsError, *FIELD_ERRORS):
                    value = repr(row.get(name))
                    value = value if len(value) < 60 else value[:57] + "..."
                    field = (fields or {}).get(name, name)
                    place, what = locations[index] if locations else (where, f"row {index + 1}")
                    problem = f"{what}: field {field!r} has a value of an unexpected type ({value})"
                    raise log_error(place, problem) from None
        raise log_error(where, f"cannot build its rows ({_problem(error)})") from None


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


def build_frame(
    rows: list[dict[str, Any]],
    extras: Mapping[str, pl.DataType],
    *,
    locations: list[Location] | None = None,
    fields: Mapping[str, str] | None = None,
) -> pl.DataFrame:
    """Build a reader's frame: the identity columns, the measures present, then the extras."""
    schema: dict[str, pl.DataType] = dict(IDENTITY)
    present = set().union(*(row.keys() for row in rows)) if rows else set(MEASURES)
    schema.update({name: dtype for name, dtype in MEASURES.items() if name in present})
    schema.update(extras)
    log = rows[0].get("log") if rows else None
    return rows_frame(rows, schema, where=log or "the log", locations=locations, fields=fields)


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
