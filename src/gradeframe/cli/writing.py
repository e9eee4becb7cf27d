"""Writing the graded rows (``-o``) and the HTML page (``--html``)."""

from __future__ import annotations

import argparse
import hashlib
import os
import secrets
import shutil
import signal
import socket
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, Final, TextIO

import polars as pl

from gradeframe.cli._common import CliError, _first_line, _format_of
from gradeframe.cli.printing import _noun

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


def _checked_folder(path: Path, flag: str) -> Path:
    """Return the folder ``path`` goes in, checked: it is there, and both are writable.

    The checks may raise OSError (a name too long): the caller says it as "cannot be written".
    """
    folder = path.parent if str(path.parent) else Path()
    if not folder.is_dir():
        msg = f"{flag} {str(path)!r}: the folder {str(folder)!r} does not exist"
        raise CliError(msg)
    if path.is_dir():
        msg = f"{flag} {str(path)!r}: is a folder; give a file name"
        raise CliError(msg)
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        msg = f"{flag} {str(path)!r}: not writable"
        raise CliError(msg)
    return folder


def check_output(path: Path) -> None:
    """Check, before any row is scored, that graded rows can be written to ``path``.

    Besides the folder, the file and the permissions, it makes the private folder and the file
    :func:`write_frame` will make (then removes them), so that whatever the file system refuses
    (a name too long, a read-only disk) is said now, not after the whole input was scored.
    """
    _format_of(path, "-o")
    try:
        folder = _checked_folder(path, "-o")
        # A signal in the probe takes effect once it is removed (so nothing is left behind).
        private = folder / private_name(".probe")
        with _signals_deferred():
            try:
                private.mkdir(mode=0o700)
                (private / path.name).touch(exist_ok=False)
            finally:
                _remove(private)
    except OSError as exc:
        msg = f"-o {str(path)!r}: cannot be written: {exc.strerror or _first_line(exc)}"
        raise CliError(msg) from None


#: How the private folders of :func:`write_frame` start: short and recognisable whatever the
#: target's name, followed by a tag of the host, the process id and a random part, so that a
#: later run can tell the leftovers of a run that was killed (SIGKILL, the OOM killer, a power
#: cut: nothing can clean up after those) from a folder a running writer still uses.
PRIVATE_PREFIX: Final = ".gradeframe-tmp-"


def _host_tag() -> str:
    host = socket.gethostname().encode("utf-8", "surrogateescape")
    return hashlib.sha256(host).hexdigest()[:8]


def private_name(suffix: str = ".tmp") -> str:
    """Return a new name for a private folder of :func:`write_frame` (in the target's folder).

    ``.probe`` names the one :func:`check_output` makes and removes at once.
    """
    return f"{PRIVATE_PREFIX}{_host_tag()}-{os.getpid()}-{secrets.token_hex(4)}{suffix}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process (EPERM): alive
        return True
    return True


def remove_stale_private_folders(folder: Path) -> list[str]:
    """Remove the private folders that killed runs on this host left in ``folder``; name them.

    A folder whose process still runs (or that another host made: its process cannot be seen
    from here) is left alone.
    """
    removed = []
    try:
        entries = [e.name for e in os.scandir(folder) if e.name.startswith(PRIVATE_PREFIX)]
    except OSError:
        return removed
    host = _host_tag()
    for name in entries:
        parts = name[len(PRIVATE_PREFIX) :].rsplit(".", 1)[0].split("-")
        if len(parts) != 3 or parts[0] != host or not parts[1].isdigit():
            continue
        if int(parts[1]) != os.getpid() and not _alive(int(parts[1])):
            _remove(folder / name)
            removed.append(name)
    return removed


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


#: What :func:`escape_formulas` writes: a ``'`` before = + - @ tab CR or ``'``. Only such a
#: ``'`` is removed on reading: a cell of the user's own that starts with ``'`` and then
#: another character ("'quoted") was never escaped (it would have been written "''quoted").
_ADDED_QUOTE: Final = r"^'[=+\-@\t\r']"


