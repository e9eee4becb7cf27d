"""Reading real evaluation logs: rows, answers, acceptable answers and failure kinds, row by row.

Every log under tests/fixtures/logs/ was written by the tool itself (see its README). Broken and
newer-version logs are made at run time from those real files, in a temporary folder.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import polars as pl
import pytest

import gradeframe as gf
from gradeframe.logs import LogFormatError, detect_tool

LOGS = Path(__file__).parent / "fixtures" / "logs"
INSPECT_QA_EVAL = LOGS / "inspect" / "2026-11-30T20-32-04-00-00_gf-qa_hH4q6vpC7RtD79gw4cKxLP.eval"
INSPECT_QA_JSON = LOGS / "inspect" / "2026-11-30T20-32-12-00-00_gf-qa_9AVH5LECPjQ7cbwAFhBhEM.json"
INSPECT_MCQ_JSON = LOGS / "inspect" / "2026-11-30T20-32-19-00-00_gf-mcq_ayWtMuiSewTvztmaJWvh6Y.json"
INSPECT_MCQ_EVAL = LOGS / "inspect" / "2026-11-30T20-32-26-00-00_gf-mcq_bCyeupM2xmY9oxZyYfQden.eval"
LM_EVAL = LOGS / "lm_eval" / "demo-org__scripted-a"
LM_EVAL_GEN = LM_EVAL / "samples_gf_gen_2026-11-30T20-34-46.889095.jsonl"
PROMPTFOO_JSON = LOGS / "promptfoo" / "results.json"
PROMPTFOO_JSONL = LOGS / "promptfoo" / "results.jsonl"
OPENAI_MATCH = LOGS / "openai_evals" / "gf-match.jsonl"
HELM_QA = LOGS / "helm" / "v1" / "gf_qa__model_gf_scripted-a"

COMMON = ["tool", "log", "model", "task", "sample_id", "epoch", "input", "output", "refs"]
COMMON += ["tool_score", "tool_correct"]


def graded_rows(frame: pl.DataFrame) -> list[tuple]:
    """Grade a read frame and return, per row, what the tests compare."""
    graded = frame.grade.answer_contains("output", "refs")
    out = pl.col("output")
    reasons = out.struct.field("trace").list.eval(pl.element().struct.field("finish_reason"))
    return list(
        graded.select(
            "sample_id",
            "epoch",
            out.struct.field("answer"),
            "refs",
            out.struct.field("partial"),
            out.struct.field("notes"),
            reasons,
            out.struct.field("status"),
            "tool_correct",
            "correct",
            "failure_kind",
        ).iter_rows()
    )


def assert_rows(frame: pl.DataFrame, expected: list[tuple]) -> None:
    """Compare the graded rows with the expected ones, row by row."""
    got = graded_rows(frame)
    assert len(got) == len(expected), f"{len(got)} rows read, {len(expected)} expected"
    for index, (row, want) in enumerate(zip(got, expected, strict=True)):
        assert row == want, f"row {index}:\n got      {row}\n expected {want}"


# (sample_id, epoch, answer, refs, partial, notes, finish reasons, status, tool_correct,
#  correct, failure_kind). Read from the logs: see tests/fixtures/logs/README.md.
INSPECT_QA = [
    ("boom", 1, None, ["7"], False, [], ["stop"], "error", None, False, "error"),
    ("filtered", 1, "", ["anything"], False, [], ["content_filter"], "ok", False, False, "refusal"),
    (
        "height",
        1,
        "It is 145.2 m.",
        ["45.2", "45.2 m"],
        False,
        [],
        ["stop"],
        "ok",
        True,
        False,
        "wrong",
    ),
    (
        "looping",
        1,
        "Still thinking (4)...",
        ["42"],
        True,
        ["limit:message", "call_cap_reached"],
        ["stop"] * 3,
        "ok",
        False,
        False,
        "budget_stop",
    ),
    (
        "missing_doc",
        1,
        "The document does not say how many staff there are.",
        ["340"],
        False,
        [],
        ["stop"],
        "ok",
        False,
        False,
        "not_in_document",
    ),
    (
        "multi_ref",
        1,
        "Paris is the capital.",
        ["Paris", "paris, france"],
        False,
        [],
        ["stop"],
        "ok",
        True,
        True,
        None,
    ),
    (
        "refusal_text",
        1,
        "I'm sorry, but I can't help with that request.",
        ["buffer overflow"],
        False,
        [],
        ["stop"],
        "ok",
        False,
        False,
        "wrong",
    ),
    ("temp", 1, "It fell to -12 °C.", ["12"], False, [], ["stop"], "ok", True, False, "wrong"),
    (
        "truncated",
        1,
        "The total was 1,2",
        ["1,204"],
        True,
        ["stop:max_tokens"],
        ["max_tokens"],
        "ok",
        False,
        False,
        "wrong",
    ),
    (
        "unanswerable",
        1,
        "NOT_IN_DOCUMENT",
        ["NOT_IN_DOCUMENT"],
        False,
        [],
        ["stop"],
        "ok",
        True,
        True,
        None,
    ),
    ("units", 1, "Made 12,400 units.", ["12400"], False, [], ["stop"], "ok", False, True, None),
    ("boom", 2, None, ["7"], False, [], ["stop"], "error", None, False, "error"),
    ("filtered", 2, "", ["anything"], False, [], ["content_filter"], "ok", False, False, "refusal"),
    ("height", 2, "It is 45.2 m.", ["45.2", "45.2 m"], False, [], ["stop"], "ok", True, True, None),
    (
        "looping",
        2,
        "Still thinking (5)...",
        ["42"],
        True,
        ["limit:message", "call_cap_reached"],
        ["stop"] * 3,
        "ok",
        False,
        False,
        "budget_stop",
    ),
    (
        "missing_doc",
        2,
        "The document does not say how many staff there are.",
        ["340"],
        False,
        [],
        ["stop"],
        "ok",
        False,
        False,
        "not_in_document",
    ),
    (
        "multi_ref",
        2,
        "Paris is the capital.",
        ["Paris", "paris, france"],
        False,
        [],
        ["stop"],
        "ok",
        True,
        True,
        None,
    ),
    (
        "refusal_text",
        2,
        "I'm sorry, but I can't help with that request.",
        ["buffer overflow"],
        False,
        [],
        ["stop"],
        "ok",
        False,
        False,
        "wrong",
    ),
    ("temp", 2, "It fell to -12 °C.", ["12"], False, [], ["stop"], "ok", True, False, "wrong"),
    (
        "truncated",
        2,
        "The total was 1,2",
        ["1,204"],
        True,
        ["stop:max_tokens"],
        ["max_tokens"],
        "ok",
        False,
        False,
        "wrong",
    ),
    (
        "unanswerable",
        2,
        "The document does not mention the launch date.",
        ["NOT_IN_DOCUMENT"],
        False,
        [],
        ["stop"],
        "ok",
        False,
        True,
        None,
    ),
    ("units", 2, "Made 12400 units.", ["12400"], False, [], ["stop"], "ok", True, True, None),
]


@pytest.mark.parametrize("path", [INSPECT_QA_EVAL, INSPECT_QA_JSON], ids=["eval", "json"])
def test_inspect_qa_rows_limits_filters_errors(path):
    frame = gf.read_inspect(path)
    assert frame.columns[: len(COMMON)] == COMMON
    assert frame["tool"].unique().to_list() == ["inspect"]
    assert frame["model"].unique().to_list() == ["mockllm/model"]
    assert frame["task"].unique().to_list() == ["gf_qa"]
    assert frame["log"].unique().to_list() == [str(path)]
    assert_rows(frame, INSPECT_QA)


def test_inspect_eval_and_json_of_the_same_task_read_alike():
    columns = ["sample_id", "epoch", "input", "output", "refs", "tool_score", "tool_correct"]
    columns += ["input_tokens", "output_tokens", "total_tokens", "inspect_stop_reason"]
    columns += ["inspect_limit", "inspect_error", "inspect_scores"]
    eval_frame = gf.read_inspect(INSPECT_QA_EVAL).select(columns)
    json_frame = gf.read_inspect(INSPECT_QA_JSON).select(columns)
    assert eval_frame.equals(json_frame)


def test_inspect_scores_error_tokens_and_input():
    frame = gf.read_inspect(INSPECT_QA_EVAL)
    boom = frame.row(0, named=True)
    assert boom["inspect_error"] == "RuntimeError('mock provider failure: upstream 500')"
    assert boom["tool_score"] is None  # an errored sample has no score
    assert boom["total_tokens"] is None
    units = frame.filter(sample_id="units", epoch=1).row(0, named=True)
    assert units["input"] == "[units] How many units were made?"
    assert units["inspect_scorer"] == "includes"
    assert json.loads(units["inspect_scores"]) == {"includes": "I", "match": "C"}
    assert (units["input_tokens"], units["output_tokens"], units["total_tokens"]) == (10, 3, 13)
    assert units["seconds"] > 0
    looping = frame.filter(sample_id="looping", epoch=1).row(0, named=True)
    assert looping["inspect_limit"] == "message"
    assert looping["total_tokens"] == 99  # usage summed over the three model calls


def test_inspect_scorer_option_picks_the_verdict():
    frame = gf.read_inspect(INSPECT_QA_EVAL, scorer="match")
    units = frame.filter(sample_id="units", epoch=1).row(0, named=True)
    assert (units["tool_score"], units["tool_correct"]) == ("C", True)
    multi = frame.filter(sample_id="multi_ref", epoch=1).row(0, named=True)
    assert (multi["tool_score"], multi["tool_correct"]) == ("I", False)


@pytest.mark.parametrize("path", [INSPECT_MCQ_EVAL, INSPECT_MCQ_JSON], ids=["eval", "json"])
def test_inspect_multiple_choice_answers_with_the_options_the_letters_name(path):
    frame = gf.read_inspect(path)
    assert frame["task"].unique().to_list() == ["gf_mcq"]
    assert frame["inspect_choices"].to_list() == [
        ["Berlin", "Paris", "Rome"],
        ["4", "6", "7"],
        ["Red", "Dog", "Car"],
    ]
    # the model's own text and inspect's target letters are kept
    assert frame["inspect_completion"].to_list() == ["B", "ANSWER: C", "ANSWER: C"]
    assert frame["inspect_target"].to_list() == [["B"], ["C"], ["A"]]
    assert frame["inspect_score_answer"].to_list() == ["", "C", "C"]
    # the answer is the option choice() read (none from a bare "B"), refs the target's option
    assert_rows(
        frame,
        [
            ("mc1", 1, None, ["Paris"], False, [], ["stop"], "ok", False, False, "parse_failure"),
            ("mc2", 1, "7", ["7"], False, [], ["stop"], "ok", True, True, None),
            ("mc3", 1, "Car", ["Red"], False, [], ["stop"], "ok", False, False, "wrong"),
        ],
    )


LM_EVAL_ROWS = [
    (
        "units",
        1,
        "The answer is 12,400 units.",
        ["12400", "12,400"],
        None,
        None,
        None,
        None,
        False,
        True,
        None,
    ),
    ("height", 1, "It is 145.2 m tall.", ["45.2"], None, None, None, None, False, False, "wrong"),
    ("temp", 1, "It fell to -12 degrees.", ["12"], None, None, None, None, False, False, "wrong"),
    (
        "unanswerable",
        1,
        "NOT_IN_DOCUMENT",
        ["NOT_IN_DOCUMENT"],
        None,
        None,
        None,
        None,
        True,
        True,
        None,
    ),
    (
        "refusal_text",
        1,
        "I'm sorry, but I can't help with that.",
        ["buffer overflow"],
        None,
        None,
        None,
        None,
        False,
        False,
        "wrong",
    ),
    ("empty", 1, "", ["tangerine"], None, None, None, None, False, False, "parse_failure"),
    ("multi_ref", 1, "Paris", ["Paris", "paris, france"], None, None, None, None, True, True, None),
    ("units", 1, "12,400", ["12400", "12,400"], None, None, None, None, True, True, None),
    ("height", 1, "145.2", ["45.2"], None, None, None, None, False, False, "wrong"),
    ("temp", 1, "-12", ["12"], None, None, None, None, False, False, "wrong"),
    # "[invalid]": the regex filter found no number
    (
        "unanswerable",
        1,
        None,
        ["NOT_IN_DOCUMENT"],
        None,
        None,
        None,
        None,
        False,
        False,
        "parse_failure",
    ),
    (
        "refusal_text",
        1,
        None,
        ["buffer overflow"],
        None,
        None,
        None,
        None,
        False,
        False,
        "parse_failure",
    ),
    ("empty", 1, None, ["tangerine"], None, None, None, None, False, False, "parse_failure"),
    (
        "multi_ref",
        1,
        None,
        ["Paris", "paris, france"],
        None,
        None,
        None,
        None,
        False,
        False,
        "parse_failure",
    ),
    # multiple choice: the continuation with the highest log-likelihood against the gold one
    ("mc1", 1, "Paris", ["Paris"], None, None, None, None, True, True, None),
    ("mc2", 1, "6", ["7"], None, None, None, None, False, False, "wrong"),
    ("mc3", 1, "Red", ["Red"], None, None, None, None, True, True, None),
]


def test_lm_eval_targets_filters_invalid_and_multiple_choice():
    frame = gf.read_lm_eval(LM_EVAL)
    assert frame["tool"].unique().to_list() == ["lm_eval"]
    assert frame["model"].unique().to_list() == ["demo-org/scripted-a"]
    assert frame["task"].to_list() == ["gf_gen"] * 14 + ["gf_mc"] * 3
    assert frame["lm_eval_filter"].to_list() == ["raw"] * 7 + ["number"] * 7 + ["none"] * 3
    assert frame["input"][0] == "Question: How many units were made?\nAnswer:"
    assert frame["lm_eval_resps"][0].to_list() == ["The answer is 12,400 units.", "12400"]
    assert_rows(frame, LM_EVAL_ROWS)


def test_lm_eval_filter_option_and_raw_repeats():
    numbers = gf.read_lm_eval(LM_EVAL_GEN, filter="number")
    assert numbers["output"].struct.field("answer").to_list()[:3] == ["12,400", "145.2", "-12"]
    with pytest.raises(ValueError, match=r"no such filter; its filters are \['raw', 'number'\]"):
        gf.read_lm_eval(LM_EVAL_GEN, filter="strict")
    both = gf.read_lm_eval(LM_EVAL, filter=["number", "none"])
    assert both["lm_eval_filter"].to_list() == ["number"] * 7 + ["none"] * 3
    raw = gf.read_lm_eval(LM_EVAL_GEN, responses="raw")
    assert raw.height == 14  # 7 documents x 2 repeats, whatever the filters
    assert raw.select("sample_id", "epoch").head(2).rows() == [("units", 1), ("units", 2)]
    assert raw["output"].struct.field("answer").head(2).to_list() == [
        "The answer is 12,400 units.",
        "12400",
    ]
    assert raw["tool_correct"].is_null().all()
    graded = raw.grade.answer_contains("output", "refs")
    assert graded["correct"].head(2).to_list() == [True, True]


PROMPTFOO_ROWS = [
    ("0", 1, "Made 12,400 units.", ["12400"], False, [], ["stop"], "ok", False, True, None),
    (
        "0",
        1,
        "[units] How many units were made?",
        ["12400"],
        False,
        [],
        [],
        "ok",
        False,
        False,
        "wrong",
    ),
    (
        "0",
        2,
        "[units] How many units were made?",
        ["12400"],
        False,
        [],
        [],
        "ok",
        False,
        False,
        "wrong",
    ),
    ("0", 2, "Made 12400 units.", ["12400"], False, [], ["stop"], "ok", True, True, None),
    (
        "2",
        1,
        "[height] How tall is it?",
        ["45.2", "45.2 m"],
        False,
        [],
        [],
        "ok",
        False,
        False,
        "wrong",
    ),
    ("2", 1, "It is 145.2 m.", ["45.2", "45.2 m"], False, [], ["stop"], "ok", True, False, "wrong"),
    (
        "3",
        1,
        "[height] How tall is it?",
        ["45.2", "45.2 m"],
        False,
        [],
        [],
        "ok",
        False,
        False,
        "wrong",
    ),
    ("3", 1, "It is 145.2 m.", ["45.2", "45.2 m"], False, [], ["stop"], "ok", True, False, "wrong"),
    (
        "2",
        2,
        "[height] How tall is it?",
        ["45.2", "45.2 m"],
        False,
        [],
        [],
        "ok",
        False,
        False,
        "wrong",
    ),
    ("2", 2, "It is 145.2 m.", ["45.2", "45.2 m"], False, [], ["stop"], "ok", True, False, "wrong"),
    (
        "3",
        2,
        "[height] How tall is it?",
        ["45.2", "45.2 m"],
        False,
        [],
        [],
        "ok",
        False,
        False,
        "wrong",
    ),
    ("3", 2, "It is 145.2 m.", ["45.2", "45.2 m"], False, [], ["stop"], "ok", True, False, "wrong"),
    ("6", 1, "[temp] How cold did it get?", ["12"], False, [], [], "ok", False, False, "wrong"),
    ("6", 1, "It fell to -12 °C.", ["12"], False, [], ["stop"], "ok", True, False, "wrong"),
    ("6", 2, "[temp] How cold did it get?", ["12"], False, [], [], "ok", False, False, "wrong"),
    ("6", 2, "It fell to -12 °C.", ["12"], False, [], ["stop"], "ok", True, False, "wrong"),
    (
        "8",
        1,
        "The document does not mention the launch date.",
        ["NOT_IN_DOCUMENT"],
        False,
        [],
        ["stop"],
        "ok",
        False,
        True,
        None,
    ),
    (
        "8",
        1,
        "[unanswerable] When was the launch?",
        ["NOT_IN_DOCUMENT"],
        False,
        [],
        [],
        "ok",
        False,
        False,
        "wrong",
    ),
    (
        "8",
        2,
        "The document does not mention the launch date.",
        ["NOT_IN_DOCUMENT"],
        False,
        [],
        ["stop"],
        "ok",
        False,
        True,
        None,
    ),
    (
        "8",
        2,
        "[unanswerable] When was the launch?",
        ["NOT_IN_DOCUMENT"],
        False,
        [],
        [],
        "ok",
        False,
        False,
        "wrong",
    ),
    (
        "10",
        1,
        "",
        ["anything"],
        False,
        [],
        ["content_filter", "refusal"],
        "refused",
        False,
        False,
        "refusal",
    ),
    (
        "10",
        1,
        "[filtered] Say something unsafe.",
        ["anything"],
        False,
        [],
        [],
        "ok",
        False,
        False,
        "wrong",
    ),
    (
        "10",
        2,
        "",
        ["anything"],
        False,
        [],
        ["content_filter", "refusal"],
        "refused",
        False,
        False,
        "refusal",
    ),
    (
        "10",
        2,
        "[filtered] Say something unsafe.",
        ["anything"],
        False,
        [],
        [],
        "ok",
        False,
        False,
        "wrong",
    ),
    (
        "12",
        1,
        "I'm sorry, but I can't help with that.",
        ["buffer overflow"],
        False,
        [],
        ["stop"],
        "ok",
        False,
        False,
        "wrong",
    ),
    (
        "12",
        1,
        "[refusal_text] Describe the exploit.",
        ["buffer overflow"],
        False,
        [],
        [],
        "ok",
        False,
        False,
        "wrong",
    ),
    (
        "12",
        2,
        "I'm sorry, but I can't help with that.",
        ["buffer overflow"],
        False,
        [],
        ["stop"],
        "ok",
        False,
        False,
        "wrong",
    ),
    (
        "12",
        2,
        "[refusal_text] Describe the exploit.",
        ["buffer overflow"],
        False,
        [],
        [],
        "ok",
        False,
        False,
        "wrong",
    ),
    (
        "14",
        1,
        "The total was 1,2",
        ["1,204"],
        True,
        ["finish:length"],
        ["length"],
        "ok",
        False,
        False,
        "wrong",
    ),
    (
        "14",
        1,
        "[truncated] What was the total?",
        ["1,204"],
        False,
        [],
        [],
        "ok",
        False,
        False,
        "wrong",
    ),
    (
        "14",
        2,
        "The total was 1,2",
        ["1,204"],
        True,
        ["finish:length"],
        ["length"],
        "ok",
        False,
        False,
        "wrong",
    ),
    (
        "14",
        2,
        "[truncated] What was the total?",
        ["1,204"],
        False,
        [],
        [],
        "ok",
        False,
        False,
        "wrong",
    ),
    ("16", 1, None, ["7"], False, [], [], "error", False, False, "error"),
    ("16", 1, "[boom] This one errors.", ["7"], False, [], [], "ok", False, False, "wrong"),
    ("16", 2, None, ["7"], False, [], [], "error", False, False, "error"),
    ("16", 2, "[boom] This one errors.", ["7"], False, [], [], "ok", False, False, "wrong"),
    (
        "18",
        1,
        "[multi_ref] What is the capital of France?",
        ["Paris", "paris, france"],
        False,
        [],
        [],
        "ok",
        False,
        False,
        "wrong",
    ),
    (
        "18",
        1,
        "Paris is the capital.",
        ["Paris", "paris, france"],
        False,
        [],
        ["stop"],
        "ok",
        True,
        True,
        None,
    ),
    (
        "18",
        2,
        "[multi_ref] What is the capital of France?",
        ["Paris", "paris, france"],
        False,
        [],
        [],
        "ok",
        False,
        False,
        "wrong",
    ),
    (
        "18",
        2,
        "Paris is the capital.",
        ["Paris", "paris, france"],
        False,
        [],
        ["stop"],
        "ok",
        True,
        True,
        None,
    ),
]


@pytest.mark.parametrize("path", [PROMPTFOO_JSON, PROMPTFOO_JSONL], ids=["json", "jsonl"])
def test_promptfoo_repeats_refs_from_assertions_errors_and_filters(path):
    frame = gf.read_promptfoo(path)
    assert frame["tool"].unique().to_list() == ["promptfoo"]
    models = ["scripted-a", "echo", "echo", "scripted-a"]
    assert frame["model"].head(4).to_list() == models
    assert frame["input"][0] == "[units] How many units were made?"
    assert_rows(frame, PROMPTFOO_ROWS)


def test_promptfoo_json_and_jsonl_give_the_same_rows():
    columns = [c for c in gf.read_promptfoo(PROMPTFOO_JSON).columns if c not in ("log", "task")]
    assert (
        gf.read_promptfoo(PROMPTFOO_JSON)
        .select(columns)
        .equals(gf.read_promptfoo(PROMPTFOO_JSONL).select(columns))
    )
    assert gf.read_promptfoo(PROMPTFOO_JSON)["task"][0] == "gradeframe format study (offline)"


def test_promptfoo_refs_from_a_variable_or_metadata_key():
    frame = gf.read_promptfoo(PROMPTFOO_JSON, refs="refs")
    by_test = frame.group_by("sample_id", maintain_order=True).agg(pl.col("refs").first())
    assert dict(by_test.rows()) == {
        "0": ["12400"],
        "2": ["45.2"],  # promptfoo expanded the list variable into one test per value
        "3": ["45.2 m"],
        "6": ["12"],
        "8": ["NOT_IN_DOCUMENT"],
        "10": ["anything"],
        "12": ["buffer overflow"],
        "14": ["1,204"],
        "16": ["7"],
        "18": ["Paris", "paris, france"],  # the list kept in the test's metadata wins
    }


def test_promptfoo_tokens_cost_latency_and_tool_columns():
    frame = gf.read_promptfoo(PROMPTFOO_JSON)
    first = frame.row(0, named=True)
    assert (first["input_tokens"], first["output_tokens"], first["total_tokens"]) == (12, 3, 15)
    assert first["promptfoo_cost"] == 0.0001
    assert first["seconds"] == 0.006
    assert first["tool_score"] == "0.5"  # one of two assertions passed
    assert first["promptfoo_failure_reason"] == 1
    error = frame.filter(pl.col("promptfoo_failure_reason") == 2)
    assert error["promptfoo_error"].unique().to_list() == [
        "API error: 500 Internal Server Error (mock)"
    ]


OPENAI_ROWS = [
    (
        "gf-includes.dev.0",
        1,
        "Made 12,400 units.",
        ["12400"],
        None,
        None,
        None,
        None,
        False,
        True,
        None,
    ),
    (
        "gf-includes.dev.1",
        1,
        "It is 145.2 m.",
        ["45.2", "45.2 m"],
        None,
        None,
        None,
        None,
        True,
        False,
        "wrong",
    ),
    (
        "gf-includes.dev.2",
        1,
        "It fell to -12 °C.",
        ["12"],
        None,
        None,
        None,
        None,
        True,
        False,
        "wrong",
    ),
    (
        "gf-includes.dev.3",
        1,
        "The document does not mention the launch date.",
        ["NOT_IN_DOCUMENT"],
        None,
        None,
        None,
        None,
        False,
        True,
        None,
    ),
    (
        "gf-includes.dev.4",
        1,
        "I'm sorry, but I can't help with that.",
        ["buffer overflow"],
        None,
        None,
        None,
        None,
        False,
        False,
        "wrong",
    ),
    (
        "gf-includes.dev.5",
        1,
        "Paris is the capital.",
        ["Paris", "paris, france"],
        None,
        None,
        None,
        None,
        True,
        True,
        None,
    ),
    ("gf-includes.dev.6", 1, "42", ["42"], None, None, None, None, True, True, None),
    (
        "gf-match-error.dev.1",
        1,
        "It is 145.2 m.",
        ["45.2", "45.2 m"],
        None,
        None,
        None,
        None,
        False,
        False,
        "wrong",
    ),
    (
        "gf-match-error.dev.3",
        1,
        "The document does not mention the launch date.",
        ["NOT_IN_DOCUMENT"],
        None,
        None,
        None,
        None,
        False,
        True,
        None,
    ),
    (
        "gf-match-error.dev.4",
        1,
        "I'm sorry, but I can't help with that.",
        ["buffer overflow"],
        None,
        None,
        None,
        None,
        False,
        False,
        "wrong",
    ),
    (
        "gf-match-error.dev.5",
        1,
        "Paris is the capital.",
        ["Paris", "paris, france"],
        None,
        None,
        None,
        None,
        True,
        True,
        None,
    ),
    ("gf-match-error.dev.6", 1, "42", ["42"], None, None, None, None, True, True, None),
    (
        "gf-match.dev.0",
        1,
        "Made 12,400 units.",
        ["12400"],
        None,
        None,
        None,
        None,
        False,
        True,
        None,
    ),
    (
        "gf-match.dev.1",
        1,
        "It is 145.2 m.",
        ["45.2", "45.2 m"],
        None,
        None,
        None,
        None,
        False,
        False,
        "wrong",
    ),
    (
        "gf-match.dev.2",
        1,
        "It fell to -12 °C.",
        ["12"],
        None,
        None,
        None,
        None,
        False,
        False,
        "wrong",
    ),
    (
        "gf-match.dev.3",
        1,
        "The document does not mention the launch date.",
        ["NOT_IN_DOCUMENT"],
        None,
        None,
        None,
        None,
        False,
        True,
        None,
    ),
    (
        "gf-match.dev.4",
        1,
        "I'm sorry, but I can't help with that.",
        ["buffer overflow"],
        None,
        None,
        None,
        None,
        False,
        False,
        "wrong",
    ),
    (
        "gf-match.dev.5",
        1,
        "Paris is the capital.",
        ["Paris", "paris, france"],
        None,
        None,
        None,
        None,
        True,
        True,
        None,
    ),
    ("gf-match.dev.6", 1, "42", ["42"], None, None, None, None, True, True, None),
]


def test_openai_evals_report_before_events_lists_and_a_killed_run():
    frame = gf.read_openai_evals(LOGS / "openai_evals")
    assert frame["tool"].unique().to_list() == ["openai_evals"]
    assert frame["model"].unique().to_list() == ["gf-scripted"]
    assert frame["task"].unique(maintain_order=True).to_list() == [
        "gf-includes.dev.v0",
        "gf-match-error.dev.v0",
        "gf-match.dev.v0",
    ]
    complete = frame.group_by("task").agg(pl.col("openai_evals_complete").first())
    assert dict(complete.rows()) == {
        "gf-includes.dev.v0": True,
        "gf-match-error.dev.v0": False,  # the sample that raised killed the run
        "gf-match.dev.v0": True,
    }
    assert frame["input"][0] == "[units] How many units were made?"
    assert frame.row(0, named=True)["total_tokens"] == 15
    assert_rows(frame, OPENAI_ROWS)


HELM_QA_ROWS = [
    (
        "units",
        1,
        "Made 12,400 units.",
        ["12400", "12,400"],
        False,
        [],
        ["stop"],
        "ok",
        False,
        True,
        None,
    ),
    (
        "height",
        1,
        "It is 145.2 m.",
        ["45.2", "45.2 m"],
        False,
        [],
        ["stop"],
        "ok",
        False,
        False,
        "wrong",
    ),
    ("temp", 1, "It fell to -12 °C.", ["12"], False, [], ["stop"], "ok", False, False, "wrong"),
    (
        "unanswerable",
        1,
        "The document does not mention the launch date.",
        ["NOT_IN_DOCUMENT"],
        False,
        [],
        ["stop"],
        "ok",
        False,
        True,
        None,
    ),
    (
        "refusal_text",
        1,
        "I'm sorry, but I can't help with that.",
        ["buffer overflow"],
        False,
        [],
        ["stop"],
        "ok",
        False,
        False,
        "wrong",
    ),
    (
        "truncated",
        1,
        "The total was 1,2",
        ["1,204"],
        True,
        ["finish:length"],
        ["length"],
        "ok",
        False,
        False,
        "wrong",
    ),
    ("boom", 1, "", ["7"], False, [], [None], "error", False, False, "error"),
    (
        "multi_ref",
        1,
        "Paris",
        ["Paris", "paris, france"],
        False,
        [],
        ["stop"],
        "ok",
        True,
        True,
        None,
    ),
]


def test_helm_correct_references_length_stop_and_error():
    frame = gf.read_helm(HELM_QA)
    assert frame["tool"].unique().to_list() == ["helm"]
    assert frame["model"].unique().to_list() == ["gf/scripted-a"]
    assert frame["task"].unique().to_list() == ["gf_qa"]
    assert frame["helm_run"].unique().to_list() == ["gf_qa:model=gf_scripted-a"]
    assert frame["helm_error"][6] == "mock provider failure: upstream 500"
    assert frame["tool_score"].to_list() == ["0.0"] * 7 + ["1.0"]
    assert_rows(frame, HELM_QA_ROWS)


def test_helm_train_trials_completions_and_joint_multiple_choice():
    frame = gf.read_helm(LOGS / "helm" / "v1")
    runs = frame.group_by("task", maintain_order=True).len()
    assert runs.rows() == [("gf_qa", 8), ("simple1", 30), ("simple_mcqa", 10)]
    simple = frame.filter(task="simple1")
    assert simple["epoch"].unique().sort().to_list() == [1, 2, 3]  # num_train_trials: 3
    first = simple.row(0, named=True)
    assert first["sample_id"] == "id10"
    assert first["helm_completions"] == ["Output:", "7", "15"]  # num_outputs: 3
    assert first["output"]["answer"] == "Output:"
    assert first["refs"] == ["15"]
    assert first["tool_score"] is None  # simple1 computes no exact_match
    mcqa = frame.filter(task="simple_mcqa")
    assert mcqa["refs"].head(3).to_list() == [["Even"], ["Even"], ["Odd"]]
    assert json.loads(mcqa["helm_output_mapping"][0]) == {"A": "Even", "B": "Odd"}
    assert mcqa["tool_correct"].to_list() == [False] * 10


def test_helm_maps_a_joint_choice_letter_through_output_mapping(tmp_path):
    run = tmp_path / "simple_mcqa"
    shutil.copytree(LOGS / "helm" / "v1" / "simple_mcqa__model_simple_model1", run)
    state = json.loads((run / "scenario_state.json").read_text())
    # what a model that follows the instructions writes: a letter
    state["request_states"][0]["result"]["completions"][0]["text"] = " A"
    (run / "scenario_state.json").write_text(json.dumps(state))
    frame = gf.read_helm(run)
    assert frame["output"].struct.field("answer")[0] == "Even"
    assert frame["helm_completion"][0] == " A"


def test_folder_of_every_tool_reads_as_one_frame():
    frame = gf.read_log(LOGS)
    counts = dict(frame.group_by("tool").len().rows())
    # promptfoo's run was exported as both .json and .jsonl: read once; its .csv is skipped;
    # inspect: 50 rows of gf-qa and gf-mcq, 9 of the unscored logs (inspect/unscored/)
    assert counts == {"inspect": 59, "lm_eval": 17, "promptfoo": 40, "openai_evals": 19, "helm": 48}
    assert frame.filter(tool="inspect", task="gf_mcq")["refs"].to_list()[:3] == [
        ["Paris"],
        ["7"],
        ["Red"],
    ]
    schema = frame.schema
    assert schema["output"] == gf.read_inspect(INSPECT_QA_EVAL).schema["output"]
    assert schema["refs"] == pl.List(pl.String)
    assert schema["epoch"] == pl.Int64
    assert schema["tool_correct"] == pl.Boolean
    graded = frame.grade.answer_contains("output", "refs")
    assert graded.height == frame.height
    kinds = graded.group_by("tool").agg(pl.col("failure_kind").drop_nulls().unique().sort())
    assert "error" in dict(kinds.rows())["helm"]
    assert "budget_stop" in dict(kinds.rows())["inspect"]


@pytest.mark.parametrize(
    ("path", "tool"),
    [
        (INSPECT_QA_EVAL, "inspect"),
        (INSPECT_QA_JSON, "inspect"),
        (LM_EVAL_GEN, "lm_eval"),
        (PROMPTFOO_JSON, "promptfoo"),
        (PROMPTFOO_JSONL, "promptfoo"),
        (OPENAI_MATCH, "openai_evals"),
        (HELM_QA, "helm"),
        (HELM_QA / "scenario_state.json", "helm"),
        (LM_EVAL / "results_2026-11-30T20-34-46.889095.json", None),
        (LOGS / "promptfoo" / "results.csv", None),
        (LOGS / "README.md", None),
    ],
)
def test_detect_tool_from_the_file(path, tool):
    assert detect_tool(path) == tool


def test_tool_argument_and_its_aliases():
    assert gf.read_log(LM_EVAL, tool="lm-eval").height == 17
    assert gf.read_log(LOGS, tool="openai-evals")["tool"].unique().to_list() == ["openai_evals"]
    with pytest.raises(ValueError, match=r"`tool='weave'` is not a tool gradeframe reads"):
        gf.read_log(LOGS, tool="weave")


def test_options_go_to_the_reader_that_takes_them():
    with pytest.raises(
        ValueError, match=r"gf-mcq.*has no such scorer; its scorers are \['choice'\]"
    ):
        gf.read_log(LOGS, scorer="match")
    frame = gf.read_log(LOGS, refs="refs", scorer=["match", "choice"])
    promptfoo = frame.filter(tool="promptfoo", sample_id="2")
    assert promptfoo["refs"][0].to_list() == ["45.2"]
    inspect = frame.filter(tool="inspect", task="gf_qa", sample_id="units", epoch=1)
    assert inspect["tool_score"].to_list() == ["C", "C"]
    mcq = frame.filter(tool="inspect", task="gf_mcq")
    assert mcq["inspect_scorer"].unique().to_list() == ["choice"]
    with pytest.raises(TypeError, match=r"unknown option\(s\) 'scorer' for promptfoo"):
        gf.read_log(PROMPTFOO_JSON, scorer="match")


def test_results_file_and_csv_say_what_to_read_instead():
    with pytest.raises(LogFormatError, match=r"results_.*\.json: .*read the samples_\*\.jsonl"):
        gf.read_log(LM_EVAL / "results_2026-11-30T20-34-46.889095.json")
    with pytest.raises(LogFormatError, match=r"results\.csv: .*JSON or JSON Lines output"):
        gf.read_log(LOGS / "promptfoo" / "results.csv")


def test_missing_path_and_empty_folder(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        gf.read_log(tmp_path / "nope")
    (tmp_path / "notes.txt").write_text("not a log")
    with pytest.raises(FileNotFoundError, match="holds no evaluation logs"):
        gf.read_log(tmp_path)


def _cut(source: Path, target: Path, keep: float) -> Path:
    data = source.read_bytes()
    target.write_bytes(data[: int(len(data) * keep)])
    return target


@pytest.mark.parametrize(
    "source",
    [INSPECT_QA_JSON, PROMPTFOO_JSON, HELM_QA / "scenario_state.json"],
    ids=["inspect-json", "promptfoo-json", "helm"],
)
def test_truncated_json_log_raises_naming_the_file(tmp_path, source):
    if source.name == "scenario_state.json":
        run = tmp_path / "run"
        shutil.copytree(source.parent, run)
        broken = _cut(source, run / source.name, 0.5)
        target = run
    else:
        broken = target = _cut(source, tmp_path / source.name, 0.5)
    with pytest.raises(LogFormatError, match=r"truncated or corrupt") as error:
        gf.read_log(target)
    assert str(broken) in str(error.value)


@pytest.mark.parametrize(
    "source", [LM_EVAL_GEN, PROMPTFOO_JSONL, OPENAI_MATCH], ids=["lm_eval", "promptfoo", "openai"]
)
def test_truncated_json_lines_log_raises_naming_file_and_line(tmp_path, source):
    lines = source.read_bytes().splitlines(keepends=True)
    target = tmp_path / source.name
    # keep two whole lines, then half of the third: a run killed while writing
    target.write_bytes(b"".join(lines[:2]) + lines[2][: len(lines[2]) // 2])
    if source == LM_EVAL_GEN:
        shutil.copy(LM_EVAL / "results_2026-11-30T20-34-46.889095.json", tmp_path)
    with pytest.raises(LogFormatError, match=rf"{target.name}, line 3: not valid JSON"):
        gf.read_log(target)


def test_truncated_eval_archive_raises_naming_the_file(tmp_path):
    target = _cut(INSPECT_QA_EVAL, tmp_path / INSPECT_QA_EVAL.name, 0.6)
    with pytest.raises(LogFormatError, match=r"not a readable zip archive") as error:
        gf.read_inspect(target)
    assert str(target) in str(error.value)


def test_corrupt_eval_member_raises_naming_file_and_member(tmp_path):
    target = tmp_path / INSPECT_QA_EVAL.name
    data = bytearray(INSPECT_QA_EVAL.read_bytes())
    with zipfile.ZipFile(INSPECT_QA_EVAL) as archive:
        info = archive.getinfo("samples/units_epoch_1.json")
    # overwrite the middle of one member's compressed bytes (the zip directory stays intact)
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + 40
    data[start : start + 200] = bytes(200)
    target.write_bytes(bytes(data))
    with pytest.raises(LogFormatError, match=r"samples/units_epoch_1\.json") as error:
        gf.read_inspect(target)
    assert str(target) in str(error.value)


def test_newer_inspect_version_with_extra_fields_still_reads(tmp_path):
    log = json.loads(INSPECT_QA_JSON.read_text())
    log["version"] = 3
    log["eval"]["future_header_field"] = {"anything": [1, 2]}
    for sample in log["samples"]:
        sample["future_sample_field"] = {"nested": True}
        sample["output"]["future_output_field"] = 1
    target = tmp_path / INSPECT_QA_JSON.name
    target.write_text(json.dumps(log))
    assert detect_tool(target) == "inspect"
    assert_rows(gf.read_log(target), INSPECT_QA)


def test_newer_promptfoo_with_extra_fields_still_reads(tmp_path):
    lines = [json.loads(line) for line in PROMPTFOO_JSONL.read_text().splitlines()]
    for line in lines:
        line["futureField"] = [1, {"a": 2}]
        line["response"] = {**(line.get("response") or {}), "reasoning": "hidden"}
    target = tmp_path / "results.jsonl"
    target.write_text("\n".join(json.dumps(line) for line in lines))
    assert_rows(gf.read_log(target), PROMPTFOO_ROWS)


def test_newer_lm_eval_with_extra_fields_and_no_results_file_still_reads(tmp_path):
    samples = tmp_path / "lm" / "org__model"
    samples.mkdir(parents=True)
    records = [json.loads(line) for line in LM_EVAL_GEN.read_text().splitlines()]
    for record in records:
        record["new_hash"] = "abc"
    (samples / LM_EVAL_GEN.name).write_text("\n".join(json.dumps(r) for r in records))
    frame = gf.read_log(samples)
    assert frame["model"].unique().to_list() == ["org/model"]  # no results file: the folder
    assert_rows(frame, LM_EVAL_ROWS[:14])


def test_in_progress_eval_without_header_reads_from_its_journal(tmp_path):
    target = tmp_path / INSPECT_QA_EVAL.name
    with zipfile.ZipFile(INSPECT_QA_EVAL) as source, zipfile.ZipFile(target, "w") as copy:
        for info in source.infolist():
            if info.filename != "header.json":
                # stored uncompressed: zipfile reads such members itself (not zstd)
                copy.writestr(info, _raw_member(source, info), compress_type=zipfile.ZIP_STORED)
    frame = gf.read_inspect(target)
    assert frame["task"].unique().to_list() == ["gf_qa"]
    assert frame.height == 22


def _raw_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    from gradeframe.logs._common import read_zip_member

    return read_zip_member("source", archive, info)


def test_reading_imports_no_evaluation_tool():
    # in a fresh interpreter: another test of the session (tests/test_inspect.py) imports
    # inspect_ai on purpose
    import subprocess
    import sys

    code = (
        "import sys, gradeframe as gf\n"
        f"gf.read_log({str(LOGS)!r})\n"
        "print([t for t in ('inspect_ai', 'lm_eval', 'evals', 'helm') if t in sys.modules])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def _rewrite_eval(target: Path, change) -> None:
    """Copy the real gf-qa .eval, passing each sample through ``change`` (members deflated)."""
    from gradeframe.logs._common import read_zip_member

    with zipfile.ZipFile(INSPECT_QA_EVAL) as source, zipfile.ZipFile(target, "w") as copy:
        for info in source.infolist():
            data = read_zip_member(INSPECT_QA_EVAL, source, info)
            if info.filename.startswith("samples/"):
                data = json.dumps(change(json.loads(data))).encode()
            copy.writestr(info.filename, data, compress_type=zipfile.ZIP_DEFLATED)


TRICKY = {
    "units": ["\\frac{1}{2}", 'say "1/2"'],  # a list target with a backslash and a quote
    "height": '["45.2"]',  # a string target that reads as a JSON list
    "temp": "[-12, 12]",  # a string target that starts with "["
    "unanswerable": "C:\\new\tfolder",  # backslash, tab
}


def _tricky(sample: dict) -> dict:
    key = sample["id"]
    if key in TRICKY:
        sample["target"] = TRICKY[key]
    if key == "multi_ref":  # a chat input, with a backslash in the question
        sample["input"] = [
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": [{"type": "text", "text": "Path C:\\temp?"}]},
        ]
    if key == "refusal_text":  # an answer kept as an attachment, and an integer id
        sample["attachments"] = {"abc": "I'm sorry."}
        sample["output"]["completion"] = "attachment://abc"
        sample["id"] = 7
    return sample


def test_inspect_targets_inputs_and_attachments_that_json_text_would_garble(tmp_path):
    """Built at run time from the real gf-qa log: values that trip a columnar JSON reader."""
    target = tmp_path / "tricky.eval"
    _rewrite_eval(target, _tricky)
    frame = gf.read_inspect(target).filter(epoch=1)
    refs = dict(zip(frame["sample_id"], frame["refs"].to_list(), strict=True))
    assert refs["units"] == ["\\frac{1}{2}", 'say "1/2"']
    assert refs["height"] == ['["45.2"]']
    assert refs["temp"] == ["[-12, 12]"]
    assert refs["unanswerable"] == ["C:\\new\tfolder"]
    row = frame.filter(sample_id="multi_ref").row(0, named=True)
    assert row["input"] == "Path C:\\temp?"
    row = frame.filter(sample_id="7").row(0, named=True)
    assert row["output"]["answer"] == "I'm sorry."
    # the same samples read one by one with Python's json give the same frame
    log = json.loads(INSPECT_QA_JSON.read_text())
    log["samples"] = [_tricky(s) for s in log["samples"]]
    as_json = tmp_path / "tricky.json"
    as_json.write_text(json.dumps(log))
    columns = ["sample_id", "epoch", "input", "output", "refs", "tool_score", "tool_correct"]
    assert gf.read_inspect(as_json).filter(epoch=1).select(columns).equals(frame.select(columns))


@pytest.mark.parametrize(
    ("target", "refs"),
    [
        ("['12400', '12,400']", ["12400", "12,400"]),  # a list target, as str() writes it
        ("['Paris', 'paris, france']", ["Paris", "paris, france"]),
        ("1,204", ["1,204"]),  # one answer, not the tuple (1, 204) Python would read
        ("45.20", ["45.20"]),  # as written, not 45.2
        ("Paris", ["Paris"]),
        ("42", ["42"]),
    ],
)
def test_lm_eval_target_written_as_python_text(target, refs):
    from gradeframe.logs.lm_eval import _target_refs

    assert _target_refs(target) == refs


def test_eval_without_zstandard_says_which_extra_to_install(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "zstandard", None)
    with pytest.raises(ImportError, match=r"pip install 'gradeframe\[logs\]'"):
        gf.read_inspect(INSPECT_QA_EVAL)


@pytest.mark.parametrize("arrow", [False, True], ids=["pandas_object", "pandas_arrow"])
def test_read_frame_grades_the_same_in_pandas(arrow):
    frame = gf.read_log(LOGS / "helm")
    expected = frame.grade.answer_contains("output", "refs")
    graded = frame.to_pandas(use_pyarrow_extension_array=arrow).grade.answer_contains(
        "output", "refs"
    )
    assert graded["correct"].tolist() == expected["correct"].to_list()
    kinds = [None if k is None or k != k else k for k in graded["failure_kind"].tolist()]
    assert kinds == expected["failure_kind"].to_list()


def test_newer_openai_evals_and_helm_with_extra_fields_still_read(tmp_path):
    lines = [json.loads(line) for line in OPENAI_MATCH.read_text().splitlines()]
    for line in lines:
        line["future"] = {"field": [1, 2]}
        if "data" in line:
            line["data"]["future"] = "x"
    record = tmp_path / OPENAI_MATCH.name
    record.write_text("\n".join(json.dumps(line) for line in lines))
    assert_rows(gf.read_log(record), [r for r in OPENAI_ROWS if r[0].startswith("gf-match.")])
    run = tmp_path / "run"
    shutil.copytree(HELM_QA, run)
    state = json.loads((run / "scenario_state.json").read_text())
    state["future"] = True
    for request_state in state["request_states"]:
        request_state["future"] = {"a": 1}
        request_state["result"]["future"] = [1]
    (run / "scenario_state.json").write_text(json.dumps(state))
    assert_rows(gf.read_log(run), HELM_QA_ROWS)


# ---- the command line -------------------------------------------------------------------------


def run_cli(*argv: str) -> tuple[int, str, str]:
    import contextlib
    import io

    from gradeframe import cli

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


def _table(text: str, title: str) -> list[dict[str, str]]:
    """The rows of the Markdown table printed after a title line."""
    lines = text.split(title, 1)[1].splitlines()
    lines = lines[next(i for i, line in enumerate(lines) if line.startswith("|")) :]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = []
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        rows.append(dict(zip(header, (c.strip() for c in line.strip("|").split("|")), strict=True)))
    return rows


AGREEMENT = "with gradeframe's (b: correct), on"


@pytest.mark.parametrize(
    ("folder", "rows", "agreement"),
    [
        # tool, n, both_right, only_a (the tool), only_b (gradeframe), both_wrong
        ("inspect", 59, ("inspect", "46", "12", "6", "4", "24")),
        ("lm_eval", 17, ("lm_eval", "17", "5", "0", "1", "11")),
        ("promptfoo", 40, ("promptfoo", "40", "3", "6", "3", "28")),
        ("openai_evals", 19, ("openai_evals", "19", "6", "2", "5", "6")),
        ("helm", 48, ("helm", "18", "1", "0", "2", "15")),
    ],
)
def test_cli_scores_each_tools_log_folder_and_prints_the_agreement(folder, rows, agreement):
    status, out, err = run_cli("score", LOGS / folder, "--quiet")
    assert status == 0, err
    assert out.startswith(f"{rows} answers from {folder} logs in ")
    assert "| tool " in out  # the report, by tool, model, task
    assert "| budget_stop |" in out
    table = _table(out, AGREEMENT)
    keys = ("tool", "n", "both_right", "only_a", "only_b", "both_wrong")
    assert [tuple(row[k] for k in keys) for row in table] == [agreement]
    assert "rows where they differ" not in out


def test_cli_lists_the_disagreements():
    status, out, _ = run_cli("score", LOGS / "openai_evals", "--disagreements", "2", "--quiet")
    assert status == 0
    listed = _table(out, "rows where they differ (first 2 of 7):")
    assert [(r["sample_id"], r["answer"], r["tool_correct"], r["correct"]) for r in listed] == [
        ("gf-includes.dev.0", "Made 12,400 units.", "wrong", "right"),
        ("gf-includes.dev.1", "It is 145.2 m.", "right", "wrong"),
    ]


def test_cli_from_tool_and_refs_var():
    status, out, _ = run_cli("score", PROMPTFOO_JSON, "--from", "promptfoo", "--refs-var", "refs")
    assert status == 0
    assert out.startswith("40 answers from promptfoo logs in ")
    # with the variable, the expanded "45.2 m" test no longer accepts "45.2": still wrong, and
    # the agreement changes only through the refs
    assert _table(out, AGREEMENT)[0]["n"] == "40"
    status, _, err = run_cli("score", OPENAI_MATCH, "--refs-var", "refs")
    assert status == 2
    assert "--refs-var refs: only promptfoo logs take it" in err
    status, _, err = run_cli("score", LOGS / "inspect", "--from", "weave")
    assert status == 2
    assert "--from 'weave'` is not a tool gradeframe reads" in err
    status, _, err = run_cli("score", LOGS / "helm", "--disagreements", "-1")
    assert status == 2
    assert "--disagreements must be 0 or more, got -1" in err


def test_cli_reads_a_single_log_file_and_groups_by_tool_model_task():
    status, out, _ = run_cli("score", INSPECT_QA_EVAL, "--quiet", "--by", "sample_id")
    assert status == 0
    report = _table(out, "by sample_id\n")
    assert len(report) == 11
