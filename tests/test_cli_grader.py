"""gradeframe score --grader NAME --expected COL --option KEY=VALUE, --extract and --explain.

Each runs in process (gradeframe.cli.main) on a CSV written here, and its verdicts are held to
the library's own on the same rows read as the command line reads them (gradeframe.read_table).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import gradeframe as gf
from gradeframe.cli import graders, main

ROWS = {
    "question_id": ["q1", "q2", "q3", "q4", "q5", "q6"],
    "model": ["m1", "m1", "m1", "m2", "m2", "m2"],
    "reply": [
        "The answer is \\boxed{12}.\nANSWER: 12",
        "Paris, I think.\nANSWER: paris",
        "It is 45.2 m tall.\nANSWER: 145.2",
        "ANSWER: B",
        "I would say 7, maybe 8.\nANSWER: 8",
        "",
    ],
    "gold": ["12", "Paris", "45.2", "B", "7", "A"],
    "refs": ['["12"]', '["Paris"]', '["45.2"]', '["B"]', '["7"]', '["A"]'],
}


def run(*args: str) -> tuple[int, str, str]:
    """Run ``gradeframe ARGS`` in process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as exc:  # argparse usage errors
            status = int(exc.code or 0)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    path = tmp_path / "runs.csv"
    pl.DataFrame(ROWS).write_csv(path)
    return path


def graded_by_cli(runs: Path, tmp_path: Path, *args: str) -> pl.DataFrame:
    out = tmp_path / "graded.parquet"
    status, _, err = run("score", str(runs), "--answer", "reply", "-o", str(out), "-q", *args)
    assert status == 0, err
    return pl.read_parquet(out)


MATCHERS = [
    ("exact_match", [], lambda f: f.grade.exact_match("reply", "gold")),
    ("includes", [], lambda f: f.grade.includes("reply", "gold")),
    ("f1", ["threshold=0.2"], lambda f: f.grade.f1("reply", "gold", threshold=0.2)),
    ("matches", ["pattern=^The"], lambda f: f.grade.matches("reply", r"^The")),
]


@pytest.mark.parametrize(("name", "options", "library"), MATCHERS, ids=[m[0] for m in MATCHERS])
def test_grader_gives_the_matchers_verdicts(runs, tmp_path, name, options, library) -> None:
    extra = [arg for option in options for arg in ("--option", option)]
    got = graded_by_cli(runs, tmp_path, "--grader", name, "--expected", "gold", *extra)
    want = library(gf.read_table(runs))
    assert got["correct"].to_list() == want["correct"].to_list()
    assert got["expectation"].to_list() == want["expectation"].to_list()


def test_choice_grader_with_its_letters_as_text(tmp_path) -> None:
    path = tmp_path / "mcq.csv"
    frame = pl.DataFrame(
        {"reply": ["ANSWER: B", "(a)", "C", "The answer is A"], "key": list("BABA")}
    )
    frame.write_csv(path)
    out = tmp_path / "out.parquet"
    args = ["--grader", "choice", "--expected", "key", "--option", "letters=AB"]
    status, _, err = run("score", str(path), "--answer", "reply", "-o", str(out), "-q", *args)
    assert status == 0, err
    want = gf.read_table(path).grade.choice("reply", "key", letters="AB")
    got = pl.read_parquet(out)
    assert got["correct"].to_list() == want["correct"].to_list() == [True, True, False, True]
    assert got["chosen"].to_list() == want["chosen"].to_list()


def test_within_reads_the_text_cells_of_expected_as_numbers(tmp_path) -> None:
    path = tmp_path / "numbers.csv"
    frame = pl.DataFrame({"reply": ["41.8", "12,400", "x"], "gold": ["42", "12400", "3"]})
    frame.write_csv(path)
    out = tmp_path / "out.parquet"
    args = ["--grader", "within", "--expected", "gold", "--option", "delta=0.5"]
    status, _, err = run("score", str(path), "--answer", "reply", "-o", str(out), "-q", *args)
    assert status == 0, err
    numbers = gf.read_table(path).with_columns(pl.col("gold").cast(pl.Float64, strict=False))
    want = numbers.grade.within("reply", "gold", delta=0.5)
    got = pl.read_parquet(out)
    assert got["correct"].to_list() == want["correct"].to_list() == [True, True, False]
    assert got["gold"].dtype == pl.String  # the input column is written as it was read


