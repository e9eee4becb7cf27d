"""SPEC v3 §6 on real logs: the task is never null, tokens are the tested model's, lm-eval
filters stay apart, the example logs ship with the package, and one run saved twice reads once.

The logs under tests/fixtures/logs_extra/ were written by inspect_ai itself (see its README).
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import gradeframe as gf

LOGS = Path(__file__).parent / "fixtures" / "logs"
EXTRA = Path(__file__).parent / "fixtures" / "logs_extra"
GRADED = EXTRA / "inspect_graded"
SAME_RUN = EXTRA / "inspect_same_run"


# ---- promptfoo JSON Lines: the task is the file's stem ------------------------------------------


def test_promptfoo_json_lines_without_a_description_take_the_file_stem_as_task(tmp_path):
    jsonl = tmp_path / "nightly-run.jsonl"
    jsonl.write_bytes((LOGS / "promptfoo" / "results.jsonl").read_bytes())
    frame = gf.read_promptfoo(jsonl)
    assert frame["task"].null_count() == 0
    assert frame["task"].unique().to_list() == ["nightly-run"]


def test_promptfoo_json_keeps_its_eval_description_as_task():
    document = json.loads((LOGS / "promptfoo" / "results.json").read_text())
    description = document["config"]["description"]
    assert gf.read_promptfoo(LOGS / "promptfoo" / "results.json")["task"].unique().to_list() == [
        description
    ]


def test_no_log_of_any_tool_has_a_null_task():
    frame = gf.read_log(LOGS)
    assert frame.filter(pl.col("task").is_null()).height == 0


# ---- inspect: the tokens of the model under test only -------------------------------------------


@pytest.mark.parametrize("suffix", [".json", ".eval"])
def test_inspect_tokens_do_not_count_the_graders_tokens(suffix):
    (path,) = GRADED.glob(f"*{suffix}")
    frame = gf.read_inspect(path).sort("sample_id")
    if suffix == ".json":
        samples = json.loads(path.read_text())["samples"]
        usage = {s["id"]: s["model_usage"] for s in samples}
        # the log itself: two models per sample, the grader's prompt of 1000 tokens
        assert all(set(u) == {"mockllm/model", "mockllm/grader"} for u in usage.values())
        expected = [usage[i]["mockllm/model"]["total_tokens"] for i in ("height", "units")]
        assert frame["total_tokens"].to_list() == expected
    assert frame["model"].unique().to_list() == ["mockllm/model"]
    assert frame["input_tokens"].to_list() == [10, 10]  # not 1010: the grader's are left out
    assert frame["output_tokens"].to_list() == [4, 3]
    assert frame["total_tokens"].to_list() == [14, 13]


# ---- lm-eval: one row per filter, never pooled --------------------------------------------------


def test_lm_eval_rows_per_filter_give_each_filters_figure_not_a_pooled_one():
    graded = gf.read_lm_eval(LOGS / "lm_eval").grade.answer_contains("output", "refs")
    gen = graded.filter(pl.col("task") == "gf_gen")
    # each document once per filter
    counts = gen.group_by("lm_eval_filter").agg(pl.col("sample_id").n_unique(), pl.len())
    assert all(row[1] == row[2] for row in counts.iter_rows())
    table = gf.report(gen, "lm_eval_filter")
    assert dict(zip(table["lm_eval_filter"], table["accuracy"].round(3), strict=True)) == {
        "number": 0.143,
        "raw": 0.429,
    }


# ---- one inspect run saved twice ----------------------------------------------------------------


def test_same_inspect_run_as_eval_and_json_is_read_once_with_a_warning():
    with pytest.warns(gf.logs.DuplicateRunWarning, match="same inspect run") as caught:
        frame = gf.read_log(SAME_RUN)
    message = str(caught[0].message)
    assert "Qpry8zNN77thk6KmyjGRVg" in message  # the eval id both files hold
    assert ".json holds the same inspect run as" in message
    assert frame.height == 3  # three samples, not six
    assert frame["log"].unique().to_list() == [str(next(SAME_RUN.glob("*.eval")))]
    assert frame["inspect_eval_id"].unique().to_list() == ["Qpry8zNN77thk6KmyjGRVg"]


def test_two_runs_of_one_task_are_both_read():
    # the gf-qa .eval and .json in tests/fixtures/logs/inspect are two runs (two eval ids)
    frame = gf.read_log(LOGS / "inspect")
    qa = frame.filter(pl.col("task") == "gf_qa")
    assert qa["inspect_eval_id"].n_unique() == 2
    assert qa["log"].n_unique() == 2


def test_tool_on_a_folder_without_its_logs_says_which_logs_it_holds():
    with pytest.raises(FileNotFoundError, match="holds no inspect logs; it holds lm_eval logs"):
        gf.read_log(LOGS / "lm_eval", tool="inspect")


# ---- example_logs(): small real logs shipped with the package -----------------------------------


def test_example_logs_are_one_real_log_per_tool_copied_from_the_fixtures():
    folder = gf.example_logs()
    assert isinstance(folder, Path)
    assert "example_logs" in gf.__all__
    frame = gf.read_log(folder)
    assert sorted(frame["tool"].unique()) == [
        "braintrust",
        "deepeval",
        "eee",
        "helm",
        "inspect",
        "langsmith",
        "lm_eval",
        "openai_evals",
        "phoenix",
        "promptfoo",
    ]
    shipped = [p for p in folder.rglob("*") if p.is_file() and p.name != "README.md"]
    assert sum(p.stat().st_size for p in shipped) < 500_000  # small (ten tools)
    new = LOGS.parent / "logs_new"  # the newer formats' fixtures keep their tools' folder names
    for path in shipped:  # written by the tools: byte for byte a fixture of the tests
        twins = [f for f in LOGS.rglob(path.name) if f.parent.name == path.parent.name]
        twins += list(new.rglob(path.name))
        assert twins, f"{path} is no copy of a fixture"
        assert twins[0].read_bytes() == path.read_bytes()


def test_example_logs_live_inside_the_package_that_the_wheel_ships():
    import tomllib

    package = Path(gf.__file__).parent
    assert package in gf.example_logs().parents
    pyproject = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["src/gradeframe"]
