"""The command line: ``gradeframe score FILE`` grades a file of answers and prints the report.

Inputs are read by extension: ``.parquet``, ``.csv``, ``.jsonl`` / ``.ndjson`` (JSON Lines, with
nested output records) and ``.json`` (an array of records, read exactly as the same records in
JSON Lines would be). ``-o OUT`` writes the graded rows, in the format its extension names. The
report (see :func:`gradeframe.report`) goes to stdout as a table; a progress bar goes to stderr
on inputs of more than one chunk of rows.

CSV cells are text: nothing is guessed, so "007", "0.10" and "42" stay as written. A ``refs``
cell that holds a JSON list (it starts with ``[``, as in ``["12400", "12,400"]``) is a list of
acceptable answers; any other cell is one. Graded rows written to CSV flatten struct columns into
``col.field`` columns (lists, and lists of structs such as ``trace``, as JSON text); reading a
CSV puts such columns back into a struct, reading the known record fields by name (``partial`` as
Boolean, ``notes`` and ``trace`` from JSON). The output columns of an earlier grading
(``correct``, ``failure_kind``, ``outcome``, with ``--prefix``) are replaced, so scoring a written
file again gives the same report.

Errors (a missing or unreadable file, a missing column, a bad cell) end with one line on stderr
naming the flag the user typed (and the row, for a bad cell) and exit status 2; no traceback.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import io
import json
import os
import re
import secrets
import shutil
import signal
import sys
import threading
import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from types import FrameType
from typing import Any, Final, TextIO

import polars as pl

from gradeframe import answer as answer_rules
from gradeframe import logs
from gradeframe._inputs import check_column as _check_column
from gradeframe._inputs import struct_fields
from gradeframe._record import BY_NAME
from gradeframe.example import example
from gradeframe.failures import failures
from gradeframe.report import report
from gradeframe.samples import consistency, pass_at_k

__all__ = ["main"]

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

#: Without ``rich``, progress lines start once scoring has run this many seconds, and come at
#: most this often.
PROGRESS_AFTER: Final = 2.0
PROGRESS_EVERY: Final = 1.0

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
# Reading
# --------------------------------------------------------------------------------------------


def _format_of(path: Path, what: str) -> str:
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        known = ", ".join(FORMATS)
        msg = f"{what} {str(path)!r}: unknown extension {path.suffix!r}; use one of {known}"
        raise CliError(msg)
    return fmt


@dataclass
class Input:
    """What ``gradeframe score`` grades: the rows, where they came from, the default grouping."""

    frame: pl.DataFrame
    source: str
    by: list[str]
    answer: str = "answer"  # the column --answer names by default
    notes: list[str] = dataclass_field(
        default_factory=list
    )  # said before the report (a run read once)
    folder: Path | None = None  # logs are shown relative to it in listings


def read_input(args: argparse.Namespace) -> Input:
    """Read what the command line names: the bundled example, or a file by its extension.

    This is the one place that turns the command line's source into rows; new kinds of input
    (another tool's logs, a folder) are added here.
    """
    if args.example:
        return Input(example(), "the bundled example", ["model"])
    path: Path = args.file
    if args.from_tool is not None or path.is_dir() or logs.detect_tool(path) is not None:
        return read_logs(
            path, args.from_tool, args.refs_var, skip_bad=getattr(args, "skip_bad_logs", False)
        )
    if args.refs_var is not None:
        msg = f"--refs-var {args.refs_var}: only promptfoo logs take it; {str(path)!r} is not one"
        raise CliError(msg)
    frame = read_frame(path, separator=args.separator, guess=args.separator is None)
    if args.escape_formulas and _format_of(path, "input") == "csv":
        frame = unescape_formulas(frame)
    if not frame.columns:
        msg = f"input {str(path)!r}: holds no records"
        raise CliError(msg)
    return Input(frame, repr(str(path)), [])


def read_logs(
    path: Path, tool: str | None, refs_var: str | None, *, skip_bad: bool = False
) -> Input:
    """Read evaluation logs (a file or a folder; ``--from`` names the tool that wrote them).

    With ``--skip-bad-logs`` a folder's logs that cannot be read are left out, each named on
    stderr, and the first line of the output says how many were skipped.
    """
    if not path.exists():
        msg = f"input {str(path)!r}: no such file or folder"
        raise CliError(msg)
    options = {"refs": refs_var} if refs_var is not None else {}
    try:
        if refs_var is not None and not path.is_dir():
            found = tool or logs.detect_tool(path)
            if found not in (None, "promptfoo"):
                msg = (
                    f"--refs-var {refs_var}: only promptfoo logs take it; "
                    f"{str(path)!r} is a {found} log"
                )
                raise CliError(msg)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", logs.SkippedLogWarning)
            warnings.simplefilter("always", logs.DuplicateRunWarning)
            frame = logs.read_log(
                path, tool=tool, errors="skip" if skip_bad else "raise", **options
            )
    except (OSError, ValueError, ImportError) as exc:
        message = _first_line(exc).replace("`tool=", "`--from ")
        raise CliError(message.replace("with no tool", "without --from")) from None
    said = (logs.DuplicateRunWarning, logs.SkippedLogWarning)  # printed below, in the CLI's words
    for warning in caught:  # any other warning goes on as it came
        if not issubclass(warning.category, said):
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
    folder = path if path.is_dir() else path.parent
    inside = os.fspath(folder).rstrip("/\\") + os.sep
    notes = [
        f"note: {str(w.message).replace(inside, '')}"
        for w in caught
        if issubclass(w.category, logs.DuplicateRunWarning)
    ]
    tools = sorted(frame.get_column("tool").unique().drop_nulls().to_list())
    source = f"{', '.join(tools)} logs in {str(path)!r}"
    for warning in caught:
        if issubclass(warning.category, logs.SkippedLogWarning):
            lines = str(warning.message).splitlines()
            print(f"gradeframe: warning: {lines[0]}", file=sys.stderr)
            print("\n".join(lines[1:]), file=sys.stderr)
            source += f" ({len(lines) - 1} unreadable log(s) skipped, named on stderr)"
    by = ["tool", "model", "task"]
    if _several_filters(frame):
        by.append("lm_eval_filter")  # one figure per filter: never two filters' verdicts pooled
    return Input(frame, source, by, answer="output", notes=notes, folder=folder)


def _several_filters(frame: pl.DataFrame) -> bool:
    """Whether an lm-eval task of the frame was scored with several filters."""
    if "lm_eval_filter" not in frame.columns:
        return False
    filters = frame.group_by("tool", "model", "task").agg(pl.col("lm_eval_filter").n_unique())
    return bool(filters.get_column("lm_eval_filter").max() > 1)


def read_frame(path: Path, *, separator: str | None = ",", guess: bool = False) -> pl.DataFrame:
    """Read a file of answers by its extension (CSV: text cells, flattened records rebuilt).

    With ``guess`` (no ``--separator`` given), a CSV whose header has no comma but another
    separator raises naming the ``--separator`` to pass: the file is not read with a guess.
    """
    fmt = _format_of(path, "input")
    if not path.exists():
        msg = f"input {str(path)!r}: no such file"
        raise CliError(msg)
    if path.is_dir():
        msg = f"input {str(path)!r}: is a directory, not a file"
        raise CliError(msg)
    separator = separator or ","
    if fmt == "csv" and guess:
        likely = likely_separator(path)
        if likely is not None:
            shown = SEPARATOR_NAMES.get(likely, repr(likely))
            msg = (
                f"input {str(path)!r}: its header line has no ',' but {likely!r}: pass "
                f"--separator {shown} to read it (the default separator is ',')"
            )
            raise CliError(msg)
    try:
        if fmt == "parquet":
            return pl.read_parquet(path)
        if fmt == "csv":
            frame = pl.read_csv(path, infer_schema=False, separator=separator)
        elif fmt == "json" and _starts_with_bracket(path):
            frame = _read_json_array(path)
        else:
            frame = pl.read_ndjson(path, infer_schema_length=None)
    except (OSError, pl.exceptions.PolarsError, ValueError) as exc:
        msg = f"input {str(path)!r} cannot be read as {fmt}: {_first_line(exc)}"
        raise CliError(msg) from None
    return rebuild_records(frame) if fmt == "csv" else frame


#: Separators a CSV header may use instead of ",", and how --separator spells them.
SEPARATOR_NAMES: Final = {";": "';'", "\t": "tab", "|": "'|'"}


def likely_separator(path: Path) -> str | None:
    r"""Return the separator a CSV's header uses when it is not a comma (None: a comma, or unsure).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> csv = Path(tempfile.mkdtemp()) / "runs.csv"
    >>> _ = csv.write_text("answer;refs\nMade 12,400 units.;12400\n")
    >>> likely_separator(csv)
    ';'
    >>> _ = csv.write_text("answer,refs\nMade 12 400 units;12400\n")
    >>> likely_separator(csv) is None
    True
    """
    with path.open("rb") as handle:
        header = handle.readline(65_536).decode("utf-8-sig", errors="replace")
    if "," in header:
        return None
    counts = {char: header.count(char) for char in SEPARATOR_NAMES}
    best = max(counts, key=lambda char: counts[char])
    return best if counts[best] else None


def _starts_with_bracket(path: Path) -> bool:
    with path.open("rb") as handle:
        head = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"[")


def _read_json_array(path: Path) -> pl.DataFrame:
    """Read a JSON array of records exactly as the same records in JSON Lines are read."""
    records = json.loads(path.read_text(encoding="utf-8-sig"))
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        msg = "expected an array of records (JSON objects)"
        raise ValueError(msg)
    if not records:
        return pl.DataFrame()
    lines = "\n".join(json.dumps(record, ensure_ascii=False) for record in records)
    return pl.read_ndjson(io.BytesIO(lines.encode()), infer_schema_length=None)


def _bad_row(values: pl.Series, check: Any) -> tuple[int, str]:
    """Find the first cell ``check`` refuses (an error path only: never while scoring)."""
    for index, value in enumerate(values):
        if value is not None and not check(value):
            return index + 1, value
    return 0, ""  # pragma: no cover - only called once Polars has refused a cell


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _cell(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "...")


def json_lists(frame: pl.DataFrame, column: str) -> pl.DataFrame:
    """Read a text column whose cells may be JSON lists: such a cell is a list, any other one item.

    The rule is :func:`gradeframe.answer.json_list_refs`, the one answer_contains applies to
    String acceptable answers on every frame: a JSON array of strings and numbers is a list;
    any other cell ("[citation needed]", "[1, 2") is one item, as written. A column without
    any such list is left as text.
    """
    if column not in frame.columns or frame.schema[column] != pl.String:
        return frame
    listed = answer_rules.json_list_refs(pl.col(column))
    if not frame.select(listed.is_not_null().any()).item():
        return frame
    parsed = pl.coalesce(listed, pl.concat_list(pl.col(column)))
    return frame.with_columns(parsed.alias(column))


def _booleans(frame: pl.DataFrame, column: str, where: str) -> pl.DataFrame:
    text = pl.col(column).str.strip_chars().str.to_lowercase()
    words = {"true": True, "false": False, "1": True, "0": False, "": None}
    known = text.is_in(list(words)) | text.is_null()
    if not frame.select(known.all()).item():
        cells = frame.get_column(column)
        row, value = _bad_row(cells, lambda v: v.strip().lower() in words)
        msg = f"{where}: row {row} holds {_cell(value)}; expected true or false"
        raise CliError(msg)
    return frame.with_columns(text.replace_strict(words, return_dtype=pl.Boolean).alias(column))


def _json_values(frame: pl.DataFrame, column: str, where: str) -> pl.DataFrame:
    """Decode a column of JSON text (a list, or a plain string kept as one item)."""
    text = pl.col(column)
    is_json = text.str.strip_chars_start().str.starts_with("[").fill_null(value=False)
    if not frame.select(is_json.any()).item():
        return frame
    if not frame.select((is_json | text.is_null()).all()).item():
        # Some cells are plain words ("cost_cap_reached"): a list of strings holds both.
        return json_lists(frame, column)
    try:
        decoded = frame.get_column(column).str.json_decode(infer_schema_length=None)
    except pl.exceptions.PolarsError:
        row, value = _bad_row(frame.get_column(column), _is_json)
        msg = f"{where}: row {row} holds {_cell(value)}, which is not JSON"
        raise CliError(msg) from None
    return frame.with_columns(decoded.alias(column))


def read_field(frame: pl.DataFrame, column: str, field: str, where: str) -> pl.DataFrame:
    """Read a text column as the record field it holds (by the field's name)."""
    if frame.schema[column] != pl.String:
        return frame
    if field in BOOLEAN_FIELDS:
        return _booleans(frame, column, where)
    if field in JSON_FIELDS:
        return _json_values(frame, column, where)
    return frame


def rebuild_records(frame: pl.DataFrame) -> pl.DataFrame:
    """Put flattened ``col.field`` CSV columns back into struct columns (the reverse of writing).

    Columns ``output.answer``, ``output.partial``, ... become one struct column ``output`` in the
    place of the first of them, unless a column ``output`` exists already. Known record fields are
    read by name: ``partial`` as Boolean, ``notes`` and ``trace`` from JSON.
    """
    groups: dict[str, list[str]] = {}
    for name in frame.columns:
        head, dot, _ = name.partition(".")
        if dot and head and head not in frame.columns:
            groups.setdefault(head, []).append(name)
    if not groups:
        return frame
    for names in groups.values():
        for name in names:
            field = name.rpartition(".")[2]
            frame = read_field(frame, name, field, f"column {name!r}")
    built: dict[str, pl.Expr] = {}
    for head, names in groups.items():
        inner = frame.select(pl.col(n).alias(n[len(head) + 1 :]) for n in names)
        inner = rebuild_records(inner)
        built[head] = pl.struct(inner.get_columns()).alias(head)
    first = {names[0]: head for head, names in groups.items()}
    flattened = {n for names in groups.values() for n in names}
    columns = []
    for name in frame.columns:
        if name in first:
            columns.append(built[first[name]])
        elif name not in flattened:
            columns.append(pl.col(name))
    return frame.select(columns)


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


def _json_text(expr: pl.Expr, name: str) -> pl.Expr:
    """Write a list column as JSON text (for CSV, which holds text only)."""
    encoded = pl.struct(expr.alias("v")).struct.json_encode()
    return encoded.str.slice(5, encoded.str.len_chars() - 6).alias(name)  # strip {"v": ... }


def flatten_records(frame: pl.DataFrame) -> pl.DataFrame:
    """Flatten struct columns into ``col.field`` columns and write lists as JSON text."""
    columns: list[pl.Expr] = []

    def add(expr: pl.Expr, name: str, dtype: pl.DataType) -> None:
        if isinstance(dtype, pl.Struct):
            for field in dtype.fields:
                add(expr.struct.field(field.name), f"{name}.{field.name}", field.dtype)
        elif dtype.is_nested():
            columns.append(_json_text(expr, name))
        else:
            columns.append(expr.alias(name))

    for name, dtype in frame.schema.items():
        add(pl.col(name), name, dtype)
    return frame.select(columns)


def check_output(path: Path) -> None:
    """Check, before any row is scored, that graded rows can be written to ``path``."""
    _format_of(path, "-o")
    folder = path.parent if str(path.parent) else Path()
    if not folder.is_dir():
        msg = f"-o {str(path)!r}: the folder {str(folder)!r} does not exist"
        raise CliError(msg)
    if path.is_dir():
        msg = f"-o {str(path)!r}: is a folder; give a file name"
        raise CliError(msg)
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        msg = f"-o {str(path)!r}: not writable"
        raise CliError(msg)


def check_not_an_input(output: Path, inputs: Sequence[Path]) -> None:
    """Refuse ``-o`` naming an input file (by its resolved path: a symlink or ``./`` too)."""
    target = output.resolve()
    for given in inputs:
        same = given.resolve() == target
        if not same and given.exists() and output.exists():
            same = os.path.samefile(given, output)  # a hard link
        if same:
            msg = (
                f"-o {str(output)!r} is the input file {str(given)!r}; writing there would "
                "replace the data being read: give another file name"
            )
            raise CliError(msg)


#: A cell whose text starts with one of these is run as a formula by spreadsheets (OWASP's CSV
#: injection list: = + - @, tab and carriage return). A leading ' is escaped too when
#: --escape-formulas is on, so that reading the file back removes exactly what was added.
FORMULA_START: Final = r"^[=+\-@\t\r]"
_ESCAPED_START: Final = r"^[=+\-@\t\r']"


def _text_columns(frame: pl.DataFrame) -> list[str]:
    return [name for name, dtype in frame.schema.items() if dtype == pl.String]


def formula_cells(frame: pl.DataFrame) -> int:
    """Count the text cells a spreadsheet would run as a formula."""
    names = _text_columns(frame)
    if not names or not frame.height:
        return 0
    counts = frame.select(
        pl.sum_horizontal(
            pl.col(n).str.contains(FORMULA_START).fill_null(value=False) for n in names
        )
    )
    return int(counts.to_series().sum())


def escape_formulas(frame: pl.DataFrame) -> pl.DataFrame:
    """Prefix ``'`` to text cells starting with = + - @ tab CR or ``'`` (undone on reading)."""
    return frame.with_columns(
        pl.when(pl.col(n).str.contains(_ESCAPED_START))
        .then(pl.lit("'") + pl.col(n))
        .otherwise(pl.col(n))
        .alias(n)
        for n in _text_columns(frame)
    )


def unescape_formulas(frame: pl.DataFrame) -> pl.DataFrame:
    """Remove the ``'`` that :func:`escape_formulas` put before a text cell."""
    return frame.with_columns(pl.col(n).str.strip_prefix("'") for n in _text_columns(frame))


def write_frame(
    frame: pl.DataFrame,
    path: Path,
    *,
    escape: bool = False,
    err: TextIO | None = None,
) -> None:
    """Write graded rows by the extension of ``path``, atomically.

    The rows go to a temporary file (in a private folder beside ``path``), which then replaces
    it in one step (``os.replace``): an interrupt, SIGTERM or a full disk leaves the old file as
    it was (the temporary folder is removed), never a header-only or cut file. For CSV, text
    cells that a spreadsheet would run as a formula are written unchanged (a warning on
    ``err``), or with a leading ``'`` when ``escape`` is on (``--escape-formulas``).
    """
    fmt = _format_of(path, "-o")
    if fmt == "csv":
        frame = flatten_records(frame)
        if escape:
            frame = escape_formulas(frame)
        elif err is not None and (cells := formula_cells(frame)):
            print(
                f"gradeframe: warning: {_noun(cells, 'cell')} of {str(path)!r} start with =, +, "
                "-, @, a tab or a carriage return, which a spreadsheet may run as a formula; "
                "--escape-formulas writes them with a leading ' (read back with the same flag)",
                file=err,
            )
    # The rows go to a private folder beside the target, named before it exists, so that
    # whenever a signal comes it can be removed; a writer thread of Polars still running after
    # an interrupt cannot make a file again in a folder that is gone.
    folder = path.parent if str(path.parent) else Path()
    private = folder / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    temporary = private / path.name
    try:
        with _signals_deferred():  # a signal in the write takes effect when the write ends
            private.mkdir(mode=0o700)
            if fmt == "parquet":
                frame.write_parquet(temporary)
            elif fmt == "csv":
                frame.write_csv(temporary)
            elif fmt == "json":
                frame.write_json(temporary)
            else:
                frame.write_ndjson(temporary)
            if path.exists():
                os.chmod(temporary, path.stat().st_mode & 0o7777)  # keep the old file's mode
        os.replace(temporary, path)
    except BaseException as exc:  # an interrupt or SIGTERM too: never leave a cut file
        _remove(private)
        if isinstance(exc, OSError | pl.exceptions.PolarsError):
            msg = f"-o {str(path)!r} cannot be written: {_first_line(exc)} (the file is as it was)"
            raise CliError(msg) from None
        raise
    _remove(private)


class _Terminated(BaseException):
    """SIGTERM, raised where the program is, so that a file being written is cleaned up."""


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM until the block ends, then raise them (main thread only).

    Polars checks for signals while it writes and would abandon the write half way, with a
    second interrupt pending that could land in the clean-up; here the write ends first.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []

    def note(signum: int, frame: FrameType | None) -> None:
        came.append(signum)

    previous = {signum: signal.signal(signum, note) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if signal.SIGTERM in came:
        raise _Terminated
    if came:
        raise KeyboardInterrupt


def _remove(private: Path) -> None:
    """Remove the private folder of :func:`write_frame`, and whatever is still in it."""
    for _ in range(5):
        shutil.rmtree(private, ignore_errors=True)
        if not private.exists():
            return
        time.sleep(0.05)  # a writer thread made a file in it again: once more


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


# --------------------------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------------------------


@contextmanager
def _progress(total: int, err: TextIO | None) -> Iterator[Any]:
    """Yield ``advance(rows)``: a rich progress bar, or timed plain lines without rich."""
    if err is None:
        yield lambda rows: None
        return
    try:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
    except ImportError:
        yield _plain_progress(total, err)
        return
    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(file=err), transient=False) as bar:
        task = bar.add_task("scoring", total=total)
        yield lambda rows: bar.advance(task, rows)


def _plain_progress(total: int, err: TextIO) -> Any:
    start = time.perf_counter()
    state = {"done": 0, "last": -PROGRESS_EVERY}

    def advance(rows: int) -> None:
        state["done"] += rows
        done, elapsed = state["done"], time.perf_counter() - start
        if elapsed >= PROGRESS_AFTER and elapsed - state["last"] >= PROGRESS_EVERY:
            state["last"] = elapsed
            left = (total - done) * elapsed / done if done else 0.0
            print(
                f"gradeframe: scored {done:,} of {total:,} rows ({done / total:.0%}), "
                f"{elapsed:.1f} s, about {left:.0f} s left",
                file=err,
                flush=True,
            )

    return advance


def score(
    frame: pl.DataFrame,
    *,
    chunk_rows: int = CHUNK_ROWS,
    progress: TextIO | None = None,
    **kwargs: Any,
) -> pl.DataFrame:
    """Grade a frame with answer_contains, in chunks of rows, showing progress on long runs."""
    # Check the columns and arguments once, on the whole frame, before any row is scored.
    answer_rules.with_answer_contains(frame.clear(), **kwargs)
    total = frame.height
    if total <= chunk_rows:
        return answer_rules.with_answer_contains(frame, **kwargs)
    parts = []
    with _progress(total, progress) as advance:
        for offset in range(0, total, chunk_rows):
            chunk = frame.slice(offset, chunk_rows)
            parts.append(answer_rules.with_answer_contains(chunk, **kwargs))
            advance(chunk.height)
    return pl.concat(parts, how="vertical")


def format_report(table: pl.DataFrame) -> str:
    """Return the report as a plain text (Markdown) table with every row and column shown."""
    with pl.Config(
        tbl_rows=-1,
        tbl_cols=-1,
        tbl_width_chars=10_000,
        fmt_str_lengths=80,
        tbl_hide_dataframe_shape=True,
        tbl_hide_column_data_types=True,
        tbl_formatting="ASCII_MARKDOWN",
        tbl_cell_numeric_alignment="RIGHT",
        float_precision=3,
    ):
        return str(table)


def print_report(table: pl.DataFrame, out: TextIO) -> None:
    """Print the report as a table: with rich when it is installed, else as plain text."""
    try:
        from rich import box
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        print(format_report(table), file=out)
        return
    shown = Table(box=box.MARKDOWN, show_edge=True, pad_edge=True)
    for name, dtype in table.schema.items():
        numeric = dtype.is_numeric()
        shown.add_column(name, justify="right" if numeric else "left", no_wrap=True)
    for row in table.iter_rows():
        shown.add_row(*(_shown(value) for value in row))
    # Plain Markdown, the same in a terminal, a pipe and a notebook: it can be pasted anywhere.
    buffer = io.StringIO()
    console = Console(file=buffer, width=100_000, highlight=False, color_system=None)
    console.print(shown)
    lines = [line.rstrip() for line in buffer.getvalue().splitlines()]
    print("\n".join(line for line in lines if line.strip()), file=out)


def _shown(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, list | dict):  # refs: a JSON list, not a Python repr
        return json.dumps(value, ensure_ascii=False)
    text = str(value).replace("|", "\\|")  # a "|" in a cell would end it in Markdown
    return text if len(text) <= 80 else text[:79] + "…"


def _noun(count: int, word: str) -> str:
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"


# --------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------


def _version() -> str:
    try:
        return importlib.metadata.version("gradeframe")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - run from a checkout
        return "unknown"


def _separator(value: str) -> str:
    named = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";"}
    value = named.get(value, value)
    if len(value) != 1:
        msg = f"must be one character (or 'tab'), got {value!r}"
        raise argparse.ArgumentTypeError(msg)
    return value


def _ks(value: str) -> list[int]:
    parts = [part.strip() for part in value.split(",") if part.strip()]
    try:
        ks = [int(part) for part in parts]
    except ValueError:
        ks = []
    if not ks or min(ks) < 1:
        msg = (
            f"must be whole numbers of at least 1 separated by commas (e.g. 1,4,16), got {value!r}"
        )
        raise argparse.ArgumentTypeError(msg)
    return ks


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gradeframe",
        description="Grade model answers held in a table, and explain every failure.",
    )
    version = f"gradeframe {_version()}"
    parser.add_argument("--version", action="version", version=version)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    score_parser = commands.add_parser(
        "score",
        help="score answers against acceptable answers (answer_contains) and print a report",
        description=(
            "Score each answer against its acceptable answers (answer_contains: folded text, "
            "numbers matched whole) and print accuracy, its 95% Wilson interval and failure "
            "counts by kind, per group. Inputs: .parquet, .csv, .jsonl/.ndjson, .json, or the "
            "logs of inspect, lm-eval, promptfoo, OpenAI evals and HELM (a file or a folder). CSV "
            "cells are text; a refs cell is one acceptable answer unless it is a JSON list."
        ),
    )
    score_parser.add_argument("--version", action="version", version=version)
    source = score_parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "file", nargs="?", type=Path, help="the answers to score, or a log file or folder"
    )
    source.add_argument(
        "--example", action="store_true", help="score the bundled example (grouped by model)"
    )
    columns = score_parser.add_argument_group("columns")
    columns.add_argument(
        "--answer",
        default=None,
        metavar="COL",
        help=(
            "answer text, or a struct holding the whole output record; COL.FIELD picks a "
            "struct field, e.g. output.content (default: answer; output for evaluation logs)"
        ),
    )
    columns.add_argument(
        "--refs",
        default="refs",
        metavar="COL",
        help="acceptable answers; COL.FIELD picks a struct field (default: refs)",
    )
    columns.add_argument(
        "--by",
        action="append",
        metavar="COL",
        help="group the report by these columns (repeat, or separate with commas)",
    )
    columns.add_argument(
        "--cluster",
        metavar="COL",
        help="clustered intervals: rows with the same COL are not independent (e.g. question_id)",
    )
    for role in ("partial", "notes", "trace", "status", "failure-kind"):
        columns.add_argument(
            f"--{role}",
            metavar="COL",
            help=f"a flat {role.replace('-', '_')} column (wins over the struct field)",
        )
    score_parser.add_argument(
        "--not-found",
        action="append",
        metavar="PHRASE",
        help=(
            "a regular expression that marks an answer as 'not in the document' (repeat; "
            "replaces the default phrases)"
        ),
    )
    score_parser.add_argument(
        "--whole-words",
        action="store_true",
        help=(
            "match words whole: 'UK' is not in 'Ukraine', 'No' is not in 'I know' (for yes/no "
            "items, short names and abbreviations)"
        ),
    )
    score_parser.add_argument(
        "--refusals",
        action="store_true",
        help=(
            "count an answer that opens by refusing the request ('I'm sorry, but I can't help "
            "with that.') as a refusal, not as wrong"
        ),
    )
    evaluation = score_parser.add_argument_group("evaluation logs")
    evaluation.add_argument(
        "--from",
        dest="from_tool",
        metavar="TOOL",
        help=(
            "read FILE (or the folder) as logs of this tool: inspect, lm_eval, promptfoo, "
            "openai_evals, helm (default: recognised from each file)"
        ),
    )
    evaluation.add_argument(
        "--refs-var",
        metavar="NAME",
        help="promptfoo: the test metadata key or variable holding the acceptable answers",
    )
    evaluation.add_argument(
        "--skip-bad-logs",
        action="store_true",
        help=(
            "leave out the logs in a folder that cannot be read (truncated, corrupt), naming "
            "each on stderr, instead of stopping at the first"
        ),
    )
    evaluation.add_argument(
        "--disagreements",
        type=int,
        default=0,
        metavar="N",
        help="list N rows where the tool's own verdict and gradeframe's differ",
    )
    repeated = score_parser.add_argument_group("repeated samples (several rows per item)")
    repeated.add_argument(
        "--samples",
        type=_ks,
        metavar="K,K,...",
        help=(
            "after the report, print pass@k for these k (e.g. 1,4,16) and how consistent each "
            "item's samples are, when items have several rows (epochs, repeats)"
        ),
    )
    repeated.add_argument(
        "--on",
        action="append",
        metavar="COL",
        help=(
            "the column(s) naming an item, for --samples (default: question_id, else task and "
            "sample_id, else sample_id)"
        ),
    )
    score_parser.add_argument(
        "--failures",
        type=int,
        default=0,
        metavar="N",
        help=(
            "list the first N rows that are not right, as failures() shows them: failure "
            "kind, group, answer (actual), acceptable answers (expected), outcome"
        ),
    )
    score_parser.add_argument(
        "--separator",
        type=_separator,
        default=None,
        metavar="CHAR",
        help=(
            "the CSV field separator, e.g. ';' or tab (default: ,; a header with no ',' but "
            "';', tab or '|' is an error that names the --separator to pass)"
        ),
    )
    score_parser.add_argument(
        "--prefix", default="", help="put before the names of the added columns"
    )
    score_parser.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="OUT",
        help="write the graded rows here (format from the extension)",
    )
    score_parser.add_argument(
        "--html",
        type=Path,
        metavar="OUT",
        help="write the report as one self-contained HTML page here (needs jinja2)",
    )
    score_parser.add_argument(
        "--escape-formulas",
        action="store_true",
        help=(
            "CSV: write text cells starting with =, +, -, @, tab or CR (and ') with a leading ', "
            "so that spreadsheets show them instead of running them; on a CSV input, remove it"
        ),
    )
    score_parser.add_argument(
        "--chunk-rows",
        type=int,
        default=CHUNK_ROWS,
        metavar="N",
        help=f"rows scored at a time (default: {CHUNK_ROWS:,})",
    )
    score_parser.add_argument("-q", "--quiet", action="store_true", help="no progress output")
    return parser