def test_within_names_the_row_of_a_cell_that_is_no_number(runs, tmp_path) -> None:
    status, _, err = run(
        "score", str(runs), "--answer", "reply", "--grader", "within", "--expected", "model"
    )
    assert status == 2
    assert "--expected model: row 0 holds 'm1', which is no number" in err


@pytest.mark.skipif(importlib.util.find_spec("math_verify") is None, reason="math extra")
def test_equivalent_grader_with_boxed_extraction(runs, tmp_path) -> None:
    got = graded_by_cli(
        runs, tmp_path, "--grader", "equivalent", "--expected", "gold", "--extract", "boxed"
    )
    frame = gf.read_table(runs).with_columns(gf.extract_boxed("reply").alias("boxed"))
    want = frame.grade.equivalent("boxed", "gold")
    assert got["correct"].to_list() == want["correct"].to_list()
    assert got["method"].to_list() == want["method"].to_list()


def test_option_values_are_json_when_they_parse_else_text(runs, tmp_path) -> None:
    strict = graded_by_cli(
        runs, tmp_path, "--grader", "exact_match", "--expected", "gold",
        "--extract", "answer", "--option", "ignore_case=false",
    )  # fmt: skip
    loose = graded_by_cli(
        runs, tmp_path, "--grader", "exact_match", "--expected", "gold", "--extract", "answer"
    )
    assert strict["correct"].to_list()[1] is False  # "paris" against "Paris"
    assert loose["correct"].to_list()[1] is True
    assert graders.option_value("ABCD") == "ABCD"
    assert graders.option_value("0.5") == 0.5
    assert graders.option_value('"1234"') == "1234"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--grader", "exact_match", "--option", "colour=red"],
            "--option colour=red: exact_match has no option 'colour'; its options are "
            "ignore_case, strip, fold, label",
        ),
        (["--grader", "within", "--option", "delta"], "--option delta: write KEY=VALUE"),
        (
            ["--grader", "f1", "--option", "threshold=1", "--option", "threshold=0.5"],
            "--option threshold is given twice",
        ),
        (["--grader", "fuzzy"], "--grader fuzzy: there is no such grader; the graders are "),
        (
            ["--grader", "exact_match", "--whole-words"],
            "--whole-words applies to --grader answer_contains only, not to --grader exact_match",
        ),
        (
            ["--grader", "includes", "--explain"],
            "--explain applies to --grader answer_contains only",
        ),
        (["--expected", "gold"], "--expected gold: answer_contains reads the acceptable answers"),
        (["--grader", "exact_match", "--expected", "gld"], "--expected gld"),
        (["--extract", "(unclosed"], "--extract (unclosed: not a regular expression"),
        (["--option", "whole_words=maybe"], "whole"),
    ],
    ids=[
        "unknown_option",
        "option_without_value",
        "option_twice",
        "unknown_grader",
        "answer_contains_flag_with_a_matcher",
        "explain_with_a_matcher",
        "expected_with_answer_contains",
        "missing_expected_column",
        "bad_regex",
        "bad_option_value",
    ],
)
def test_grader_errors_are_in_the_command_lines_words(runs, args, message) -> None:
    status, _, err = run("score", str(runs), "--answer", "reply", *args)
    assert status == 2
    assert message in err
    assert "Traceback" not in err
    assert "=`" not in err  # no Python argument spelling


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--grader", "within", "--expected", "number"],
            "needs exactly one of --option delta and --option percent, and was given neither",
        ),
        (
            [
                *("--grader", "exact_match", "--expected", "gold"),
                *("--option", "fold=true", "--option", "strip=false"),
            ],
            "--option fold=true lower-cases and trims every text, so it cannot be combined "
            "with --option strip=false",
        ),
        (
            ["--grader", "f1", "--expected", "gold", "--option", "threshold=2"],
            "--option threshold must be a number from 0 to 1, got 2",
        ),
        (
            ["--grader", "matches", "--option", "pattern=("],
            "--option pattern: '(' is not a valid regular expression",
        ),
        (
            ["--grader", "within", "--expected", "listed", "--option", "delta=1"],
            "--expected: column 'listed' has dtype List(String); expected numbers",
        ),
    ],
    ids=[
        "within_without_delta",
        "fold_with_strip_false",
        "threshold_above_1",
        "bad_pattern",
        "within_against_a_list",
    ],
)
def test_a_graders_own_error_names_options_as_the_command_line_spells_them(
    tmp_path, args, message
) -> None:
    path = tmp_path / "numbers.parquet"
    numbers = {"number": ["12", "1", "45.2", "2", "7", "3"], "listed": [["1"]] * 6}
    pl.DataFrame({**ROWS, **numbers}).write_parquet(path)
    status, _, err = run("score", str(path), "--answer", "reply", *args)
    assert status == 2
    assert message in err
    assert "`delta`" not in err
    assert "`fold=True`" not in err
    assert "`expected`" not in err