def unescape_formulas(frame: pl.DataFrame) -> pl.DataFrame:
    """Remove the ``'`` that :func:`escape_formulas` put before a text cell, and no other.

    ``unescape_formulas(escape_formulas(frame))`` is ``frame`` for every text.
    """
    return frame.with_columns(
        pl.when(pl.col(n).str.contains(_ADDED_QUOTE))
        .then(pl.col(n).str.slice(1))
        .otherwise(pl.col(n))
        .alias(n)
        for n in _text_columns(frame)
    )


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
    # an interrupt cannot make a file again in a folder that is gone. Its name is short and
    # says which process made it: a SIGKILL leaves it behind, and the next run removes it.
    folder = path.parent if str(path.parent) else Path()
    remove_stale_private_folders(folder)
    private = folder / private_name()
    temporary = private / path.name
    try:
        with _signals_deferred():  # a signal in the write takes effect when the write ends
            private.mkdir(mode=0o700)
            _write_rows(frame, fmt, temporary)
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


def _write_rows(frame: pl.DataFrame, fmt: str, temporary: Path) -> None:
    """Write the rows in ``fmt``; a path Polars cannot take (not UTF-8) goes through a handle."""
    try:
        str(temporary).encode("utf-8")
    except UnicodeEncodeError:  # bytes that are not UTF-8 in a folder's name
        with temporary.open("wb") as handle:
            _write_to(frame, fmt, handle)
        return
    _write_to(frame, fmt, temporary)


def _write_to(frame: pl.DataFrame, fmt: str, target: Any) -> None:
    if fmt == "parquet":
        frame.write_parquet(target)
    elif fmt == "csv":
        frame.write_csv(target)
    elif fmt == "json":
        frame.write_json(target)
    else:
        frame.write_ndjson(target)


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
        if not os.path.lexists(private):  # never raises (a name too long is not there)
            return
        time.sleep(0.05)  # a writer thread made a file in it again: once more


def check_html_output(path: Path) -> None:
    """Check, before any row is scored, that the page can be written to ``path``.

    As for ``-o``, the temporary file the page goes to first is made (and removed), so that a
    name too long or a read-only disk is said before the input is scored.
    """
    try:
        folder = _checked_folder(path, "--html")
        # the temporary name gradeframe.html.write_page uses
        with _signals_deferred():
            handle, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
            os.close(handle)
            os.unlink(probe)
    except OSError as exc:
        msg = f"--html {str(path)!r}: cannot be written: {exc.strerror or _first_line(exc)}"
        raise CliError(msg) from None
    try:
        import jinja2  # noqa: F401
    except ImportError:
        msg = "--html needs Jinja2: pip install 'gradeframe[html]'"
        raise CliError(msg) from None


def write_html(
    graded: pl.DataFrame,
    args: argparse.Namespace,
    *,
    by: list[str],
    source: str,
    answer: str | pl.Expr,
    refs: str | pl.Expr | bool,
    cost: Any = None,
) -> None:
    """Write the page of ``gradeframe.html`` for the graded rows (the same as ``df.grade.html``)."""
    from gradeframe.html import build_page, write_page

    def shown(column: str | pl.Expr | bool) -> str | bool:
        if isinstance(column, str | bool):
            return column  # False: no compared column (judge without expected verdicts)
        return column.meta.root_names()[0]

    page = build_page(
        graded,
        by=by or None,
        source=source,
        grader=_grader(args),
        actual=shown(answer),
        expected=shown(refs),
        prefix=args.prefix,
        cluster=args.cluster,
        cost=cost,
    )
    try:
        write_page(page, args.html)
    except OSError as exc:
        msg = f"--html {str(args.html)!r} cannot be written: {_first_line(exc)}"
        raise CliError(msg) from None


def _grader(args: argparse.Namespace) -> Any:
    """Name the grader as the page's summary shows it: answer_contains and the options given."""
    from gradeframe.html import Grader

    options = [f"--answer {args.answer}"] if args.answer else []
    if args.refs != "refs":
        options.append(f"--refs {args.refs}")
    if args.expected:
        options.append(f"--expected {args.expected}")
    options += [f"--option {item}" for item in args.option or []]
    if args.extract:
        options.append(f"--extract {args.extract}")
    for flag in ("whole_words", "refusals", "explain"):
        if getattr(args, flag, False):
            options.append("--" + flag.replace("_", "-"))
    options += [f"--not-found {phrase!r}" for phrase in args.not_found or []]
    if args.prefix:
        options.append(f"--prefix {args.prefix!r}")
    if args.cluster:
        options.append(f"--cluster {args.cluster}")
    return Grader(args.grader, options)