def _group_by(values: list[str] | None) -> list[str]:
    names = [part.strip() for value in values or [] for part in value.split(",")]
    return [name for name in names if name]


def _flat_columns(frame: pl.DataFrame, args: argparse.Namespace, answer: Any) -> pl.DataFrame:
    """Read text columns named by --partial/--notes/--trace as the record fields they hold.

    Without the flag, a column with the field's own name is read the same way (answer_contains
    reads it by name: ``BY_NAME``), unless the --answer struct has that field.
    """
    fields = struct_fields(frame.schema[answer]) if isinstance(answer, str) else {}
    for field in ("partial", "notes", "trace", "status", "failure_kind"):
        name, flag = getattr(args, field), FLAGS[field]
        if name is not None:
            check_column(frame.schema, name, flag)
            frame = read_field(frame, name, field, f"{flag} {name}")
        elif field in BY_NAME and field in frame.columns and field not in fields:
            frame = read_field(frame, field, field, f"column {field!r}")
    return frame


def _drop_earlier_grading(frame: pl.DataFrame, prefix: str) -> pl.DataFrame:
    """Replace the output columns of an earlier grading (they all end up re-added)."""
    names = [prefix + name for name in OUTPUT_COLUMNS]
    if all(name in frame.columns for name in names):
        return frame.drop(names)
    return frame


