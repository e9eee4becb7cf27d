"""``gradeframe score``: read, grade, write and print, with errors as one line."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import warnings
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import FrameType
from typing import Any, TextIO

import polars as pl

from gradeframe._inputs import ITEM_DEFAULTS
from gradeframe._record import StatusWarning, unread_status_message
from gradeframe.cli import graders
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
from gradeframe.cli.prices import numeric_usage, read_prices
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

#: The columns a matcher or ``--explain``/``--extract`` adds besides answer_contains' own.
_OTHER_OUTPUTS = (
    "matched",
    "near_miss",
    "extracted",
    "chosen",
    "missing",
    "extra",
    "method",
    "tolerance",
    "difference",
    "f1",
)


def _drop_earlier_grading(frame: pl.DataFrame, prefix: str) -> pl.DataFrame:
    """Replace the output columns of an earlier grading (they all end up re-added).

    An earlier grading is answer_contains' three columns, or a matcher's ``correct`` and
    ``expectation``; with either, the other columns gradeframe adds are replaced too.
    """
    ours = [prefix + name for name in OUTPUT_COLUMNS]
    matcher = [prefix + "correct", prefix + "expectation"]
    if not (
        all(name in frame.columns for name in ours)
        or all(name in frame.columns for name in matcher)
    ):
        return frame
    names = [*ours, *matcher, *(prefix + name for name in _OTHER_OUTPUTS)]
    return frame.drop([name for name in names if name in frame.columns])


def _grader_and_options(args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    """Return the ``--grader`` function and its ``--option`` values; refuse flags it ignores."""
    grade = graders.grader(args.grader)
    options = graders.parse_options(args.grader, args.option)
    if args.grader == graders.DEFAULT_GRADER:
        if args.expected is not None:
            msg = (
                f"--expected {args.expected}: answer_contains reads the acceptable answers from "
                "--refs; --expected names the column a matcher (--grader NAME) compares with"
            )
            raise CliError(msg)
        return grade, options
    only_answer_contains = {
        "--whole-words": args.whole_words,
        "--refusals": args.refusals,
        "--not-found": args.not_found,
        "--explain": args.explain,
        **{f"--{role.replace('_', '-')}": getattr(args, role) for role in RECORD_FIELDS},
    }
    for flag, value in only_answer_contains.items():
        if value:
            msg = f"{flag} applies to --grader answer_contains only, not to --grader {args.grader}"
            raise CliError(msg)
    return grade, options


def _compared_name(args: argparse.Namespace, schema: pl.Schema) -> str:
    """Return the column the answer is compared with: --refs, or a matcher's --expected.

    A matcher without --expected compares with the input's ``expected`` column, else with the
    --refs column (``refs`` by default).
    """
    if args.grader == graders.DEFAULT_GRADER or args.expected is not None:
        return args.expected or args.refs
    for name in ("expected", args.refs):
        if name in schema:
            return name
    msg = (
        f"--grader {args.grader} compares the answer with a column: the input has no "
        f"'expected' or {args.refs!r} column; name it with --expected COL"
    )
    raise CliError(msg)


def _check_items(args: argparse.Namespace, schema: pl.Schema) -> None:
    """Before scoring: ``--samples`` needs the column(s) naming an item (``--on``, or a default)."""
    names = _group_by(args.on)
    for name in names:
        check_column(schema, name, "--on")
    if not names and not any(all(n in schema for n in item) for item in ITEM_DEFAULTS):
        msg = (
            "--samples needs the column(s) naming an item, and the input has none of the "
            "default ones (question_id, task with sample_id, or sample_id): name them with "
            f"--on COL (columns: {', '.join(list(schema)[:12])})"
        )
        raise CliError(msg)


def _compared_flag(args: argparse.Namespace) -> str:
    return "--refs" if args.grader == graders.DEFAULT_GRADER else "--expected"


def _report_options(args: argparse.Namespace, schema: pl.Schema) -> dict[str, Any]:
    options: dict[str, Any] = {}
    if args.cost is not None:
        options["cost"] = read_prices(args.cost)
    if args.cluster is None:
        return options
    check_column(schema, args.cluster, "--cluster")
    return options | {"cluster": args.cluster}


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
    grade, grade_options = _grader_and_options(args)
    answer_name = args.answer or given.answer
    answer = column_or_field(frame.schema, answer_name, "--answer")
    refs = column_or_field(frame.schema, _compared_name(args, frame.schema), _compared_flag(args))
    check_record(frame, answer, answer_name)
    record = {field: getattr(args, field) for field in RECORD_FIELDS}
    frame = read_columns(frame, answer, refs, record)
    for name in by:
        check_column(frame.schema, name, "--by")
    if args.samples is not None:
        _check_items(args, frame.schema)
    options = _report_options(args, frame.schema)
    graded_answer, compared = answer, refs
    if args.extract is not None:
        extracted = args.prefix + graders.EXTRACTED
        frame = frame.drop(extracted, strict=False)  # an earlier run's, replaced
        text = graders.extracted_text(frame.schema, answer, args.extract)
        frame = frame.with_columns(text.alias(extracted))
        graded_answer = graders.with_extracted(frame.schema, answer, extracted)
        if args.grader != graders.DEFAULT_GRADER:
            graded_answer = extracted  # a matcher compares the extracted text itself
    elif args.grader != graders.DEFAULT_GRADER:
        graded_answer = graders.record_text(frame.schema, answer)
    if args.grader in graders.EXPECTED_READERS:
        compared = graders.EXPECTED_READERS[args.grader](frame, refs, _compared_flag(args))
    if args.grader == graders.DEFAULT_GRADER:
        grade_options = {
            "partial": args.partial,
            "notes": args.notes,
            "trace": args.trace,
            "status": args.status,
            "failure_kind": args.failure_kind,
            "not_found": args.not_found,
            "refusal": True if args.refusals else None,
            "whole_words": args.whole_words,
            "explain": args.explain,
            **grade_options,
        }
    with _statuses_said_once(err):
        graded = score(
            frame,
            grade=grade,
            chunk_rows=args.chunk_rows,
            progress=None if args.quiet else err,
            answer=graded_answer,
            refs=compared,
            prefix=args.prefix,
            **grade_options,
        )
    # A CSV's cells are text: the token counts and seconds the cost columns read are numbers.
    usage = numeric_usage(graded) if args.cost is not None else graded
    table = report(usage, by or None, prefix=args.prefix, **options)
    n_correct = int(table.get_column("n_correct").sum())
    share = f" ({n_correct / graded.height:.1%})" if graded.height else ""
    grouped = f", by {', '.join(by)}" if by else ""
    answers = _noun(graded.height, "answer")
    if args.output is not None:
        # first: a closed pipe on stdout must not lose it
        write_frame(graded, args.output, escape=args.escape_formulas, err=err)
    if args.html is not None:  # before printing too
        write_html(
            usage,
            args,
            by=by,
            source=given.source,
            answer=answer,
            refs=refs,
            cost=options.get("cost"),
        )
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
def _statuses_said_once(err: TextIO) -> Iterator[None]:
    """Say the status values no vocabulary reads in one line on stderr, for all the chunks.

    Each chunk's grading warns about its own rows (:class:`StatusWarning`); their counts are
    added up and said once. Other warnings pass through as they were.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    counts: Counter[str] = Counter()
    for item in caught:
        if isinstance(item.message, StatusWarning):
            counts.update(dict(item.message.counts))
        else:
            warnings.warn_explicit(item.message, item.category, item.filename, item.lineno)
    if counts:
        ordered = sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))
        print(f"gradeframe: warning: {unread_status_message(ordered)}", file=err)


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
        message = in_cli_words(_first_line(exc))
        print(f"gradeframe: error: {graders.options_in_cli_words(args.grader, message)}", file=err)
    except KeyboardInterrupt:
        print("gradeframe: interrupted", file=err)
        return 130
    except BrokenPipeError:
        # The reader went away (`gradeframe score ... | head`): stop quietly, as `cat` does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return EXIT_ERROR
