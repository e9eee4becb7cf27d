"""SPEC v4 §6 "What the tools changed", on logs the tools wrote themselves.

inspect_ai 0.3.285 (``tests/fixtures/make_inspect_v4.py``): unscored scores and ``Score.reason``,
the grader role's tokens, cache and reasoning tokens, the per-worker shard layout and
``-recovered`` logs. promptfoo 0.123.1 (``tests/fixtures/make_promptfoo_v4.sh``): a judge whose
reply it cannot read (``graderError``), its grading tokens and cost. Each expectation is computed
from the log's own JSON, never typed in.
"""

from __future__ import annotations

import json
import math
import shutil
import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import gradeframe as gf
from gradeframe.logs import LogFormatError, SkippedLogWarning
from tests.test_log_faults import eval_members, write_eval

LOGS = Path(__file__).parent / "fixtures" / "logs"
EXTRA = Path(__file__).parent / "fixtures" / "logs_extra"
JUDGED = EXTRA / "inspect_judged"
JUDGED_JSON = next(JUDGED.glob("*.json"))
JUDGED_EVAL = next(JUDGED.glob("*.eval"))
REASONS_EVAL = next((EXTRA / "inspect_reasons").glob("*.eval"))
GRADED = EXTRA / "inspect_graded"
SHARDS = EXTRA / "inspect_shards"
RECOVERED = EXTRA / "inspect_recovered"
PROMPTFOO_GRADER = EXTRA / "promptfoo_grader"
OPENAI_GRADED = EXTRA / "openai_evals_graded"
FAILED_REASONS = {"grader_failed", "scoring_failed"}


def _samples(path: Path) -> list[dict[str, Any]]:
    """The samples of an inspect log, parsed by Python's json (NaN included)."""
    if path.suffix == ".json":
        return json.loads(path.read_text())["samples"]
    members = eval_members(path)
    return [json.loads(data) for name, data in members.items() if name.startswith("samples/")]


def _key(sample: dict[str, Any]) -> tuple[str, int]:
    return str(sample["id"]), sample["epoch"]


def _rows(frame: pl.DataFrame) -> dict[tuple[str, int], dict[str, Any]]:
    return {(r["sample_id"], r["epoch"]): r for r in frame.iter_rows(named=True)}


def _expected_verdict(score: dict[str, Any] | None) -> tuple[bool | None, str | None]:
    """The scalar rule of SPEC §6: (tool_correct, tool_failure) of one inspect score."""
    if score is None:  # never scored (the sample errored): the model failed, not the grader
        return None, None
    value = score["value"]
    reason = score.get("reason") or (score.get("metadata") or {}).get("unscored_reason")
    if (isinstance(value, float) and math.isnan(value)) or reason in FAILED_REASONS:
        return None, "grader_failure"
    return {"C": True, "I": False}.get(value), None


# ---- inspect: unscored scores and Score.reason ---------------------------------------------------


@pytest.mark.parametrize("path", [JUDGED_JSON, JUDGED_EVAL, REASONS_EVAL], ids=lambda p: p.suffix)
def test_inspect_unscored_score_is_a_grader_failure_not_a_wrong_answer(path):
    frame = gf.read_inspect(path)
    rows = _rows(frame)
    samples = _samples(path)
    assert len(rows) == len(samples)
    for sample in samples:
        scores = list((sample.get("scores") or {}).values())
        score = scores[0] if scores else None
        row = rows[_key(sample)]
        assert (row["tool_correct"], row["tool_failure"]) == _expected_verdict(score), _key(sample)
        reason = None if score is None else score.get("reason")
        assert row["inspect_score_reason"] == reason
    # the fixtures hold each case at least once
    assert frame["tool_failure"].eq("grader_failure").any()
    assert frame["tool_correct"].is_not_null().any()