def test_digits_given_to_a_text_option_stay_text(tmp_path) -> None:
    path = tmp_path / "numbered.csv"
    pl.DataFrame({"answer": ["2", "Option 3", "4"], "gold": ["2", "3", "1"]}).write_csv(path)
    graded = graded_by_cli_default(
        path, tmp_path, "--grader", "choice", "--expected", "gold",
        "--option", "letters=1234", "--option", "label=2024",
    )  # fmt: skip
    want = pl.read_csv(path, infer_schema=False).grade.choice(
        "answer", "gold", letters="1234", label="2024"
    )
    assert graded["correct"].to_list() == want["correct"].to_list()
    assert graded["expectation"].to_list() == ["2024"] * 3
    assert graders.parse_options("equivalent", ["fallback=null"]) == {"fallback": None}
    assert graders.parse_options("within", ["delta=1"]) == {"delta": 1}


def test_matcher_compares_with_expected_else_refs(tmp_path) -> None:
    with_expected = tmp_path / "e.csv"
    pl.DataFrame({"answer": ["a", "b"], "expected": ["a", "c"], "refs": ["b", "b"]}).write_csv(
        with_expected
    )
    graded = graded_by_cli_default(with_expected, tmp_path, "--grader", "exact_match")
    assert graded["correct"].to_list() == [True, False]
    only_refs = tmp_path / "r.csv"
    pl.DataFrame({"answer": ["a", "b"], "refs": ["b", "b"]}).write_csv(only_refs)
    graded = graded_by_cli_default(only_refs, tmp_path, "--grader", "exact_match")
    assert graded["correct"].to_list() == [False, True]
    neither = tmp_path / "n.csv"
    pl.DataFrame({"answer": ["a"], "gold": ["a"]}).write_csv(neither)
    status, _, err = run("score", str(neither), "--grader", "exact_match")
    assert status == 2
    assert "name it with --expected COL" in err


def graded_by_cli_default(path: Path, tmp_path: Path, *args: str) -> pl.DataFrame:
    out = tmp_path / "out.parquet"
    status, _, err = run("score", str(path), "-o", str(out), "-q", *args)
    assert status == 0, err
    return pl.read_parquet(out)


@pytest.mark.parametrize(
    ("how", "extraction"),
    [
        ("boxed", gf.extract_boxed),
        ("answer", gf.extract_answer),
        (r"ANSWER: (\w+)", lambda e: gf.extract(e, r"ANSWER: (\w+)")),
        (r"\d+(?:\.\d+)?", lambda e: gf.extract(e, r"\d+(?:\.\d+)?", group=0)),
    ],
    ids=["boxed", "answer", "regex_first_group", "regex_whole_match"],
)
def test_extract_grades_what_it_takes_from_the_answer(runs, tmp_path, how, extraction) -> None:
    got = graded_by_cli(runs, tmp_path, "--extract", how)
    frame = gf.read_table(runs, refs="refs")
    taken = frame.with_columns(extraction("reply").alias("taken"))
    want = taken.grade.answer_contains("taken", "refs")
    assert got["extracted"].to_list() == taken["taken"].to_list()
    assert got["correct"].to_list() == want["correct"].to_list()
    assert got["failure_kind"].to_list() == want["failure_kind"].to_list()
    assert got["reply"].to_list() == frame["reply"].to_list()  # the reply is kept as it was


def test_extract_number_writes_the_number_as_text(runs, tmp_path) -> None:
    got = graded_by_cli(runs, tmp_path, "--extract", "number")
    assert got["extracted"].to_list()[:3] == ["12", None, "145.2"]


