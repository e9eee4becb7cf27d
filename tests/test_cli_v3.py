"""The command line's v3 additions, through the command line's ``main`` (tests.utils.run_cli):
--failures, separator detection, Parquet dtypes, lm-eval filters, one run saved twice, and
listings written for people (refs as lists, verdicts in words, agreement()'s names)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import polars as pl
import pytest

import gradeframe as gf
from tests.utils import run_cli

LOGS = Path(__file__).parent / "fixtures" / "logs"
SAME_RUN = Path(__file__).parent / "fixtures" / "logs_extra" / "inspect_same_run"


def run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``gradeframe ARGS`` run in this process (tests.utils.run_cli)."""
    return run_cli(*args, cwd=cwd)


def table(stdout: str, title: str) -> list[dict[str, str]]:
    """The rows of the Markdown table printed after a title line."""
    lines = stdout.split(title, 1)[1].splitlines()
    lines = lines[next(i for i, line in enumerate(lines) if line.startswith("|")) :]
    header = cells(lines[0])
    rows = []
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        rows.append(dict(zip(header, cells(line), strict=True)))
    return rows


def cells(line: str) -> list[str]:
    """A Markdown table line's cells ("\\|" is a "|" inside a cell)."""
    parts = re.split(r"(?<!\\)\|", line.strip()[1:-1])
    return [part.strip().replace("\\|", "|") for part in parts]


# ---- lm-eval filters ----------------------------------------------------------------------------


def test_lm_eval_report_has_one_row_per_filter_not_the_pooled_figure():
    done = run("score", LOGS / "lm_eval", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "by tool, model, task, lm_eval_filter" in done.stdout
    rows = table(done.stdout, "lm_eval_filter\n")
    figures = {(r["task"], r["lm_eval_filter"]): (r["n"], r["accuracy"]) for r in rows}
    assert figures == {
        ("gf_gen", "number"): ("7", "0.143"),
        ("gf_gen", "raw"): ("7", "0.429"),
        ("gf_mc", "none"): ("3", "0.667"),
    }
    assert "0.286" not in done.stdout  # the two filters pooled


def test_grouping_lm_eval_logs_without_the_filter_says_the_filters_are_pooled():
    done = run("score", LOGS / "lm_eval", "--by", "task", "--quiet")
    assert done.returncode == 0
    assert "by task\nnote: lm-eval tasks here were scored with several filters" in done.stdout
    assert "add --by lm_eval_filter" in done.stdout


def test_logs_with_one_filter_per_task_are_not_grouped_by_filter():
    done = run("score", LOGS / "openai_evals", "--quiet")
    assert done.returncode == 0
    assert "by tool, model, task\n" in done.stdout


# ---- --failures N -------------------------------------------------------------------------------


def test_failures_lists_the_rows_failures_returns_with_kind_group_answer_refs_outcome():
    done = run("score", "--example", "--failures", "4", "--quiet")
    assert done.returncode == 0, done.stderr
    listed = table(done.stdout, "rows that are not right (first 4 of 29):")
    graded = gf.example().grade.answer_contains("answer", "refs")
    expected = gf.failures(graded, actual="answer", expected="refs").head(4)
    assert list(listed[0]) == [
        "failure_kind",
        "model",
        "question_id",
        "actual",
        "refs",
        "outcome",
    ]
    for row, want in zip(listed, expected.iter_rows(named=True), strict=True):
        assert row["failure_kind"] == want["failure_kind"]
        assert row["model"] == want["model"]
        assert row["question_id"] == want["question_id"]
        assert row["refs"] == json.dumps(want["refs"], ensure_ascii=False)
        assert row["outcome"] == (want["outcome"] or "null")
        shown = want["actual"] if want["actual"] is not None else "null"
        assert row["actual"] == (shown if len(shown) <= 80 else shown[:79] + "…")


def test_failures_zero_lists_nothing_and_negative_is_an_error():
    assert "not right" not in run("score", "--example", "--quiet").stdout
    done = run("score", "--example", "--failures", "-2")
    assert done.returncode == 2
    assert "--failures must be 0 or more, got -2" in done.stderr


def test_failures_beyond_int64_lists_every_failure_not_an_overflow():
    # G17: a count past 2**64 used to end in Polars' OverflowError after scoring
    done = run("score", "--example", "--quiet", "--failures", "99999999999999999999")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    everything = run("score", "--example", "--quiet", "--failures", "1000")
    assert done.stdout == everything.stdout


def test_failures_on_logs_shows_the_log_and_the_sample(tmp_path):
    done = run("score", LOGS / "lm_eval", "--failures", "50", "--quiet")
    rows = table(done.stdout, "rows that are not right (all 11):")
    assert {r["lm_eval_filter"] for r in rows} == {"raw", "number", "none"}
    assert rows[0]["log"].startswith("demo-org__scripted-a/samples_gf_gen_")
    assert all(r["failure_kind"] != "null" for r in rows)


# ---- separators ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("separator", "flag"), [(";", "--separator ';'"), ("\t", "--separator tab")]
)
def test_csv_with_another_separator_names_the_flag_to_pass(tmp_path, separator, flag):
    csv = tmp_path / "runs.csv"
    csv.write_text(
        f"answer{separator}refs\nMade 12,400 units.{separator}12400\nIt is 3{separator}4\n"
    )
    done = run("score", csv)
    assert done.returncode == 2
    assert flag in done.stderr
    assert "more fields" not in done.stderr
    given = ";" if separator == ";" else "tab"
    done = run("score", csv, "--separator", given, "--quiet")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("2 answers from ")
    assert ": 1 right (50.0%)" in done.stdout