def test_inspect_errored_sample_the_tool_never_scored_has_no_tool_failure():
    frame = gf.read_inspect(JUDGED_JSON)
    errored = frame.filter(pl.col("output").struct.field("status") == "error")
    assert errored.height == 2  # the sample "boom", both epochs
    assert errored["tool_failure"].null_count() == errored.height
    assert errored["tool_correct"].null_count() == errored.height


def test_inspect_eval_and_json_of_one_task_read_the_same_verdicts():
    columns = ["sample_id", "epoch", "tool_score", "tool_correct", "tool_failure"]
    columns += ["inspect_score_reason", "grader_input_tokens", "cache_read_tokens"]
    a = gf.read_inspect(JUDGED_JSON).select(columns).sort("sample_id", "epoch")
    b = gf.read_inspect(JUDGED_EVAL).select(columns).sort("sample_id", "epoch")
    assert a.equals(b)


def test_inspect_legacy_unscored_reason_in_metadata_reads_as_the_reason(tmp_path):
    """Logs before Score.reason kept it as ``metadata.unscored_reason``."""
    document = json.loads(JUDGED_JSON.read_text())
    moved = 0
    for sample in document["samples"]:
        for score in (sample.get("scores") or {}).values():
            if score.get("reason") is not None:
                score["metadata"] = {
                    **(score.get("metadata") or {}),
                    "unscored_reason": score.pop("reason"),
                }
                moved += 1
    assert moved
    old = tmp_path / JUDGED_JSON.name
    old.write_text(json.dumps(document))
    columns = ["sample_id", "epoch", "tool_correct", "tool_failure", "inspect_score_reason"]
    assert gf.read_inspect(old).select(columns).equals(gf.read_inspect(JUDGED_JSON).select(columns))


def test_inspect_reason_beside_a_value_keeps_the_value_unless_the_grader_failed():
    frame = gf.read_inspect(REASONS_EVAL)
    with_value = frame.filter(
        pl.col("tool_score") != "NaN", pl.col("inspect_score_reason").is_not_null()
    )
    # invalid_response_format with "I": the model's fault, a wrong answer; grader_failed: none
    for row in with_value.iter_rows(named=True):
        failed = row["inspect_score_reason"] in FAILED_REASONS
        assert (row["tool_failure"] == "grader_failure") is failed
        assert (row["tool_correct"] is None) is failed


# ---- grader tokens, cache and reasoning tokens ---------------------------------------------------


@pytest.mark.parametrize("path", [JUDGED_JSON, JUDGED_EVAL], ids=lambda p: p.suffix)
def test_inspect_grader_role_tokens_are_kept_apart_from_the_models(path):
    frame = gf.read_inspect(path)
    rows = _rows(frame)
    model = frame["model"][0]
    for sample in _samples(path):
        row = rows[_key(sample)]
        own = sample.get("model_usage", {}).get(model, {})
        grader = sample.get("role_usage", {}).get("grader", {})
        assert row["input_tokens"] == own.get("input_tokens")
        assert row["output_tokens"] == own.get("output_tokens")
        assert row["cache_read_tokens"] == own.get("input_tokens_cache_read")
        assert row["reasoning_tokens"] == own.get("reasoning_tokens")
        assert row["grader_input_tokens"] == grader.get("input_tokens")
        assert row["grader_output_tokens"] == grader.get("output_tokens")
        others = sorted(set(sample.get("model_usage", {})) - {model})
        assert row["grader_model"] == (", ".join(others) or None)
    assert frame["grader_input_tokens"].drop_nulls().len() > 0


def test_inspect_other_models_usage_is_the_graders_when_there_is_no_grader_role():
    (path,) = GRADED.glob("*.json")
    samples = json.loads(path.read_text())["samples"]
    assert all(not s.get("role_usage") for s in samples)
    rows = _rows(gf.read_inspect(path))
    for sample in samples:
        grader = sample["model_usage"]["mockllm/grader"]
        row = rows[_key(sample)]
        assert (row["grader_input_tokens"], row["grader_output_tokens"]) == (
            grader["input_tokens"],
            grader["output_tokens"],
        )
        assert row["grader_model"] == "mockllm/grader"
        assert row["input_tokens"] == sample["model_usage"]["mockllm/model"]["input_tokens"]