def test_extract_on_an_output_record_keeps_its_status(tmp_path) -> None:
    path = tmp_path / "records.jsonl"
    records = [
        {"output": {"answer": "ANSWER: 7", "status": "ok"}, "refs": ["7"]},
        {"output": {"answer": "ANSWER: 7", "status": "error"}, "refs": ["7"]},
    ]
    path.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    got = graded_by_cli_default(path, tmp_path, "--answer", "output", "--extract", "answer")
    assert got["extracted"].to_list() == ["7", "7"]
    assert got["failure_kind"].to_list() == [None, "error"]


def test_explain_adds_matched_and_near_miss_to_the_output_and_the_listing(runs, tmp_path) -> None:
    got = graded_by_cli(runs, tmp_path, "--refs", "refs", "--explain")
    want = gf.read_table(runs, refs="refs").grade.answer_contains("reply", "refs", explain=True)
    assert got["matched"].to_list() == want["matched"].to_list()
    assert got["near_miss"].to_list() == want["near_miss"].to_list()
    status, out, err = run("score", str(runs), "--answer", "reply", "--explain", "--failures", "5")
    assert status == 0, err
    listing = out.split("rows that are not right", 1)[1]
    assert "near_miss" in listing.splitlines()[1]


def test_rescoring_the_written_rows_replaces_the_earlier_columns(runs, tmp_path) -> None:
    first = tmp_path / "first.csv"
    args = ["--answer", "reply", "--grader", "includes", "--expected", "gold", "-q"]
    assert run("score", str(runs), *args, "--extract", "answer", "-o", str(first))[0] == 0
    status, _, err = run("score", str(first), *args, "--extract", "answer")
    assert status == 0, err


def test_html_of_a_matcher_shows_the_answer_and_expected_columns(runs, tmp_path) -> None:
    pytest.importorskip("jinja2")
    page = tmp_path / "page.html"
    args = ["--grader", "exact_match", "--expected", "gold", "--html", str(page), "-q"]
    status, _, err = run("score", str(runs), "--answer", "reply", *args)
    assert status == 0, err
    html = page.read_text(encoding="utf-8")
    assert "answer (reply)" in html
    assert "acceptable answers (gold)" in html
    assert "<code>exact_match</code>" in html


def test_a_grader_is_one_line_in_the_registry(runs, tmp_path, monkeypatch) -> None:
    def shouted(frame: Any, actual: Any, expected: Any, *, loud: bool = True, prefix: str = ""):
        return frame.with_columns(
            (pl.col(actual).str.to_uppercase() == pl.col(expected).str.to_uppercase())
            .fill_null(value=False)
            .alias(prefix + "correct"),
            pl.lit("same text, any case").alias(prefix + "expectation"),
        )

    monkeypatch.setitem(graders.GRADERS, "shouted", shouted)
    assert graders.grader_options("shouted") == ["loud"]
    got = graded_by_cli(runs, tmp_path, "--grader", "shouted", "--expected", "gold")
    assert got["correct"].to_list() == [False] * 6
    args = ["--grader", "shouted", "--expected", "gold", "--option", "quiet=true"]
    _, _, err = run("score", str(runs), "--answer", "reply", *args)
    assert "shouted has no option 'quiet'; its options are loud" in err


def test_a_matcher_on_an_output_record_compares_its_answer_not_the_record(tmp_path) -> None:
    # a log's `output` is a record; compared whole it equals no expected value, and every row
    # would silently be wrong
    path = tmp_path / "records.parquet"
    frame = pl.DataFrame(
        {
            "output": [
                {"answer": "Paris", "text": None, "status": "ok"},
                {"answer": None, "text": "Lyon", "status": "ok"},
                {"answer": "It is \\boxed{12}", "text": None, "status": "ok"},
            ],
            "gold": ["paris", "Lyon", "12"],
        }
    )
    frame.write_parquet(path)
    graded = graded_by_cli_default(
        path, tmp_path, "--answer", "output", "--grader", "exact_match", "--expected", "gold"
    )
    text = pl.coalesce(
        pl.col("output").struct.field("answer"), pl.col("output").struct.field("text")
    )
    want = frame.with_columns(text.alias("reply")).grade.exact_match("reply", "gold")
    assert graded["correct"].to_list() == want["correct"].to_list() == [True, True, False]
    assert graded["output"].to_list() == frame["output"].to_list()  # the record is kept
    extracted = graded_by_cli_default(
        path, tmp_path, "--answer", "output", "--grader", "exact_match", "--expected", "gold",
        "--extract", "boxed",
    )  # fmt: skip
    assert extracted["correct"].to_list() == [False, False, True]
