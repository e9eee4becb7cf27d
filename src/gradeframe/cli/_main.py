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
from gradeframe.cli.reading import RECORD_FIELDS, Input, read_columns, read_input
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


#: The columns ``--grader judge`` adds: an earlier judging is replaced when all are there.
_JUDGE_OUTPUTS = ("correct", "failure_kind", "verdict", "score", "grader_failure")


def _drop_earlier_grading(frame: pl.DataFrame, prefix: str) -> pl.DataFrame:
    """Replace the output columns of an earlier grading (they all end up re-added).

    An earlier grading is answer_contains' three columns, or a matcher's ``correct`` and
    ``expectation``; with either, the other columns gradeframe adds are replaced too.
    """
    ours = [prefix + name for name in OUTPUT_COLUMNS]
    matcher = [prefix + "correct", prefix + "expectation"]
    judged = [prefix + name for name in _JUDGE_OUTPUTS]
    if all(name in frame.columns for name in judged):
        return frame.drop(judged)
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
    if args.grader == graders.JUDGE:
        only_answer_contains["--extract"] = args.extract
    for flag, value in only_answer_contains.items():
        if value:
            msg = f"{flag} applies to --grader answer_contains only, not to --grader {args.grader}"
            if flag == "--extract":
                msg = (
                    "--extract takes the answer out of a reply; --grader judge reads the "
                    "verdict from the judge's reply (--option text=COL) by its --option scheme"
                )
            raise CliError(msg)
    return grade, options


#: The columns a matcher's own function reads by default (actual, expected), taken before the
#: input's answer and expected columns when --answer / --expected are not given.
_GRADER_COLUMNS = {"tool_calls": ("tool_calls", "expected_calls")}


def _answer_name(args: argparse.Namespace, schema: pl.Schema, default: str) -> str:
    """Return the answer column: --answer, else the grader's own default column, else the input's.

    ``--grader tool_calls`` on a file with a ``tool_calls`` column grades that column (an
    evaluation log's reader adds it next to the output record).
    """
    if args.answer:
        return args.answer
    own = _GRADER_COLUMNS.get(args.grader)
    if own is not None and own[0] in schema:
        return own[0]
    return default


def _compared_name(args: argparse.Namespace, schema: pl.Schema) -> str:
    """Return the column the answer is compared with: --refs, or a matcher's --expected.

    A matcher without --expected compares with its own default column when the input has it
    (``expected_calls`` for tool_calls), else the input's ``expected`` column, else the --refs
    column (``refs`` by default). ``--grader judge`` compares with nothing unless told
    (:func:`_judge_columns`).
    """
    if args.grader == graders.DEFAULT_GRADER or args.expected is not None:
        return args.expected or args.refs
    own = [_GRADER_COLUMNS[args.grader][1]] if args.grader in _GRADER_COLUMNS else []
    candidates = [*own, "expected", args.refs]
    for name in candidates:
        if name in schema:
            return name
    named = " or ".join(repr(name) for name in candidates)
    msg = (
        f"--grader {args.grader} compares the answer with a column: the input has no "
        f"{named} column; name it with --expected COL"
    )
    raise CliError(msg)


