"""Reading what ``gradeframe score`` grades: a file by its extension, or evaluation logs."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
import warnings
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from pathlib import Path
from typing import Any, Final

import polars as pl

from gradeframe import answer as answer_rules
from gradeframe import logs
from gradeframe._inputs import struct_fields
from gradeframe._record import BY_NAME
from gradeframe.cli._common import (
    BOOLEAN_FIELDS,
    FLAGS,
    JSON_FIELDS,
    CliError,
    _first_line,
    _format_of,
    check_column,
    column_or_field,
)
from gradeframe.cli._unicode import SURROGATE, first_bad_line, read_json_lines, source_of
from gradeframe.cli.writing import unescape_formulas
from gradeframe.example import example

# --------------------------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------------------------


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
    frame = read_frame(
        path,
        separator=args.separator,
        guess=args.separator is None,
        unescape=args.escape_formulas,
    )
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


def read_frame(
    path: Path, *, separator: str | None = ",", guess: bool = False, unescape: bool = False
) -> pl.DataFrame:
    """Read a file of answers by its extension (CSV: text cells, flattened records rebuilt).

    With ``guess`` (no ``--separator`` given), a CSV whose header has no comma but another
    separator raises naming the ``--separator`` to pass: the file is not read with a guess.
    With ``unescape`` (``--escape-formulas``), a CSV's cells lose the ``'`` that
    ``--escape-formulas`` put before them when it was written, record fields included (before
    the ``col.field`` columns are put back together).
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
        with source_of(path) as source:
            if fmt == "parquet":
                return pl.read_parquet(source)
            if fmt == "csv":
                frame = pl.read_csv(source, infer_schema=False, separator=separator)
            elif fmt == "json" and _starts_with_bracket(path):
                frame = _read_json_array(path)
            else:
                frame = read_json_lines(path, source)
    except (OSError, pl.exceptions.PolarsError, ValueError) as exc:
        msg = f"input {str(path)!r} cannot be read as {fmt}: {_first_line(exc)}"
        if "utf-8" in msg.lower() and fmt == "csv":
            msg += first_bad_line(path)
        raise CliError(msg) from None
    if fmt != "csv":
        return frame
    return rebuild_records(unescape_formulas(frame) if unescape else frame)


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
    try:
        data = lines.encode()
    except UnicodeEncodeError:
        # Python's json read a lone surrogate escape ("\ud800") as a lone surrogate (a pair
        # became its character): U+FFFD, as the JSON Lines reader below reads a .jsonl file.
        data = SURROGATE.sub("\ufffd", lines).encode()
    return pl.read_ndjson(io.BytesIO(data), infer_schema_length=None)


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


#: The record inputs the command line takes as flags (--partial, ...), read as their field.
RECORD_FIELDS: Final = ("partial", "notes", "trace", "status", "failure_kind")


def read_columns(
    frame: pl.DataFrame, answer: Any, refs: Any, record: dict[str, str | None]
) -> pl.DataFrame:
    """Read the columns grading takes as the command line does, after the file was read.

    ``refs`` (a column name) has its JSON-list cells read as lists; the record columns named in
    ``record`` (field -> column, as --partial, --notes, ... name them), else the flat columns
    named like a field, are read as that field (``partial`` Boolean, ``notes`` and ``trace``
    from JSON).
    """
    if isinstance(refs, str):
        # CSV holds text only, and a JSON Lines file whose refs mix lists and strings is read
        # with the lists as JSON text: either way, a cell that is a JSON list is a list.
        frame = json_lists(frame, refs)
    return _flat_columns(frame, record, answer)


def _flat_columns(frame: pl.DataFrame, record: dict[str, str | None], answer: Any) -> pl.DataFrame:
    """Read text columns named by --partial/--notes/--trace as the record fields they hold.

    Without the flag, a column with the field's own name is read the same way (answer_contains
    reads it by name: ``BY_NAME``), unless the --answer struct has that field.
    """
    fields = struct_fields(frame.schema[answer]) if isinstance(answer, str) else {}
    for field in RECORD_FIELDS:
        name, flag = record.get(field), FLAGS[field]
        if name is not None:
            check_column(frame.schema, name, flag)
            frame = read_field(frame, name, field, f"{flag} {name}")
        elif field in BY_NAME and field in frame.columns and field not in fields:
            frame = read_field(frame, field, field, f"column {field!r}")
    return frame