def _report_options(args: argparse.Namespace, schema: pl.Schema) -> dict[str, Any]:
    if args.cluster is None:
        return {}
    check_column(schema, args.cluster, "--cluster")
    return {"cluster": args.cluster}


def _run_score(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.disagreements < 0:
        msg = f"--disagreements must be 0 or more, got {args.disagreements}"
        raise CliError(msg)
    if args.failures < 0:
        msg = f"--failures must be 0 or more, got {args.failures}"
        raise CliError(msg)
    if args.chunk_rows < 1:
        msg = f"--chunk-rows must be at least 1, got {args.chunk_rows}"
        raise CliError(msg)
    if args.output is not None:
        check_output(args.output)  # before any work
        check_not_an_input(args.output, [] if args.example else [args.file])
    if args.html is not None:
        check_html_output(args.html)
    given = read_input(args)
    frame = _drop_earlier_grading(given.frame, args.prefix)
    by = _group_by(args.by) or given.by
    if "lm_eval_filter" in given.by and "lm_eval_filter" not in by:
        given.notes.append(
            "note: lm-eval tasks here were scored with several filters, and this report pools "
            "their verdicts; add --by lm_eval_filter for one figure per filter"
        )
    answer_name = args.answer or given.answer
    answer = column_or_field(frame.schema, answer_name, "--answer")
    refs = column_or_field(frame.schema, args.refs, "--refs")
    check_record(frame, answer, answer_name)
    if isinstance(refs, str):
        # CSV holds text only, and a JSON Lines file whose refs mix lists and strings is read
        # with the lists as JSON text: either way, a cell that is a JSON list is a list.
        frame = json_lists(frame, refs)
    frame = _flat_columns(frame, args, answer)
    for name in by:
        check_column(frame.schema, name, "--by")
    options = _report_options(args, frame.schema)
    graded = score(
        frame,
        chunk_rows=args.chunk_rows,
        progress=None if args.quiet else err,
        answer=answer,
        refs=refs,
        partial=args.partial,
        notes=args.notes,
        trace=args.trace,
        status=args.status,
        failure_kind=args.failure_kind,
        not_found=args.not_found,
        refusal=True if args.refusals else None,
        whole_words=args.whole_words,
        prefix=args.prefix,
    )
    table = report(
        graded,
        by or None,
        correct=args.prefix + "correct",
        failure_kind=args.prefix + "failure_kind",
        **options,
    )
    n_correct = int(table.get_column("n_correct").sum())
    share = f" ({n_correct / graded.height:.1%})" if graded.height else ""
    grouped = f", by {', '.join(by)}" if by else ""
    answers = _noun(graded.height, "answer")
    if args.output is not None:
        # first: a closed pipe on stdout must not lose it
        write_frame(graded, args.output, escape=args.escape_formulas, err=err)
    if args.html is not None:  # before printing too
        write_html(graded, args, by=by, source=given.source, answer=answer, refs=refs)
    print(f"{answers} from {given.source}: {n_correct:,} right{share}{grouped}", file=out)
    for note in given.notes:
        print(note, file=out)
    print_report(table, out)
    if args.samples is not None:
        print_samples(graded, args, by, answer, out)
    print_tool_agreement(graded, args, out, given.folder)
    if args.failures:
        print_failures(graded, args, out, by=by, answer=answer, refs=refs, folder=given.folder)
    if args.output is not None and not args.quiet:
        rows = _noun(graded.height, "graded row")
        print(f"gradeframe: wrote {rows} to {args.output}", file=err)
    if args.html is not None and not args.quiet:
        print(f"gradeframe: wrote the HTML page to {args.html}", file=err)
    return 0


def check_html_output(path: Path) -> None:
    """Check, before any row is scored, that the page can be written to ``path``."""
    folder = path.parent if str(path.parent) else Path()
    if not folder.is_dir():
        msg = f"--html {str(path)!r}: the folder {str(folder)!r} does not exist"
        raise CliError(msg)
    if path.is_dir():
        msg = f"--html {str(path)!r}: is a folder; give a file name"
        raise CliError(msg)
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        msg = f"--html {str(path)!r}: not writable"
        raise CliError(msg)
    try:
        import jinja2  # noqa: F401
    except ImportError:
        msg = "--html needs Jinja2: pip install 'gradeframe[html]'"
        raise CliError(msg) from None


def _grader(args: argparse.Namespace) -> Any:
    """Name the grader as the page's summary shows it: answer_contains and the options given."""
    from gradeframe.html import Grader

    options = [f"--answer {args.answer}"] if args.answer else []
    if args.refs != "refs":
        options.append(f"--refs {args.refs}")
    for flag in ("whole_words", "refusals"):
        if getattr(args, flag, False):
            options.append("--" + flag.replace("_", "-"))
    options += [f"--not-found {phrase!r}" for phrase in args.not_found or []]
    if args.prefix:
        options.append(f"--prefix {args.prefix!r}")
    if args.cluster:
        options.append(f"--cluster {args.cluster}")
    return Grader("answer_contains", options)


def write_html(
    graded: pl.DataFrame,
    args: argparse.Namespace,
    *,
    by: list[str],
    source: str,
    answer: str | pl.Expr,
    refs: str | pl.Expr,
) -> None:
    """Write the page of ``gradeframe.html`` for the graded rows (the same as ``df.grade.html``)."""
    from gradeframe.html import build_page, write_page

    def shown(column: str | pl.Expr) -> str:
        return column if isinstance(column, str) else column.meta.root_names()[0]

    page = build_page(
        graded,
        by=by or None,
        source=source,
        grader=_grader(args),
        actual=shown(answer),
        expected=shown(refs),
        prefix=args.prefix,
        cluster=args.cluster,
    )
    try:
        write_page(page, args.html)
    except OSError as exc:
        msg = f"--html {str(args.html)!r} cannot be written: {_first_line(exc)}"
        raise CliError(msg) from None


def print_samples(
    graded: pl.DataFrame,
    args: argparse.Namespace,
    by: list[str],
    answer: str | pl.Expr,
    out: TextIO,
) -> None:
    """Print pass@k and the consistency of each item's samples (``--samples``)."""
    on = _group_by(args.on) or None
    correct = args.prefix + "correct"
    summary = consistency(graded, by=by or None, on=on, correct=correct, answer=answer)
    items = ", ".join(_item_names(graded, on))
    n_items, n_samples = int(summary["n_items"].sum()), int(summary["n_samples"].sum())
    if n_samples == n_items:
        print(
            f"\n--samples: every item ({items}) has one row, so there is no pass@k beyond "
            "pass@1 (the accuracy above) and nothing to be consistent about. Several samples "
            "per item (epochs, repeats) give several rows with the same item.",
            file=out,
        )
        return
    table = pass_at_k(graded, args.samples, by=by or None, on=on, correct=correct)
    print(
        f"\npass@k over {_noun(n_items, 'item')} ({items}) with "
        f"{_noun(n_samples, 'sample')}; ci_low/ci_high: 95% interval over items; "
        "pass_all_k: all k samples right:",
        file=out,
    )
    print_report(table, out)
    short = int(table["short_items"].sum())
    if short:
        print(
            "(null where some item has fewer than k samples: short_items counts them)",
            file=out,
        )
    print(
        "\nconsistency: items always right, always wrong, or flaky (both); majority: share of "
        "items whose most common (folded) answer is right; ties: items without one:",
        file=out,
    )
    print_report(summary, out)


def _item_names(frame: pl.DataFrame, on: list[str] | None) -> list[str]:
    from gradeframe._inputs import item_columns

    return item_columns(on, frame.schema)


def print_tool_agreement(
    graded: pl.DataFrame, args: argparse.Namespace, out: TextIO, folder: Path | None = None
) -> None:
    """Where the input has the tool's own verdict, print how often gradeframe agrees with it.

    The table is :func:`gradeframe.agreement`'s, with its names: ``a`` is the tool's verdict
    (``tool_correct``) and ``b`` gradeframe's (``correct``).
    """
    if "tool_correct" not in graded.columns or graded.get_column("tool_correct").null_count() == (
        graded.height
    ):
        return
    correct, kind = args.prefix + "correct", args.prefix + "failure_kind"
    by = [name for name in ("tool",) if name in graded.columns]
    table = logs.tool_agreement(graded, correct=correct, by=by or None)
    rows = _noun(int(table.get_column("n").sum()), "row")
    title = (
        f"agreement of the tool's own verdict (a: tool_correct) with gradeframe's "
        f"(b: {correct}), on {rows}:"
    )
    print(f"\n{title}", file=out)
    print_report(table, out)
    if args.disagreements:
        differ = logs.disagreements(graded, correct=correct, failure_kind=kind)
        rows = differ.head(args.disagreements)
        print(f"\nrows where they differ ({_first(rows.height, differ.height)}):", file=out)
        print_report(listing(rows, verdicts=["tool_correct", correct], folder=folder), out)


def _first(shown: int, total: int) -> str:
    return f"first {shown:,} of {total:,}" if total > shown else f"all {total:,}"


#: Identity columns a --failures listing shows after the groups, where the input has them.
ID_COLUMNS: Final = ("log", "question_id", "sample_id", "epoch")


def print_failures(
    graded: pl.DataFrame,
    args: argparse.Namespace,
    out: TextIO,
    *,
    by: list[str],
    answer: str | pl.Expr,
    refs: str | pl.Expr,
    folder: Path | None = None,
) -> None:
    """Print the first ``--failures N`` rows that are not right, as :func:`failures` shows them.

    Their failure kind, the groups of the report, the row's identity (log, ids, epoch), the
    answer (failures()' ``actual``, cut short), the acceptable answers (the refs column, a list
    printed as a JSON list) and the ``outcome``.
    """
    frame = graded
    names = []
    for value in (answer, refs):  # a struct field (--answer output.content): a column to show
        if isinstance(value, pl.Expr):
            frame = frame.with_columns(value)
            names.append(frame.columns[-1])
        else:
            names.append(value)
    prefix = args.prefix
    shown = failures(frame, actual=names[0], expected=names[1], prefix=prefix)
    total = shown.height
    ids = [name for name in ID_COLUMNS if name in shown.columns and name not in by]
    columns = [
        prefix + "failure_kind",
        *by,
        *ids,
        prefix + "actual",
        names[1],
        prefix + "outcome",
    ]
    rows = shown.head(args.failures).select(columns)
    print(f"\nrows that are not right ({_first(rows.height, total)}):", file=out)
    print_report(listing(rows, folder=folder), out)


def listing(
    frame: pl.DataFrame, *, verdicts: Sequence[str] = (), folder: Path | None = None
) -> pl.DataFrame:
    """Prepare rows for printing: verdicts in words ("right", "wrong"), logs by their short path.

    Lists print as JSON lists (``["12400", "12,400"]``); see :func:`_shown`.
    """
    words = [
        pl.col(name).replace_strict({True: "right", False: "wrong"}, return_dtype=pl.String)
        for name in verdicts
        if name in frame.columns and frame.schema[name] == pl.Boolean
    ]
    if folder is not None and "log" in frame.columns and frame.schema["log"] == pl.String:
        base = os.fspath(folder).rstrip("/\\") + os.sep
        words.append(pl.col("log").str.strip_prefix(base))
    return frame.with_columns(words) if words else frame


@contextmanager
def _terminate_as_exception() -> Iterator[None]:
    """Turn SIGTERM into :class:`_Terminated` while the command runs (main thread only)."""

    def terminate(signum: int, frame: FrameType | None) -> None:
        raise _Terminated

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status.

    Parameters
    ----------
    argv
        The arguments, without the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 on a usage or input error (one line on stderr, no traceback).

    Examples
    --------
    >>> from gradeframe.cli import main
    >>> main(["score", "--example", "--by", "model", "--quiet"])  # doctest: +ELLIPSIS
    120 answers from the bundled example: 91 right (75.8%), by model
    | model       | ... | n_correct | accuracy | ci_low | ci_high | no_reference | ...
    ...
    0
    """
    parser = _parser()
    args = parser.parse_args(argv)
    out, err = sys.stdout, sys.stderr
    try:
        with _terminate_as_exception():
            return _run_score(args, out, err)
    except _Terminated:
        print("gradeframe: terminated", file=err)
        return 128 + signal.SIGTERM
    except CliError as exc:
        print(f"gradeframe: error: {exc}", file=err)
    except (pl.exceptions.PolarsError, KeyError, TypeError, ValueError) as exc:
        print(f"gradeframe: error: {in_cli_words(_first_line(exc))}", file=err)
    except KeyboardInterrupt:
        print("gradeframe: interrupted", file=err)
        return 130
    except BrokenPipeError:
        # The reader went away (`gradeframe score ... | head`): stop quietly, as `cat` does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return EXIT_ERROR


if __name__ == "__main__":
    raise SystemExit(main())