# ---- inspect's per-worker layout and -recovered logs ---------------------------------------------


def _sample_epochs(paths: list[Path]) -> list[tuple[str, int]]:
    return sorted(_key(s) for p in paths for s in _samples(p))


def test_shards_beside_a_finished_merged_log_are_not_read_twice():
    folder = SHARDS / "finished"
    (merged,) = folder.glob("*.eval")
    frame = gf.read_log(folder)
    assert frame["log"].unique().to_list() == [str(merged)]
    keys = sorted(zip(frame["sample_id"], frame["epoch"], strict=True))
    assert keys == _sample_epochs([merged])
    assert len(set(keys)) == len(keys)
    # every shard log is a real log with samples the merged log holds too
    assert len(list(folder.glob("*.shards/*/*.eval"))) == 3


@pytest.mark.parametrize("where", ["folder", "shards"])
def test_unfinished_merge_reads_the_newest_attempt_of_each_shard_once(where):
    folder = SHARDS / "unfinished"
    (shards,) = folder.glob("*.shards")
    newest = [
        max(worker.glob("*.eval"), key=lambda p: p.name) for worker in sorted(shards.iterdir())
    ]
    frame = gf.read_log(folder if where == "folder" else shards)
    assert sorted(frame["log"].unique().to_list()) == sorted(map(str, newest))
    keys = sorted(zip(frame["sample_id"], frame["epoch"], strict=True))
    assert keys == _sample_epochs(newest)
    assert len(set(keys)) == len(keys) == 22
    # the older attempt of worker 1 failed, and the merged log did not finish
    assert any(len(list(w.glob("*.eval"))) == 2 for w in shards.iterdir())


def test_a_crashed_log_and_its_recovered_copy_are_read_once():
    (recovered,) = RECOVERED.glob("*-recovered.eval")
    assert len(list(RECOVERED.glob("*.eval"))) == 2
    frame = gf.read_log(RECOVERED)
    assert frame["log"].unique().to_list() == [str(recovered)]
    keys = sorted(zip(frame["sample_id"], frame["epoch"], strict=True))
    assert keys == _sample_epochs([recovered])
    assert len(set(keys)) == len(keys)