def read_table(
    path: str | os.PathLike[str],
    *,
    answer: str | None = None,
    refs: str | None = None,
    separator: str | None = None,
) -> pl.DataFrame:
    r"""Read a file of answers as ``gradeframe score`` reads it, into the frame it grades.

    By extension: CSV cells are text (nothing is guessed: "007", "NA" and "0.10" stay as
    written), a ``refs`` cell holding a JSON list is a list of acceptable answers, and flattened
    record columns (``output.answer``, ``output.partial``, ...) are put back into a struct;
    Parquet, JSON Lines (``.jsonl``, ``.ndjson``) and JSON (``.json``) are read as written. An
    evaluation log, or a folder of them, is read with :func:`gradeframe.read_log`. Every column
    is kept as read, so ``read_table(path).grade.answer_contains(...)`` gives the command line's
    verdicts.

    Parameters
    ----------
    path
        The file (or folder of logs) to read.
    answer
        The answer column, as ``--answer`` names it (default ``answer``, ``output`` for logs; a
        ``col.field`` name reads a field of a struct column). Record columns named like a field
        (``partial``, ``notes``, ``trace``, ``status``) are read as that field unless this
        column's struct has the field.
    refs
        The acceptable-answers column, as ``--refs`` names it (default ``refs``): its cells
        that hold a JSON list are lists.
    separator
        The CSV separator (default ","). Without it, a CSV whose header has no comma but
        another separator raises naming the separator to pass.

    Returns
    -------
    polars.DataFrame
        The rows, ready to grade.

    Raises
    ------
    ValueError
        The file is missing, of an unknown extension or unreadable, or a named column is
        missing; the message names the file, the column, or the row of a bad cell.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> import gradeframe as gf
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "answers.csv").write_text(
    ...     'answer,refs\nThe code is 007,007\nNA,NA\nAbout 12400 m,"[""12400"", ""12,400""]"\n'
    ... )
    >>> frame = gf.read_table(folder / "answers.csv")
    >>> frame["refs"].to_list()
    [['007'], ['NA'], ['12400', '12,400']]
    >>> frame.grade.answer_contains("answer", "refs")["correct"].to_list()
    [True, True, True]
    """
    try:
        return _read_table(Path(path), answer, refs, separator)
    except CliError as exc:
        raise ValueError(_in_python_words(str(exc))) from None


def _in_python_words(message: str) -> str:
    r"""Rewrite a reading error in read_table's words (``answer='x'``, not ``--answer x``).

    Examples
    --------
    >>> _in_python_words("--answer resp: the input has no column 'resp'.")
    "`answer='resp'`: the input has no column 'resp'."
    >>> _in_python_words("its header has no ',' but ';': pass --separator ';' to read it")
    "its header has no ',' but ';': pass separator=';' to read it"
    >>> print(_in_python_words("pass --separator tab to read it"))
    pass separator='\t' to read it
    """
    message = re.sub(r"--(answer|refs) (\S+?):", lambda m: f"`{m[1]}={m[2]!r}`:", message)
    message = message.replace("--separator tab", "separator='\\t'")
    return message.replace("--separator ", "separator=")


def _read_table(
    path: Path, answer: str | None, refs: str | None, separator: str | None
) -> pl.DataFrame:
    if path.is_dir() or logs.detect_tool(path) is not None:
        given = read_logs(path, None, None)
    else:
        frame = read_frame(path, separator=separator, guess=separator is None)
        if not frame.columns:
            msg = f"input {str(path)!r}: holds no records"
            raise CliError(msg)
        given = Input(frame, repr(str(path)), [])
    frame = given.frame
    answer_name = answer or given.answer
    answer_column = None
    if answer is not None or answer_name in frame.columns:
        answer_column = column_or_field(frame.schema, answer_name, "--answer")
    refs_column = None
    if refs is not None or "refs" in frame.columns:
        refs_column = column_or_field(frame.schema, refs or "refs", "--refs")
    return read_columns(frame, answer_column, refs_column, {})