def _judge_columns(
    args: argparse.Namespace, schema: pl.Schema, options: dict[str, Any], default_answer: str
) -> tuple[str | pl.Expr | None, str | None]:
    """Return judge's model output record and expected verdicts, checking ``--option text``.

    The record is ``--answer`` (or ``--option answer=COL``) when given, else the input's answer
    column when it has one, else none (the judge's text alone decides). Expected verdicts
    (yes/no items) are read only when named, by ``--expected COL`` or ``--option
    expected=COL``: a ``refs`` or ``expected`` column holds acceptable answers, not verdicts,
    and is never taken for them.
    """
    text = options.get("text", graders.JUDGE_TEXT)
    if not isinstance(text, str) or text not in schema:
        named = "--option text=" + str(text) if "text" in options else None
        where = (
            f"{named}: the input has no column {text!r}"
            if named
            else (
                f"--grader judge reads the grader's replies from a column: the input has no "
                f"{graders.JUDGE_TEXT!r} column"
            )
        )
        msg = f"{where}; name the column of judge replies with --option text=COL"
        raise CliError(msg)
    expected = options.pop("expected", None)
    if expected is not None and args.expected is not None and expected != args.expected:
        msg = (
            f"--expected {args.expected} and --option expected={expected} name two columns; "
            "give one"
        )
        raise CliError(msg)
    flag = "--expected" if args.expected is not None else "--option expected="
    expected = args.expected if args.expected is not None else expected
    if expected is not None:
        if not isinstance(expected, str):
            msg = f"--option expected={expected}: name a column of expected verdicts"
            raise CliError(msg)
        try:
            check_column(schema, expected, "__flag__")
        except CliError as exc:
            said = str(exc).replace("__flag__ ", "--expected " if flag == "--expected" else flag)
            raise CliError(said) from None
    record = options.pop("answer", None)
    if record is not None and args.answer is not None and record != args.answer:
        msg = f"--answer {args.answer} and --option answer={record} name two columns; give one"
        raise CliError(msg)
    if args.answer is not None or record is not None:
        name = args.answer if args.answer is not None else str(record)
        flag = "--answer" if args.answer is not None else "--option answer="
        try:
            return column_or_field(schema, name, "__flag__"), expected
        except CliError as exc:
            said = str(exc).replace("__flag__ ", "--answer " if flag == "--answer" else flag)
            raise CliError(said) from None
    return (default_answer if default_answer in schema else None), expected


def _graded_columns(
    args: argparse.Namespace, frame: pl.DataFrame, default_answer: str, options: dict[str, Any]
) -> tuple[Any, Any]:
    """Return the answer and the column it is compared with (judge: the record and verdicts).

    Either may be None under judge (no model record, no expected verdicts).
    """
    if args.grader == graders.JUDGE:
        answer_name = args.answer or str(options.get("answer", default_answer))
        answer, refs = _judge_columns(args, frame.schema, options, default_answer)
    else:
        answer_name = _answer_name(args, frame.schema, default_answer)
        answer = column_or_field(frame.schema, answer_name, "--answer")
        compared = _compared_name(args, frame.schema)
        refs = column_or_field(frame.schema, compared, _compared_flag(args))
    if answer is not None:
        check_record(frame, answer, answer_name)
    return answer, refs


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
    _check_before_work(args)
    given = read_input(args)
    frame = _drop_earlier_grading(given.frame, args.prefix)
    by = _group_by(args.by) or given.by
    if "lm_eval_filter" in given.by and "lm_eval_filter" not in by:
        given.notes.append(
            "note: lm-eval tasks here were scored with several filters, and this report pools "
            "their verdicts; add --by lm_eval_filter for one figure per filter"
        )
    grade, grade_options = _grader_and_options(args)
    answer, refs = _graded_columns(args, frame, given.answer, grade_options)
    record = {field: getattr(args, field) for field in RECORD_FIELDS}
    frame = read_columns(frame, answer, None if args.grader == graders.JUDGE else refs, record)
    for name in by:
        check_column(frame.schema, name, "--by")
    if args.samples is not None:
        _check_items(args, frame.schema)
    options = _report_options(args, frame.schema)
    frame, graded_answer, compared = _what_is_graded(args, frame, answer, refs)
    if args.grader == graders.DEFAULT_GRADER:
        grade_options = _answer_contains_options(args, grade_options)
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
    if args.output is not None:
        # first: a closed pipe on stdout must not lose it
        write_frame(graded, args.output, escape=args.escape_formulas, err=err)
    shown_answer, shown_refs = _shown_columns(args, answer, refs, grade_options)
    if args.html is not None:  # before printing too
        write_html(
            usage,
            args,
            by=by,
            source=given.source,
            answer=shown_answer,
            refs=shown_refs,
            cost=options.get("cost"),
        )
    shown = {"answer": shown_answer, "refs": shown_refs}
    _print_results(args, given, by, table, graded, answer, shown, out, err)
    return 0


def _check_before_work(args: argparse.Namespace) -> None:
    """Check the numbers given and the places to write before reading anything."""
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