def test_comma_csv_with_semicolons_in_cells_reads_as_usual(tmp_path):
    csv = tmp_path / "runs.csv"
    csv.write_text('answer,refs\n"a; b; 12400",12400\n')
    done = run("score", csv, "--quiet")
    assert done.returncode == 0, done.stderr


# ---- -o x.parquet from a CSV --------------------------------------------------------------------


def test_parquet_from_csv_keeps_input_columns_text_and_added_columns_typed(tmp_path):
    csv = tmp_path / "runs.csv"
    csv.write_text(
        "question_id,answer,refs,score\n007,Made 12,400 units.,12400,0.10\n"
        '008,"It is 3","[""4"", ""four""]",1\n'.replace(
            "Made 12,400 units.", '"Made 12,400 units."'
        )
    )
    out = tmp_path / "graded.parquet"
    done = run("score", csv, "-o", out, "--quiet", "--prefix", "gf_")
    assert done.returncode == 0, done.stderr
    written = pl.read_parquet(out)
    assert written.schema["question_id"] == pl.String
    assert written.schema["score"] == pl.String  # input columns stay text: "0.10" as written
    assert written["question_id"].to_list() == ["007", "008"]
    assert written["score"].to_list() == ["0.10", "1"]
    assert written.schema["refs"] == pl.List(pl.String)  # a JSON list cell is a list
    assert written.schema["gf_correct"] == pl.Boolean
    assert written.schema["gf_failure_kind"] == pl.String
    assert written.schema["gf_outcome"] == pl.String
    assert written["gf_correct"].to_list() == [True, False]
    assert written["gf_failure_kind"].to_list() == [None, "wrong"]


# ---- one run saved twice, --from, listings ------------------------------------------------------


def test_same_inspect_run_twice_is_read_once_and_said():
    done = run("score", SAME_RUN, "--quiet")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("3 answers from inspect logs")
    note = done.stdout.splitlines()[1]
    assert note.startswith("note: 2026-11-30T20-32-26-00-00_gf-mcq_bCyeupM2xmY9oxZyYfQden.json")
    assert "same inspect run" in note
    assert "Qpry8zNN77thk6KmyjGRVg" in note
    assert "Warning" not in done.stderr


def test_from_a_tool_on_a_folder_of_other_logs_says_which_it_holds():
    done = run("score", LOGS / "lm_eval", "--from", "inspect")
    assert done.returncode == 2
    assert "holds no inspect logs; it holds lm_eval logs (2 files)" in done.stderr
    assert "--from 'lm_eval'" in done.stderr
    assert "without --from" in done.stderr


def test_disagreements_show_the_log_refs_as_lists_and_verdicts_in_words():
    done = run("score", LOGS / "inspect", "--disagreements", "40", "--quiet")
    rows = table(done.stdout, "rows where they differ (all 10):")
    assert len(rows) == 10
    logs = {r["log"] for r in rows}
    assert all("/" not in log and log.endswith((".eval", ".json")) for log in logs)
    assert len(logs) == 2  # two runs of gf_qa: each row's own log
    assert {r["tool_correct"] for r in rows} | {r["correct"] for r in rows} == {"right", "wrong"}
    height = next(r for r in rows if r["sample_id"] == "height")
    assert height["refs"] == '["45.2", "45.2 m"]'


def test_agreement_table_uses_agreements_names_and_figures():
    done = run("score", LOGS / "openai_evals", "--quiet")
    assert "(a: tool_correct) with gradeframe's (b: correct)" in done.stdout
    (row,) = table(done.stdout, "(b: correct), on 19 rows:")
    graded = gf.read_log(LOGS / "openai_evals").grade.answer_contains("output", "refs")
    (want,) = gf.agreement(graded, "tool_correct", "correct", by="tool").iter_rows(named=True)
    for name in ("n", "both_right", "only_a", "only_b", "both_wrong"):
        assert row[name] == str(want[name])


def test_a_pipe_inside_a_cell_does_not_break_the_printed_table(tmp_path):
    csv = tmp_path / "runs.csv"
    csv.write_text('answer,refs\n"yes | no",maybe\n')
    done = run("score", csv, "--failures", "1", "--quiet")
    (row,) = table(done.stdout, "rows that are not right (all 1):")
    assert row["actual"] == "yes | no"
    assert row["refs"] == "maybe"
