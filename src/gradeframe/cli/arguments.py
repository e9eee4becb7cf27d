"""The command line's arguments: the parser of ``gradeframe score``."""

from __future__ import annotations

import argparse
import importlib.metadata
from pathlib import Path

from gradeframe.cli._common import CHUNK_ROWS

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
    if not ks or min(ks) < 1 or max(ks) > 2**63 - 1:
        msg = (
            "must be whole numbers from 1 to 2**63 - 1 separated by commas (e.g. 1,4,16), "
            f"got {value!r}"
        )
        raise argparse.ArgumentTypeError(msg)
    return ks


def _rows(value: str) -> int:
    """Read a number of rows to list: any whole number; one beyond Int64 means "all of them"."""
    try:
        rows = int(value)
    except ValueError:
        msg = f"must be a whole number, got {value!r}"
        raise argparse.ArgumentTypeError(msg) from None
    return min(rows, 2**63 - 1)  # no frame has more rows; Polars' head() takes at most this


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
            "match words whole: 'UK' is not in 'Ukraine', 'No' is not in 'I know' (for short "
            "names and abbreviations; grade yes/no items with --grader judge)"
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
    grading = score_parser.add_argument_group("grader")
    grading.add_argument(
        "--grader",
        default="answer_contains",
        metavar="NAME",
        help=(
            "the grader: answer_contains (the default: an acceptable answer in the reply, with "
            "failure kinds), a matcher, which compares the answer with --expected: "
            "exact_match, includes, matches, within, choice, f1, equivalent, tool_calls; or "
            "judge, the verdict read from a judge's reply (--option text=COL)"
        ),
    )
    grading.add_argument(
        "--expected",
        metavar="COL",
        help=(
            "the column a matcher compares the answer with (default: expected when the input "
            "has it, else the --refs column); for judge, the expected verdicts of yes/no items"
        ),
    )
    grading.add_argument(
        "--option",
        action="append",
        metavar="KEY=VALUE",
        help=(
            "an option of the grader (repeat): the value is read as JSON when it is JSON "
            "(ignore_case=false, delta=0.5), else as text (letters=ABCD)"
        ),
    )
    grading.add_argument(
        "--extract",
        metavar="boxed|answer|number|REGEX",
        help=(
            "grade what this takes from the answer, not the whole reply: the last \\boxed{}, "
            "the text after a final 'ANSWER:' line, the last number, or a regular expression's "
            "first group (its whole match without one); added as the column extracted"
        ),
    )
    grading.add_argument(
        "--explain",
        action="store_true",
        help=(
            "answer_contains: add matched (the acceptable answer found) and near_miss (one "
            "found only inside a longer number or word) to the output and the listings"
        ),
    )
    evaluation = score_parser.add_argument_group("evaluation logs")
    evaluation.add_argument(
        "--from",
        dest="from_tool",
        metavar="TOOL",
        help=(
            "read FILE (or the folder) as logs of this tool: inspect, lm_eval, promptfoo, "
            "openai_evals, helm, eee (Every Eval Ever), deepeval, braintrust, langsmith, "
            "phoenix (default: recognised from each file)"
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
        type=_rows,
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
        "--cost",
        type=Path,
        metavar="PRICES",
        help=(
            "add tokens, cost, cost per right answer, latency and the cost/accuracy frontier to "
            "the report, at these prices: a .json {model: {input, output, cache_read, "
            "reasoning}} or a .csv with those columns, in dollars per million tokens"
        ),
    )
    score_parser.add_argument(
        "--failures",
        type=_rows,
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
