"""SPEC v4 §6 "Five more formats" on real logs written by the tools themselves, offline.

The fixtures under tests/fixtures/logs_new/ (see its README; tests/fixtures/make_logs_new.py
regenerates them) were written by Every Eval Ever's own converters and by DeepEval, Braintrust,
LangSmith and Arize Phoenix. Each test reads them and holds the reader to the raw records,
parsed here with plain ``json``/``csv`` as a scalar reference.
"""

from __future__ import annotations

import json
import shutil
from collections import defaultdict
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gradeframe as gf
from gradeframe.logs import LogFormatError, detect_tool
from tests.test_logs import run_cli

NEW = Path(__file__).parent / "fixtures" / "logs_new"
OLD = Path(__file__).parent / "fixtures" / "logs"
EEE = NEW / "eee"
EEE_SAMPLES = sorted(EEE.rglob("*_samples.jsonl"))
EEE_QA = next(p for p in EEE_SAMPLES if "gf_qa" in p.parts)
EEE_GEN = next(p for p in EEE_SAMPLES if "gf_gen" in p.parts)
EEE_MC = next(p for p in EEE_SAMPLES if "gf_mc" in p.parts)
EEE_MCQ = next(p for p in EEE_SAMPLES if "gf_mcq" in p.parts)
EEE_AGENT = next(p for p in EEE_SAMPLES if "gf_agent" in p.parts)


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def answer(frame: pl.DataFrame) -> pl.Series:
    return frame.get_column("output").struct.field("answer")


