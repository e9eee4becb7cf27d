"""``gradeframe score``: read, grade, write and print, with errors as one line."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any, TextIO

import polars as pl

from gradeframe.cli._common import (
    EXIT_ERROR,
    OUTPUT_COLUMNS,
    CliError,
    _first_line,
    _group_by,
    check_column,
    check_record,
    column_or_field,
    in_cli_words,
)
from gradeframe.cli.arguments import _parser
from gradeframe.cli.printing import (
    _noun,
    print_failures,
    print_report,
    print_samples,
    print_tool_agreement,
)
from gradeframe.cli.reading import RECORD_FIELDS, read_columns, read_input
from gradeframe.cli.scoring import score
from gradeframe.cli.writing import (
    _Terminated,
    check_html_output,
    check_not_an_input,
    check_output,
    write_frame,
    write_html,
)
from gradeframe.report import report


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
    record = {field: getattr(args, field) for field in RECORD_FIELDS}
    frame = read_columns(frame, answer, refs, record)
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