def _what_is_graded(
    args: argparse.Namespace, frame: pl.DataFrame, answer: Any, refs: Any
) -> tuple[pl.DataFrame, Any, Any]:
    """Return the frame (with ``--extract``'s column), the answer graded and what it meets.

    ``--extract`` grades what it takes from the answer; a matcher compares the record's text;
    a grader with a reader of its own reads the expected column its way.
    """
    graded_answer, compared = answer, refs
    if args.extract is not None:
        extracted = args.prefix + graders.EXTRACTED
        frame = frame.drop(extracted, strict=False)  # an earlier run's, replaced
        text = graders.extracted_text(frame.schema, answer, args.extract)
        frame = frame.with_columns(text.alias(extracted))
        graded_answer = graders.with_extracted(frame.schema, answer, extracted)
        if args.grader != graders.DEFAULT_GRADER:
            graded_answer = extracted  # a matcher compares the extracted text itself
    elif args.grader not in (graders.DEFAULT_GRADER, graders.JUDGE):
        # judge reads the whole output record (its status, trace, ...), as answer_contains does
        graded_answer = graders.record_text(frame.schema, answer)
    if args.grader in graders.EXPECTED_READERS:
        compared = graders.EXPECTED_READERS[args.grader](frame, refs, _compared_flag(args))
    return frame, graded_answer, compared


def _answer_contains_options(
    args: argparse.Namespace, grade_options: dict[str, Any]
) -> dict[str, Any]:
    """Return answer_contains' options: the flags' values, then the ``--option`` ones."""
    return {
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


def _print_results(
    args: argparse.Namespace,
    given: Input,
    by: list[str],
    table: pl.DataFrame,
    graded: pl.DataFrame,
    answer: Any,
    shown: dict[str, Any],
    out: TextIO,
    err: TextIO,
) -> None:
    """Print the headline, notes, report and what the flags ask for; say what was written."""
    n_correct = int(table.get_column("n_correct").sum())
    share = _share(table, n_correct, graded.height)
    grouped = f", by {', '.join(by)}" if by else ""
    answers = _noun(graded.height, "answer")
    print(f"{answers} from {given.source}: {n_correct:,} right{share}{grouped}", file=out)
    for note in given.notes:
        print(note, file=out)
    print_report(table, out)
    if args.samples is not None:
        print_samples(graded, args, by, answer, out)
    print_tool_agreement(graded, args, out, given.folder)
    if args.failures:
        context = [answer] if args.grader == graders.JUDGE and isinstance(answer, str) else []
        shown = shown | {"context": context}
        print_failures(graded, args, out, by=by, folder=given.folder, **shown)
    if args.output is not None and not args.quiet:
        rows = _noun(graded.height, "graded row")
        print(f"gradeframe: wrote {rows} to {args.output}", file=err)
    if args.html is not None and not args.quiet:
        print(f"gradeframe: wrote the HTML page to {args.html}", file=err)


def _share(table: pl.DataFrame, n_correct: int, n: int) -> str:
    """Return the headline's share right: of all rows, or of the graded ones under judge.

    As the accuracy, a grader's failure is not the model's and is left out of the share.
    """
    not_graded = int(table.get_column("grader_failure").sum()) if "n_graded" in table else 0
    if not not_graded:
        return f" ({n_correct / n:.1%})" if n else ""
    n_graded = n - not_graded
    share = f" of {n_graded:,} graded ({n_correct / n_graded:.1%})" if n_graded else ""
    return share + f", {_noun(not_graded, 'grader failure')}"


def _shown_columns(
    args: argparse.Namespace, answer: Any, refs: Any, grade_options: dict[str, Any]
) -> tuple[str | pl.Expr, str | pl.Expr | bool]:
    """Return what the failure list and the page show: the answer and what it was compared with.

    For judge, the judge's reply (it holds the reason) and the expected verdicts when given
    (False: none).
    """
    shown_refs = refs if refs is not None else False
    if args.grader == graders.JUDGE:
        return grade_options.get("text", graders.JUDGE_TEXT), shown_refs
    return answer, shown_refs


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