def test_an_unreadable_merged_log_is_named_not_replaced_by_its_shards(tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(SHARDS / "finished", folder)
    (merged,) = folder.glob("*.eval")
    merged.write_bytes(merged.read_bytes()[:100])
    with pytest.raises(LogFormatError) as error:
        gf.read_log(folder)
    assert str(merged) in str(error.value)


# ---- promptfoo: a judge that failed --------------------------------------------------------------


def _promptfoo_results() -> list[dict[str, Any]]:
    return json.loads((PROMPTFOO_GRADER / "results.json").read_text())["results"]["results"]


def _grader_failed(result: dict[str, Any]) -> bool:
    grading = result.get("gradingResult") or {}
    parts = [grading, *(grading.get("componentResults") or [])]
    return any((p.get("metadata") or {}).get("graderError") for p in parts)


@pytest.mark.parametrize("name", ["results.json", "results.jsonl"])
def test_promptfoo_grader_error_is_a_grader_failure_not_a_failed_test(name):
    frame = gf.read_promptfoo(PROMPTFOO_GRADER / name)
    results = {r["id"]: r for r in _promptfoo_results()}
    assert frame.height == len(results)
    for row in frame.iter_rows(named=True):
        result = results[row["promptfoo_id"]]
        failed = _grader_failed(result)
        assert row["tool_failure"] == ("grader_failure" if failed else None)
        assert row["tool_correct"] == (None if failed else result["success"])
        assert row["cost"] == result.get("cost")
        grading = result.get("gradingResult") or {}
        judged = [
            c
            for c in grading.get("componentResults") or []
            if c["assertion"]["type"] == "llm-rubric"
        ]
        assert row["promptfoo_grader_text"] == ("\n\n".join(c["reason"] for c in judged) or None)
        used = grading.get("tokensUsed") or {}
        assert row["grader_input_tokens"] == (used.get("prompt") if judged else None)
        assert row["grader_output_tokens"] == (used.get("completion") if judged else None)
        usage = result["response"].get("tokenUsage") or result["tokenUsage"]  # the model's own
        assert row["input_tokens"] == usage["prompt"]
    assert frame["tool_failure"].eq("grader_failure").sum() > 0
    assert frame["tool_correct"].drop_nulls().len() > 0


def test_promptfoo_top_level_grader_error_counts_too(tmp_path):
    document = json.loads((PROMPTFOO_GRADER / "results.json").read_text())
    first = document["results"]["results"][0]
    assert not _grader_failed(first)
    first["gradingResult"]["metadata"] = {"graderError": True}
    first["gradingResult"]["componentResults"] = []
    target = tmp_path / "results.json"
    target.write_text(json.dumps(document))
    row = gf.read_promptfoo(target).row(0, named=True)
    assert (row["tool_correct"], row["tool_failure"]) == (None, "grader_failure")


# ---- OpenAI evals: a model-graded __invalid__ choice ---------------------------------------------


def _events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("name", ["gf-fact.jsonl", "gf-closedqa.jsonl"])
def test_openai_evals_model_graded_invalid_choice_is_a_grader_failure(name):
    path = OPENAI_GRADED / name
    events = _events(path)
    metrics = {e["sample_id"]: e["data"] for e in events if e.get("type") == "metrics"}
    frame = gf.read_openai_evals(path)
    assert frame.height == len(metrics)
    for row in frame.iter_rows(named=True):
        data = metrics[row["sample_id"]]
        invalid = data["choice"] == "__invalid__"
        assert row["tool_failure"] == ("grader_failure" if invalid else None)
        score = data["score"]
        expected = None if invalid or score not in (0, 1) else score == 1
        assert row["tool_correct"] == expected
        assert row["tool_score"] == (json.dumps(score) if score is not None else data["choice"])
    assert frame["tool_failure"].eq("grader_failure").sum() == 1


@pytest.mark.parametrize("name", ["gf-fact.jsonl", "gf-closedqa.jsonl"])
def test_openai_evals_model_graded_answer_and_tokens_are_the_models_not_the_judges(name):
    """The judge's call is the sample's last sampling: its text and tokens are the grader's."""
    path = OPENAI_GRADED / name
    samplings: dict[str, list[dict[str, Any]]] = {}
    for event in _events(path):
        if event.get("type") == "sampling":
            samplings.setdefault(event["sample_id"], []).append(event["data"])
    spec = _events(path)[0]["spec"]
    assert spec["completion_fns"] == ["gf-answers", "gf-judge"]
    for row in gf.read_openai_evals(path).iter_rows(named=True):
        model, judge = samplings[row["sample_id"]]
        assert row["output"]["answer"] == model["sampled"][0]
        assert row["input_tokens"] == model["usage"]["prompt_tokens"]
        assert row["grader_input_tokens"] == judge["usage"]["prompt_tokens"]
        assert row["grader_output_tokens"] == judge["usage"]["completion_tokens"]
        assert row["grader_model"] == judge["model"] != model["model"]
        assert row["openai_evals_grader_text"] == judge["sampled"][0]


# ---- every reader has the columns; unreadable files are named ------------------------------------


def test_every_reader_has_a_tool_failure_column_null_where_nothing_failed():
    frame = gf.read_log(LOGS)
    assert frame.schema["tool_failure"] == pl.String
    per_tool = frame.group_by("tool").agg(pl.col("tool_failure").null_count(), pl.len())
    assert per_tool.height == 5
    assert per_tool.filter(pl.col("tool_failure") != pl.col("len")).height == 0


def test_jsonl_cut_inside_its_first_line_is_named_in_a_folder_read(tmp_path):
    folder = tmp_path / "logs"
    shutil.copytree(PROMPTFOO_GRADER, folder)
    cut = folder / "nightly.jsonl"
    cut.write_bytes((PROMPTFOO_GRADER / "results.jsonl").read_bytes()[:40])  # before testIdx
    with pytest.raises(LogFormatError, match="line 1: not valid JSON") as error:
        gf.read_log(folder)
    assert str(cut) in str(error.value)
    with pytest.warns(SkippedLogWarning) as caught:
        frame = gf.read_log(folder, errors="skip")
    assert str(cut) in str(caught[0].message)
    assert frame.height == gf.read_log(PROMPTFOO_GRADER).height


def test_a_valid_json_file_that_is_no_log_is_still_ignored(tmp_path):
    folder = tmp_path / "logs"
    shutil.copytree(PROMPTFOO_GRADER, folder)
    (folder / "settings.json").write_text('{"temperature": 0}')
    (folder / "notes.jsonl").write_text('{"note": 1}\n{"note": 2')
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gf.read_log(folder).height == gf.read_log(PROMPTFOO_GRADER).height


def test_rewritten_reasons_eval_reads_as_the_real_one(tmp_path):
    copy = write_eval(tmp_path / REASONS_EVAL.name, eval_members(REASONS_EVAL))
    assert gf.read_inspect(copy).drop("log").equals(gf.read_inspect(REASONS_EVAL).drop("log"))


# ---- memory: a .eval is read a batch of members at a time ----------------------------------------

V4_EVALS = [JUDGED_EVAL, REASONS_EVAL, next((SHARDS / "finished").glob("*.eval"))]


@pytest.mark.parametrize("path", V4_EVALS, ids=lambda p: p.parent.name)
def test_eval_read_in_one_member_batches_equals_the_read_in_one_batch(path, monkeypatch):
    from gradeframe.logs import inspect as reader

    whole = gf.read_inspect(path)
    monkeypatch.setattr(reader, "BATCH_BYTES", 1)  # every member a batch of its own
    assert gf.read_inspect(path).equals(whole)


@pytest.mark.parametrize("path", V4_EVALS, ids=lambda p: p.parent.name)
def test_eval_read_with_polars_equals_the_read_one_sample_at_a_time(path, monkeypatch):
    """The columnar parse (NaN scores, the grader role's usage) and Python's json agree."""
    from gradeframe.logs import inspect as reader

    fast = gf.read_inspect(path)
    exactly = reader._members_exactly
    monkeypatch.setattr(reader, "_fast_parts", lambda p, m, s, model, _: exactly(p, m, s, model))
    assert gf.read_inspect(path).equals(fast)


# ---- scan_log: a LazyFrame over a folder of logs -------------------------------------------------


def test_scan_log_collects_the_rows_and_columns_read_log_reads():
    eager = gf.read_log(LOGS)
    lazy = gf.scan_log(LOGS)
    assert isinstance(lazy, pl.LazyFrame)
    collected = lazy.collect()
    assert set(eager.columns) <= set(collected.columns)
    assert collected.select(eager.columns).equals(eager)


def test_scan_log_reads_each_sample_epoch_once_like_read_log():
    with pytest.warns(gf.logs.DuplicateRunWarning):
        eager = gf.read_log(EXTRA)
    with pytest.warns(gf.logs.DuplicateRunWarning):
        lazy = gf.scan_log(EXTRA).collect()
    assert lazy.select(eager.columns).equals(eager)


def test_scan_log_pushes_columns_and_filters_down_to_each_log():
    query = (
        gf.scan_log(LOGS)
        .filter(pl.col("tool") == "inspect", pl.col("epoch") == 1)
        .select("sample_id", "tool_correct")
    )
    expected = (
        gf.read_log(LOGS)
        .filter(pl.col("tool") == "inspect", pl.col("epoch") == 1)
        .select("sample_id", "tool_correct")
    )
    assert query.collect().equals(expected)
    first = gf.read_log(LOGS).head(5)
    assert gf.scan_log(LOGS).head(5).collect().select(first.columns).equals(first)


def test_scan_log_names_a_missing_path_at_once_and_a_broken_log_when_collected(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        gf.scan_log(tmp_path / "nothing")
    folder = tmp_path / "logs"
    shutil.copytree(PROMPTFOO_GRADER, folder)
    cut = folder / "nightly.jsonl"
    cut.write_bytes((PROMPTFOO_GRADER / "results.jsonl").read_bytes()[:40])
    lazy = gf.scan_log(folder)  # nothing read yet
    with pytest.raises(LogFormatError, match="line 1: not valid JSON"):
        lazy.collect()
    with pytest.warns(SkippedLogWarning, match="nightly.jsonl"):
        frame = gf.scan_log(folder, errors="skip").collect()
    assert frame.height == gf.read_log(PROMPTFOO_GRADER).height


@pytest.mark.parametrize("source", [PROMPTFOO_GRADER, LOGS / "promptfoo"], ids=["grader", "v3"])
def test_promptfoo_json_lines_read_in_batches_equals_the_read_in_one_batch(source, monkeypatch):
    from gradeframe.logs import promptfoo

    whole = gf.read_promptfoo(source / "results.jsonl")
    monkeypatch.setattr(promptfoo, "BATCH_ROWS", 3)
    assert gf.read_promptfoo(source / "results.jsonl").equals(whole)


def _promptfoo_lines() -> list[dict[str, Any]]:
    path = LOGS / "promptfoo" / "results.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def _usage(line: dict[str, Any]) -> dict[str, Any]:
    """The token counts of a promptfoo line: the response's, else the result's."""
    return (line.get("response") or {}).get("tokenUsage") or line.get("tokenUsage") or {}


def test_promptfoo_input_tokens_of_the_real_log_are_its_prompt_tokens_no_cache_read():
    # The real run read nothing from a provider cache (cacheReadInputTokens 0 or absent).
    lines = _promptfoo_lines()
    frame = gf.read_promptfoo(LOGS / "promptfoo" / "results.jsonl")
    assert frame["input_tokens"].to_list() == [_usage(line).get("prompt") for line in lines]


@pytest.mark.parametrize("cached", [0, 5, 12])
def test_promptfoo_cache_reads_are_taken_out_of_the_prompt_tokens(tmp_path, cached):
    # promptfoo's tokenUsage.prompt counts the cache reads too (its OpenAI and Anthropic
    # providers add them in); gradeframe's input_tokens does not, so report(cost=) charges
    # each token once. The real log's cache reads were 0: here they are set on its lines.
    lines = _promptfoo_lines()
    expected = []
    for line in lines:
        usage = _usage(line)
        read = min(cached, usage["prompt"])
        usage["completionDetails"] = {**usage.get("completionDetails", {})}
        usage["completionDetails"]["cacheReadInputTokens"] = read
        expected.append((usage["prompt"] - read, read, usage["completion"]))
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines))
    frame = gf.read_promptfoo(path)
    columns = ["input_tokens", "cache_read_tokens", "output_tokens"]
    assert frame.select(columns).rows() == expected
    prices = {m: {"input": 3.0, "output": 15.0, "cache_read": 0.3} for m in frame["model"]}
    cost = gf.report(frame, correct="tool_correct", cost=prices)["cost"].item()
    by_hand = sum(i * 3.0 + c * 0.3 + o * 15.0 for i, c, o in expected) / 1e6
    assert math.isclose(cost, by_hand)
