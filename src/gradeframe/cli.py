"""The command line: ``gradeframe score FILE`` grades a file of answers and prints the report.

Inputs are read by extension: ``.parquet``, ``.csv``, ``.jsonl`` / ``.ndjson`` (JSON Lines, with
nested output records) and ``.json`` (an array of records, or JSON Lines). ``-o OUT`` writes the
graded rows, in the format its extension names. The report (see :func:`gradeframe.report`) goes
to stdout as a table; progress goes to stderr when scoring takes more than a couple of seconds.

A text ``refs`` cell is one acceptable answer, unless it is a JSON list (it starts with ``[``, as
in ``["12400", "12,400"]``): then each item is one. CSV holds text only, and Polars reads a JSON
Lines column that mixes lists and strings as JSON text, so both are read this way. When graded rows
are written to CSV, nested columns (lists, structs) are written as JSON text.

Errors (a missing or unreadable file, a missing column) end with one line on stderr and exit
status 2; no traceback.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Final, TextIO

import polars as pl

from gradeframe import answer as answer_rules
from gradeframe._inputs import check_column
from gradeframe.example import example
from gradeframe.report import report

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

#: Progress lines start once scoring has run this many seconds, and come at most this often.
PROGRESS_AFTER: Final = 2.0
PROGRESS_EVERY: Final = 1.0

#: The exit status of a usage or input error.
EXIT_ERROR: Final = 2


class CliError(Exception):
    """An error shown to the user as one line, with exit status 2."""


# --------------------------------------------------------------------------------------------
# Reading and writing
# --------------------------------------------------------------------------------------------


def _format_of(path: Path, what: str) -> str:
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        known = ", ".join(FORMATS)
        msg = f"{what} {str(path)!r}: unknown extension {path.suffix!r}; use one of {known}"
        raise CliError(msg)
    return fmt


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def read_frame(path: Path) -> pl.DataFrame:
    """Read a file of answers by its extension."""
    fmt = _format_of(path, "input")
    if not path.exists():
        msg = f"input {str(path)!r}: no such file"
        raise CliError(msg)
    if path.is_dir():
        msg = f"input {str(path)!r}: is a directory, not a file"
        raise CliError(msg)
    try:
        if fmt == "parquet":
            return pl.read_parquet(path)
        if fmt == "csv":
            return pl.read_csv(path, infer_schema_length=10_000)
        if fmt == "json" and _starts_with_bracket(path):
            return pl.read_json(path, infer_schema_length=None)
        return pl.read_ndjson(path, infer_schema_length=None)
    except (OSError, pl.exceptions.PolarsError, ValueError) as exc:
        msg = f"input {str(path)!r} cannot be read as {fmt}: {_first_line(exc)}"
        raise CliError(msg) from None


def _starts_with_bracket(path: Path) -> bool:
    with path.open("rb") as handle:
        head = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"[")


def csv_refs(frame: pl.DataFrame, refs: str) -> pl.DataFrame:
    """Read a text refs column: a JSON list cell holds several acceptable answers, else one."""
    if refs not in frame.columns or frame.schema[refs] != pl.String:
        return frame
    column = pl.col(refs)
    is_list = column.str.strip_chars_start().str.starts_with("[").fill_null(value=False)
    if not frame.select(is_list.any()).item():
        return frame
    decoded = pl.when(is_list).then(column).str.json_decode(pl.List(pl.String))
    parsed = pl.when(is_list).then(decoded).otherwise(pl.concat_list(column))
    try:
        return frame.with_columns(parsed.alias(refs))
    except pl.exceptions.PolarsError as exc:
        msg = (
            f"`--refs {refs}`: a cell that starts with '[' is not a JSON list ({_first_line(exc)})"
        )
        raise CliError(msg) from None


def _json_text(name: str) -> pl.Expr:
    """Write a nested column as JSON text (for CSV, which holds text only)."""
    encoded = pl.struct(pl.col(name).alias("v")).struct.json_encode()
    return encoded.str.slice(5, encoded.str.len_chars() - 6).alias(name)  # strip {"v": ... }


def write_frame(frame: pl.DataFrame, path: Path) -> None:
    """Write graded rows by the extension of ``path``."""
    fmt = _format_of(path, "output")
    try:
        if fmt == "parquet":
            frame.write_parquet(path)
        elif fmt == "csv":
            nested = [n for n, d in frame.schema.items() if d.is_nested()]
            frame.with_columns(_json_text(n) for n in nested).write_csv(path)
        elif fmt == "json":
            frame.write_json(path)
        else:
            frame.write_ndjson(path)
    except (OSError, pl.exceptions.PolarsError) as exc:
        msg = f"output {str(path)!r} cannot be written: {_first_line(exc)}"
        raise CliError(msg) from None


# --------------------------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------------------------


def score(
    frame: pl.DataFrame,
    *,
    chunk_rows: int = CHUNK_ROWS,
    progress: TextIO | None = None,
    **kwargs: object,
) -> pl.DataFrame:
    """Grade a frame with answer_contains, in chunks of rows, reporting progress on long runs."""
    # Check the columns and arguments once, on the whole frame, before any row is scored.
    answer_rules.with_answer_contains(frame.clear(), **kwargs)  # type: ignore[arg-type]
    total = frame.height
    if total <= chunk_rows:
        return answer_rules.with_answer_contains(frame, **kwargs)  # type: ignore[arg-type]
    start = time.perf_counter()
    shown = False
    last = -PROGRESS_EVERY
    parts = []
    for offset in range(0, total, chunk_rows):
        chunk = frame.slice(offset, chunk_rows)
        parts.append(answer_rules.with_answer_contains(chunk, **kwargs))  # type: ignore[arg-type]
        elapsed = time.perf_counter() - start
        if progress is not None and elapsed >= PROGRESS_AFTER and elapsed - last >= PROGRESS_EVERY:
            last = elapsed
            done = min(offset + chunk_rows, total)
            rate = done / elapsed
            left = (total - done) / rate if rate else 0.0
            print(
                f"gradeframe: scored {done:,} of {total:,} rows ({done / total:.0%}), "
                f"{elapsed:.1f} s, about {left:.0f} s left",
                file=progress,
                flush=True,
            )
            shown = True
    if progress is not None and shown:
        print(
            f"gradeframe: scored {total:,} rows in {time.perf_counter() - start:.1f} s",
            file=progress,
            flush=True,
        )
    return pl.concat(parts, how="vertical")


def format_report(table: pl.DataFrame) -> str:
    """Return the report as a plain text table with every row and column shown."""
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


# --------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gradeframe",
        description="Grade model answers held in a table, and explain every failure.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    score_parser = commands.add_parser(
        "score",
        help="score answers against acceptable answers (answer_contains) and print a report",
        description=(
            "Score each answer against its acceptable answers (answer_contains: folded text, "
            "numbers matched whole) and print accuracy, its 95% Wilson interval and failure "
            "counts by kind, per group. Inputs: .parquet, .csv, .jsonl/.ndjson, .json. In CSV, "
            "a refs cell is one acceptable answer unless it is a JSON list."
        ),
    )
    source = score_parser.add_mutually_exclusive_group(required=True)
    source.add_argument("file", nargs="?", type=Path, help="the answers to score")
    source.add_argument(
        "--example", action="store_true", help="score the bundled example (grouped by model)"
    )
    columns = score_parser.add_argument_group("columns")
    columns.add_argument(
        "--answer",
        default="answer",
        metavar="COL",
        help="answer text, or a struct holding the whole output record (default: answer)",
    )
    columns.add_argument(
        "--refs", default="refs", metavar="COL", help="acceptable answers (default: refs)"
    )
    columns.add_argument(
        "--by",
        action="append",
        metavar="COL",
        help="group the report by these columns (repeat, or separate with commas)",
    )
    for role in ("partial", "notes", "trace", "status", "failure-kind"):
        columns.add_argument(
            f"--{role}",
            metavar="COL",
            help=f"a flat {role.replace('-', '_')} column (wins over the struct field)",
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
        "--chunk-rows",
        type=int,
        default=CHUNK_ROWS,
        metavar="N",
        help=f"rows scored at a time (default: {CHUNK_ROWS:,})",
    )
    score_parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    return parser


def _group_by(values: list[str] | None) -> list[str]:
    names = [part.strip() for value in values or [] for part in value.split(",")]
    return [name for name in names if name]


def _run_score(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.chunk_rows < 1:
        msg = f"--chunk-rows must be at least 1, got {args.chunk_rows}"
        raise CliError(msg)
    if args.output is not None:
        _format_of(args.output, "output")  # before any work
    if args.example:
        frame, source = example(), "the bundled example"
        by = _group_by(args.by) or ["model"]
    else:
        frame, source = read_frame(args.file), repr(str(args.file))
        by = _group_by(args.by)
        # CSV holds text only, and a JSON Lines file whose refs mix lists and strings is read
        # with the lists as JSON text: either way, a cell that is a JSON list is a list.
        frame = csv_refs(frame, args.refs)
    for name in by:
        check_column(frame.schema, name, "--by")
    graded = score(
        frame,
        chunk_rows=args.chunk_rows,
        progress=None if args.quiet else err,
        answer=args.answer,
        refs=args.refs,
        partial=args.partial,
        notes=args.notes,
        trace=args.trace,
        status=args.status,
        failure_kind=args.failure_kind,
        prefix=args.prefix,
    )
    table = report(
        graded,
        by or None,
        correct=args.prefix + "correct",
        failure_kind=args.prefix + "failure_kind",
    )
    n_correct = int(table.get_column("n_correct").sum())
    share = f" ({n_correct / graded.height:.1%})" if graded.height else ""
    grouped = f", by {', '.join(by)}" if by else ""
    print(f"{graded.height:,} answers from {source}: {n_correct:,} right{share}{grouped}", file=out)
    print(format_report(table), file=out)
    if args.output is not None:
        write_frame(graded, args.output)
        if not args.quiet:
            print(f"gradeframe: wrote {graded.height:,} graded rows to {args.output}", file=err)
    return 0


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
    | model       | n   | n_correct | accuracy | ci_low | ci_high | no_reference | ...
    ...
    0
    """
    parser = _parser()
    args = parser.parse_args(argv)
    out, err = sys.stdout, sys.stderr
    try:
        return _run_score(args, out, err)
    except CliError as exc:
        print(f"gradeframe: error: {exc}", file=err)
    except (pl.exceptions.PolarsError, KeyError, TypeError, ValueError) as exc:
        print(f"gradeframe: error: {_first_line(exc)}", file=err)
    except KeyboardInterrupt:
        print("gradeframe: interrupted", file=err)
        return 130
    return EXIT_ERROR


if __name__ == "__main__":
    raise SystemExit(main())
