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