def graded(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.grade.answer_contains("output", "refs")


def _attempts(records: list[dict]) -> dict[tuple, list[dict]]:
    """The reference fold: lines of one evaluation, sample and epoch, in file order."""
    found: dict[tuple, list[dict]] = defaultdict(list)
    for record in records:
        epoch = int((record.get("metadata") or {}).get("epoch") or 1)
        key = (record["evaluation_name"], str(record["sample_id"]), epoch)
        found[key].append(record)
    return found


# ---- Every Eval Ever ------------------------------------------------------------------------


@pytest.mark.parametrize("path", EEE_SAMPLES, ids=lambda p: p.parts[-4])
def test_eee_lines_repeated_per_scorer_fold_to_one_row_per_attempt(path):
    attempts = _attempts(lines(path))
    frame = gf.read_eee(path)
    keys = list(zip(frame["task"], frame["sample_id"], frame["epoch"], strict=True))
    assert keys == list(attempts)  # one row each, in the file's order
    scorers = [[s["scorer"] for s in row] for row in frame["eee_scores"].to_list()]
    assert scorers == [[r["evaluation_result_id"] for r in rs] for rs in attempts.values()]


@pytest.mark.parametrize("path", EEE_SAMPLES, ids=lambda p: p.parts[-4])
def test_eee_partial_score_is_not_correct_though_the_converter_says_so(path):
    attempts = _attempts(lines(path))
    frame = gf.read_eee(path)
    first = [rs[0]["evaluation"] for rs in attempts.values()]
    assert frame["tool_correct"].to_list() == [e["score"] == 1 for e in first]
    assert frame["eee_is_correct"].to_list() == [e["is_correct"] for e in first]


def test_eee_inspect_conversion_holds_a_half_score_counted_correct():
    frame = gf.read_eee(EEE_QA)
    half = frame.filter(pl.col("tool_score") == "0.5")
    assert half.height > 0
    assert half["eee_is_correct"].all()
    assert not half["tool_correct"].any()


def test_eee_reply_is_the_last_assistant_message_else_output_raw():
    records = lines(EEE_QA)
    frame = gf.read_eee(EEE_QA)
    expected = {}
    for key, rs in _attempts(records).items():
        messages = rs[0]["messages"]
        replies = [m["content"] for m in messages or [] if m["role"] == "assistant"]
        if replies:
            expected[key] = (replies[-1], "messages")
        else:
            expected[key] = (rs[0]["output"]["raw"][0], "output.raw")
    got = dict(
        zip(
            zip(frame["task"], frame["sample_id"], frame["epoch"], strict=True),
            zip(answer(frame), frame["eee_answer_source"], strict=True),
            strict=True,
        )
    )
    assert got == expected
    assert set(frame["eee_answer_source"]) == {"messages", "output.raw"}


def test_eee_output_raw_of_an_inspect_conversion_is_the_scorers_extract():
    # includes() lower-cases what it compares; the converter keeps that, not the reply
    frame = gf.read_eee(EEE_QA).filter(pl.col("sample_id") == "refusal_text")
    inspect = gf.read_log(OLD / "inspect").filter(
        pl.col("sample_id") == "refusal_text", pl.col("task") == "gf_qa"
    )
    assert answer(frame)[0] == answer(inspect)[0].lower()
    assert answer(frame)[0] != answer(inspect)[0]


def test_eee_stop_reasons_and_errors_map_to_the_failure_kinds():
    frame = graded(gf.read_eee(EEE_QA))
    kinds = dict(zip(frame["sample_id"], frame["failure_kind"], strict=False))
    assert kinds["truncated"] == "budget_stop"  # metadata.stop_reason max_tokens
    assert kinds["filtered"] == "refusal"  # content_filter
    assert kinds["boom"] == "error"  # error
    raw = {r["sample_id"]: r for r in lines(EEE_QA)}
    assert raw["truncated"]["metadata"]["stop_reason"] == "max_tokens"
    assert raw["filtered"]["metadata"]["stop_reason"] == "content_filter"
    assert raw["boom"]["error"]


def test_eee_standard_cases_grade_as_gradeframe_reads_them():
    frame = graded(gf.read_eee(EEE_GEN)).filter(pl.col("task") == "gf_gen/raw")
    correct = dict(zip(answer(frame), frame["correct"], strict=True))
    assert correct["The answer is 12,400 units."] is True  # against 12400
    assert correct["It is 145.2 m tall."] is False  # against 45.2
    assert correct["It fell to -12 degrees."] is False  # against 12
    kinds = dict(zip(answer(frame), frame["failure_kind"], strict=True))
    assert kinds[""] == "parse_failure"


def test_eee_python_list_literal_references_are_read_as_lists():
    raw = [r["input"]["reference"] for r in lines(EEE_GEN)]
    assert raw[0] == ["['12400', '12,400']"]  # one string holding a Python list
    frame = gf.read_eee(EEE_GEN)
    assert frame["refs"][0].to_list() == ["12400", "12,400"]


@pytest.mark.parametrize("path", [EEE_MC, EEE_MCQ], ids=["lm_eval", "inspect"])
def test_eee_multiple_choice_references_are_the_options_they_name(path):
    records = list(_attempts(lines(path)).values())
    frame = gf.read_eee(path)
    for row, rs in zip(frame.iter_rows(named=True), records, strict=True):
        choices = rs[0]["input"]["choices"]
        (ref,) = rs[0]["input"]["reference"]
        index = int(ref) if ref.isdigit() else ord(ref) - ord("A")
        assert row["refs"] == [choices[index]]
        assert row["eee_choices"] == choices


def test_eee_tokens_and_seconds_are_read():
    records = list(_attempts(lines(EEE_QA)).values())
    frame = gf.read_eee(EEE_QA)
    usage = [rs[0]["token_usage"] or {} for rs in records]
    assert frame["input_tokens"].to_list() == [u.get("input_tokens") for u in usage]
    assert frame["cache_read_tokens"].to_list() == [u.get("input_tokens_cache_read") for u in usage]
    assert frame["reasoning_tokens"].to_list() == [u.get("reasoning_tokens") for u in usage]
    latency = [rs[0]["performance"]["latency_ms"] / 1000 for rs in records]
    assert frame["seconds"].to_list() == pytest.approx(latency)


def test_eee_tool_calls_of_assistant_messages_become_the_tool_calls_column():
    records = list(_attempts(lines(EEE_AGENT)).values())
    frame = gf.read_eee(EEE_AGENT)
    for row, rs in zip(frame.iter_rows(named=True), records, strict=True):
        written = [
            call
            for message in rs[0]["messages"]
            if message["role"] == "assistant"
            for call in message["tool_calls"] or []
        ]
        assert [c["name"] for c in row["tool_calls"]] == [c["name"] for c in written]
        assert [json.loads(c["arguments"]) for c in row["tool_calls"]] == [
            c["arguments"] for c in written
        ]
        assert row["eee_answer_source"] == "messages"
        assert row["eee_interaction_type"] == "agentic"
    assert frame["tool_calls"].list.len().min() == 1
    # the converter writes inspect's whole-number arguments as text ({"a": "6"})
    assert json.loads(frame["tool_calls"][0][0]["arguments"]) == {"a": "6", "b": "7"}


def test_eee_agent_run_reads_cache_and_reasoning_tokens():
    frame = gf.read_eee(EEE_AGENT)
    usage = [rs[0]["token_usage"] for rs in _attempts(lines(EEE_AGENT)).values()]
    assert frame["cache_read_tokens"].to_list() == [u["input_tokens_cache_read"] for u in usage]
    assert frame["reasoning_tokens"].to_list() == [u["reasoning_tokens"] for u in usage]
    assert frame["cache_read_tokens"].drop_nulls().len() == frame.height


def test_eee_aggregate_json_reads_its_samples_and_a_folder_reads_each_run_once():
    aggregate = EEE_QA.with_name(EEE_QA.name.replace("_samples.jsonl", ".json"))
    assert detect_tool(aggregate) == "eee"
    assert gf.read_log(aggregate).equals(gf.read_log(EEE_SAMPLES[0].parent).head(0)) is False
    assert gf.read_log(aggregate).equals(gf.read_eee(EEE_QA))
    folder = gf.read_log(EEE)
    assert folder.height == sum(gf.read_eee(p).height for p in EEE_SAMPLES)


def test_eee_aggregate_without_its_samples_is_a_named_error(tmp_path):
    aggregate = EEE_QA.with_name(EEE_QA.name.replace("_samples.jsonl", ".json"))
    lonely = tmp_path / aggregate.name
    shutil.copy(aggregate, lonely)
    with pytest.raises(LogFormatError, match=r"samples\.jsonl is not beside it"):
        gf.read_log(lonely)


def test_eee_cut_inside_its_first_line_is_named_not_dropped(tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(OLD / "openai_evals" / "gf-match.jsonl", folder)
    text = EEE_QA.read_text()
    (folder / EEE_QA.name).write_text(text[: len(text.splitlines()[0]) // 2])
    with pytest.raises(LogFormatError, match=EEE_QA.name):
        gf.read_log(folder)


def test_eee_on_the_command_line_with_and_without_from():
    for extra in ([], ["--from", "every-eval-ever"]):
        status, out, err = run_cli("score", EEE_QA, "--quiet", *extra)
        assert status == 0, err
        assert "eee" in out or "gf_qa" in out


def test_eee_reference_with_a_thousands_comma_is_not_read_as_a_python_tuple():
    frame = gf.read_eee(EEE_QA).filter(pl.col("sample_id") == "truncated")
    assert frame["refs"].to_list() == [["1,204"], ["1,204"]]


# ---- DeepEval ---------------------------------------------------------------------------------

DEEPEVAL = NEW / "deepeval"
DEEPEVAL_RUNS = sorted(DEEPEVAL.glob("test_run_*.json"))
DEEPEVAL_LATEST = DEEPEVAL / ".deepeval" / ".latest_test_run.json"


def _deepeval_cases(path: Path) -> list[tuple[dict, bool]]:
    document = json.loads(path.read_text())
    run = document.get("testRunData", document)
    return [(c, False) for c in run["testCases"]] + [
        (c, True) for c in run["conversationalTestCases"]
    ]


def test_deepeval_reads_one_row_per_test_case_and_conversation():
    frame = gf.read_log(DEEPEVAL)
    cases = [c for path in DEEPEVAL_RUNS for c in _deepeval_cases(path)]
    assert frame.height == len(cases)
    assert frame["sample_id"].to_list() == [c["name"] for c, _ in cases]
    assert frame["deepeval_conversational"].to_list() == [chat for _, chat in cases]
    replies = [
        [t["content"] for t in c["turns"] if t["role"] == "assistant"][-1]
        if chat
        else c.get("actualOutput")
        for c, chat in cases
    ]
    assert answer(frame).to_list() == replies
    refs = [[c["expectedOutcome"] if chat else c["expectedOutput"]] for c, chat in cases]
    assert frame["refs"].to_list() == refs


@pytest.mark.parametrize("metric", [None, "Exact Match", "Contains", "FlakyJudge"])
def test_deepeval_verdict_is_the_named_metrics_success_and_its_reason(metric):
    (run,) = [p for p in DEEPEVAL_RUNS if not _deepeval_cases(p)[0][1]]
    frame = gf.read_deepeval(run, metric=metric)
    for row, (case, _) in zip(frame.iter_rows(named=True), _deepeval_cases(run), strict=True):
        data = case["metricsData"]
        chosen = data[0] if metric is None else next(m for m in data if m["name"] == metric)
        errored = chosen.get("error") is not None
        assert row["tool_correct"] == (None if errored else chosen["success"])
        assert row["deepeval_reason"] == chosen.get("reason")
        assert [m["name"] for m in row["deepeval_metrics"]] == [m["name"] for m in data]


def test_deepeval_judge_that_errors_on_a_reply_is_a_grader_failure_not_a_wrong_answer():
    (run,) = [p for p in DEEPEVAL_RUNS if not _deepeval_cases(p)[0][1]]
    frame = gf.read_deepeval(run, metric="FlakyJudge")
    failed = frame.filter(pl.col("tool_failure") == "grader_failure")
    assert failed["sample_id"].to_list() == ["capital"]
    assert failed["tool_correct"].to_list() == [None]
    assert graded(failed)["correct"].to_list() == [True]


def test_deepeval_case_without_a_reply_is_an_error_and_an_empty_reply_is_not():
    frame = graded(gf.read_deepeval(DEEPEVAL))
    kinds = dict(zip(frame["sample_id"], frame["failure_kind"], strict=True))
    assert kinds["boom"] == "error"
    assert kinds["empty"] == "parse_failure"
    assert kinds["refusal"] == "wrong"  # DeepEval flags no refusal: the text alone is graded
    correct = dict(zip(frame["sample_id"], frame["correct"], strict=True))
    assert correct["units"] is True  # 12,400 against 12400
    assert correct["height"] is False  # 145.2 against 45.2
    assert correct["temp"] is False  # -12 against 12


def test_deepeval_seconds_cost_and_tool_calls_are_read():
    (run,) = [p for p in DEEPEVAL_RUNS if not _deepeval_cases(p)[0][1]]
    frame = gf.read_deepeval(run)
    cases = [c for c, _ in _deepeval_cases(run)]
    assert frame["seconds"].to_list() == [c.get("completionTime") for c in cases]
    assert frame["cost"].to_list() == [c.get("tokenCost") for c in cases]
    calls = frame.filter(pl.col("sample_id") == "units")["tool_calls"][0].to_list()
    written = cases[0]["toolsCalled"]
    assert [c["name"] for c in calls] == [c["name"] for c in written]
    assert [json.loads(c["arguments"]) for c in calls] == [c["inputParameters"] for c in written]


def test_deepeval_latest_test_run_reads_like_the_results_folder_copy():
    latest = gf.read_log(DEEPEVAL_LATEST).drop("log", "task")
    same = [gf.read_log(p).drop("log", "task") for p in DEEPEVAL_RUNS]
    assert any(
        latest.drop("deepeval_run_duration").equals(f.drop("deepeval_run_duration")) for f in same
    )
    assert detect_tool(DEEPEVAL_LATEST) == "deepeval"


# ---- Braintrust -------------------------------------------------------------------------------

BRAINTRUST = NEW / "braintrust" / "gf-braintrust.json"


def test_braintrust_trials_are_epochs_of_one_sample_in_order():
    results = json.loads(BRAINTRUST.read_text())["results"]
    frame = gf.read_braintrust(BRAINTRUST)
    assert frame.height == len(results)
    cases: dict[str, int] = {}
    trials: dict[str, int] = defaultdict(int)
    expected = []
    for result in results:
        key = json.dumps([result["input"], result["expected"]])
        cases.setdefault(key, len(cases) + 1)
        trials[key] += 1
        expected.append((str(cases[key]), trials[key]))
    assert list(zip(frame["sample_id"], frame["epoch"], strict=True)) == expected
    assert frame["epoch"].max() == 2


@pytest.mark.parametrize("scorer", [None, "exact_match", "contains", "judge"])
def test_braintrust_verdict_is_the_named_scorers_score_equal_to_one(scorer):
    document = json.loads(BRAINTRUST.read_text())
    first = next(iter(document["summary"]["comparison"]["scores"]))
    name = scorer or first
    frame = gf.read_braintrust(BRAINTRUST, scorer=scorer)
    scores = [r["scores"].get(name) for r in document["results"]]
    assert frame["tool_score"].to_list() == [None if s is None else json.dumps(s) for s in scores]
    assert frame["tool_correct"].to_list() == [None if s is None else s == 1 for s in scores]


def test_braintrust_scorer_that_raised_is_a_grader_failure_and_a_task_that_raised_an_error():
    frame = gf.read_braintrust(BRAINTRUST, scorer="judge")
    results = json.loads(BRAINTRUST.read_text())["results"]
    failed = [
        "judge" in (r["metadata"] or {}).get("scorer_errors", {}) and r["error"] is None
        for r in results
    ]
    assert (frame["tool_failure"] == "grader_failure").fill_null(value=False).to_list() == failed
    assert any(failed)
    kinds = graded(frame)["failure_kind"].to_list()
    errored = [r["error"] is not None for r in results]
    assert [k == "error" for k in kinds] == errored
    assert any(errored)


def test_braintrust_standard_cases_grade_and_unknown_scorer_is_named():
    frame = graded(gf.read_braintrust(BRAINTRUST))
    by_input = dict(zip(frame["input"], frame["correct"], strict=False))
    assert by_input["How many units were made?"] is True
    assert by_input["How tall is the tower?"] is False
    assert by_input["How cold did it get?"] is False
    with pytest.raises(ValueError, match="has the scorers"):
        gf.read_braintrust(BRAINTRUST, scorer="nope")


# ---- LangSmith --------------------------------------------------------------------------------

LANGSMITH = NEW / "langsmith"
LANGSMITH_CSV = LANGSMITH / "gf-langsmith.csv"
LANGSMITH_PARQUET = LANGSMITH / "gf-langsmith.parquet"


def _langsmith_rows() -> list[dict]:
    import csv

    with LANGSMITH_CSV.open(newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("path", [LANGSMITH_CSV, LANGSMITH_PARQUET], ids=["csv", "parquet"])
def test_langsmith_repetitions_of_an_example_are_epochs_in_order(path):
    rows = _langsmith_rows()
    frame = gf.read_log(path)
    assert detect_tool(path) == "langsmith"
    counts: dict[str, int] = defaultdict(int)
    expected = []
    for row in rows:
        counts[row["example_id"]] += 1
        expected.append((row["example_id"], counts[row["example_id"]]))
    assert list(zip(frame["sample_id"], frame["epoch"], strict=True)) == expected
    assert frame["input"].to_list() == [r["inputs.question"] for r in rows]
    assert frame["refs"].to_list() == [[r["reference.answer"]] for r in rows]
    assert frame["seconds"].to_list() == [float(r["execution_time"]) for r in rows]


@pytest.mark.parametrize("feedback", ["exact", "contains", "judge"])
def test_langsmith_feedback_is_the_verdict_and_a_raised_evaluator_a_grader_failure(feedback):
    rows = _langsmith_rows()
    frame = gf.read_langsmith(LANGSMITH_PARQUET, feedback=feedback)
    raw = [r[f"feedback.{feedback}"] for r in rows]
    truth = {"True": True, "False": False, "1.0": True, "0.0": False, "0.5": False}
    assert frame["tool_correct"].to_list() == [truth.get(v) for v in raw]
    failed = [v == "" and r["error"] == "" for v, r in zip(raw, rows, strict=True)]
    assert (frame["tool_failure"] == "grader_failure").fill_null(value=False).to_list() == failed
    assert any(failed) == (feedback == "judge")


def test_langsmith_csv_and_parquet_read_alike_but_for_the_empty_reply_a_csv_cannot_keep():
    csv = gf.read_log(LANGSMITH_CSV).drop("log")
    parquet = gf.read_log(LANGSMITH_PARQUET).drop("log")
    differ = [c for c in csv.columns if not csv[c].equals(parquet[c])]
    assert differ == ["output", "langsmith_outputs"]
    empty = answer(parquet) == ""
    assert answer(csv).filter(empty).is_null().all()
    assert answer(csv).filter(~empty).equals(answer(parquet).filter(~empty))


def test_langsmith_errors_and_standard_cases_grade():
    frame = graded(gf.read_langsmith(LANGSMITH_PARQUET))
    by_input = dict(zip(frame["input"], frame["failure_kind"], strict=False))
    assert by_input["This one errors."] == "error"
    assert by_input["Name the fruit."] == "parse_failure"
    correct = dict(zip(frame["input"], frame["correct"], strict=False))
    assert correct["How many units were made?"] is True
    assert correct["How tall is the tower?"] is False
    assert correct["How cold did it get?"] is False
    with pytest.raises(ValueError, match="feedback='nope'"):
        gf.read_langsmith(LANGSMITH_PARQUET, feedback="nope")


# ---- Arize Phoenix ----------------------------------------------------------------------------

PHOENIX = NEW / "phoenix"
PHOENIX_JSON = PHOENIX / "gf-phoenix.json"
PHOENIX_CSV = PHOENIX / "gf-phoenix.csv"


@pytest.mark.parametrize("path", [PHOENIX_JSON, PHOENIX_CSV], ids=["json", "csv"])
def test_phoenix_repetition_number_is_the_epoch_and_reference_output_the_refs(path):
    records = json.loads(PHOENIX_JSON.read_text())
    frame = gf.read_log(path)
    assert detect_tool(path) == "phoenix"
    assert frame["sample_id"].to_list() == [r["example_id"] for r in records]
    assert frame["epoch"].to_list() == [r["repetition_number"] for r in records]
    assert frame["refs"].to_list() == [[r["reference_output"]["answer"]] for r in records]
    assert frame["input"].to_list() == [r["input"]["question"] for r in records]
    assert frame["seconds"].to_list() == pytest.approx([r["latency_ms"] / 1000 for r in records])


@pytest.mark.parametrize("annotation", [None, "contains", "judge"])
def test_phoenix_annotation_is_the_verdict_and_a_raised_evaluator_a_grader_failure(annotation):
    records = json.loads(PHOENIX_JSON.read_text())
    frame = gf.read_phoenix(PHOENIX_JSON, annotation=annotation)
    chosen = [next(a for a in r["annotations"] if annotation in (None, a["name"])) for r in records]
    assert frame["tool_correct"].to_list() == [
        None if a["error"] else a["score"] == 1 for a in chosen
    ]
    failed = [a["error"] is not None for a in chosen]
    assert (frame["tool_failure"] == "grader_failure").fill_null(value=False).to_list() == failed
    assert any(failed) == (annotation == "judge")


def test_phoenix_errored_task_is_an_error_though_its_evaluator_scored_it():
    records = json.loads(PHOENIX_JSON.read_text())
    errored = [r for r in records if r["error"]]
    assert errored
    assert all(a["score"] == 0.0 for r in errored for a in r["annotations"])  # Phoenix's 0.0
    frame = graded(gf.read_phoenix(PHOENIX_JSON))
    kinds = frame.filter(pl.col("phoenix_error").is_not_null())["failure_kind"]
    assert kinds.to_list() == ["error"] * len(errored)


def test_phoenix_csv_and_json_read_alike_but_for_the_empty_reply_and_the_csvs_metadata():
    csv_frame = gf.read_log(PHOENIX_CSV).drop("log", "task")
    json_frame = gf.read_log(PHOENIX_JSON).drop("log", "task")
    differ = [c for c in csv_frame.columns if not csv_frame[c].equals(json_frame[c])]
    assert differ == ["output", "phoenix_metadata"]  # the JSON export leaves metadata out
    empty = answer(json_frame) == ""
    assert answer(csv_frame).filter(empty).is_null().all()
    assert csv_frame["phoenix_metadata"].null_count() == 0


def test_phoenix_standard_cases_grade():
    frame = graded(gf.read_phoenix(PHOENIX_JSON))
    correct = dict(zip(frame["input"], frame["correct"], strict=False))
    assert correct["How many units were made?"] is True
    assert correct["How tall is the tower?"] is False
    assert correct["How cold did it get?"] is False
    kinds = dict(zip(frame["input"], frame["failure_kind"], strict=False))
    assert kinds["Name the fruit."] == "parse_failure"


# ---- every new format: one folder, one frame; the command line ---------------------------------


def test_a_folder_of_all_new_formats_and_old_logs_reads_as_one_frame(tmp_path):
    folder = tmp_path / "mixed"
    shutil.copytree(NEW, folder)
    shutil.copytree(OLD / "openai_evals", folder / "openai_evals")
    frame = gf.read_log(folder)
    tools = set(frame["tool"])
    assert tools == {"eee", "deepeval", "braintrust", "langsmith", "phoenix", "openai_evals"}
    # each file read once: the LangSmith and Phoenix runs are stored in two formats each
    per_file = frame.group_by("log").len()
    assert per_file.height == len({*frame["log"]})
    assert graded(frame)["failure_kind"].null_count() > 0


@pytest.mark.parametrize(
    ("path", "name"),
    [
        (PHOENIX_CSV, "phoenix"),
        (LANGSMITH_PARQUET, "langsmith"),
        (BRAINTRUST, "braintrust"),
        (DEEPEVAL_RUNS[0], "deepeval"),
        (EEE_GEN, "every_eval_ever"),
    ],
)
def test_each_new_format_scores_on_the_command_line_with_and_without_from(path, name):
    for extra in ([], ["--from", name]):
        status, out, err = run_cli("score", path, "--quiet", *extra)
        assert status == 0, err
        assert out.strip()


@pytest.mark.parametrize(
    "source",
    [EEE_QA, DEEPEVAL_RUNS[0], BRAINTRUST, PHOENIX_JSON],
    ids=["eee", "deepeval", "braintrust", "phoenix"],
)
def test_a_new_format_log_cut_short_in_a_folder_is_named_not_dropped(tmp_path, source):
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(OLD / "openai_evals" / "gf-match.jsonl", folder)
    data = source.read_bytes()
    (folder / source.name).write_bytes(data[: len(data) * 2 // 3])
    with pytest.raises(LogFormatError, match=source.name):
        gf.read_log(folder)


# ---- Every Eval Ever: the reader's rules held to a scalar reference on generated lines ----------

_LINE = json.loads(EEE_QA.read_text().splitlines()[3])  # a real line: the template
_ASSISTANT = {"turn_idx": 1, "role": "assistant", "reasoning_trace": None, "tool_calls": []}
_attempt = st.fixed_dictionaries(
    {
        "scores": st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=1, max_size=3),
        "stop": st.sampled_from(["stop", "max_tokens", "length", "content_filter", ""]),
        "error": st.booleans(),
        "replies": st.one_of(st.none(), st.lists(st.text(max_size=8), min_size=1, max_size=3)),
        "raw": st.text(max_size=8),
        "epoch": st.integers(1, 3),
    }
)


def _eee_reference(attempt: dict) -> dict:
    """What SPEC §6 says one attempt reads as, computed from the generated attempt."""
    replies = attempt["replies"]
    answer, source = (replies[-1], "messages") if replies else (attempt["raw"], "output.raw")
    first = attempt["scores"][0]
    return {
        "answer": answer,
        "source": source,
        "tool_correct": first == 1.0,
        "partial": attempt["stop"] in ("max_tokens", "length"),
        "status": "error" if attempt["error"] else "ok",
        "scores": attempt["scores"],
    }


@settings(max_examples=40, deadline=None)
@given(st.lists(_attempt, min_size=1, max_size=6))
def test_eee_reader_matches_the_scalar_reference_on_generated_lines(tmp_path_factory, attempts):
    target = tmp_path_factory.mktemp("eee") / "gen_samples.jsonl"
    out = []
    for number, attempt in enumerate(attempts):
        messages = None
        if attempt["replies"]:
            messages = [{**_ASSISTANT, "content": text} for text in attempt["replies"]]
        for index, score in enumerate(attempt["scores"]):
            line = json.loads(json.dumps(_LINE))
            line["sample_id"] = f"s{number}"
            line["evaluation_result_id"] = f"scorer{index}"
            line["evaluation"] = {**line["evaluation"], "score": score, "is_correct": score > 0}
            line["metadata"] = {"stop_reason": attempt["stop"], "epoch": str(attempt["epoch"])}
            line["error"] = "boom" if attempt["error"] else None
            line["messages"] = messages
            line["output"] = {"raw": [attempt["raw"]], "reasoning_trace": None}
            out.append(json.dumps(line))
    target.write_text("\n".join(out))
    frame = gf.read_eee(target)
    expected = [_eee_reference(a) for a in attempts]
    assert frame.height == len(attempts)
    output = frame["output"].struct.unnest()
    assert output["answer"].to_list() == [e["answer"] for e in expected]
    assert frame["eee_answer_source"].to_list() == [e["source"] for e in expected]
    assert frame["tool_correct"].to_list() == [e["tool_correct"] for e in expected]
    assert output["partial"].to_list() == [e["partial"] for e in expected]
    assert output["status"].to_list() == [e["status"] for e in expected]
    got = [[s["score"] for s in row] for row in frame["eee_scores"].to_list()]
    assert got == [e["scores"] for e in expected]


@pytest.mark.parametrize(
    ("metrics", "input_tokens", "cache_read_tokens"),
    [
        ({"prompt_tokens": 120, "prompt_cached_tokens": 100}, 20, 100),
        ({"prompt_tokens": 120, "prompt_cached_tokens": 0}, 120, 0),
        ({"prompt_tokens": 120}, 120, None),
        ({"prompt_cached_tokens": 100}, None, 100),
    ],
    ids=["cached", "none-cached", "no-cache-count", "no-prompt-count"],
)
def test_braintrust_cached_prompt_tokens_are_not_charged_twice(
    tmp_path, metrics, input_tokens, cache_read_tokens
):
    # Braintrust's prompt_tokens counts the cached ones too; gradeframe's input_tokens does not
    # (inspect's convention, which report(cost=) prices). The real fixture ran without a model
    # that reports usage, so the metrics of an experiment export are added to its results.
    log = json.loads(BRAINTRUST.read_text())
    for result in log["results"]:
        result["metrics"] = {**metrics, "completion_tokens": 7}
    path = tmp_path / "with-metrics.json"
    path.write_text(json.dumps(log))
    frame = gf.read_braintrust(path)
    assert frame["input_tokens"].to_list() == [input_tokens] * frame.height
    assert frame["cache_read_tokens"].to_list() == [cache_read_tokens] * frame.height
    assert frame["output_tokens"].to_list() == [7] * frame.height
