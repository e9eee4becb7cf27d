"""judge re-reads the verdicts an inspect_ai judge stored (a real log, SPEC §13)."""

from __future__ import annotations

from pathlib import Path

import gradeframe as gf

LOG = Path(__file__).parent / "fixtures" / "logs_extra" / "inspect_judge"

# sample id: (inspect's own stored verdict, the verdict in its judge's text, grader_failure)
EXPECTED = {
    "plain_right": (True, "C", None),
    "plain_wrong": (False, "I", None),
    "bold": (None, "C", None),
    "bracket": (None, "C", None),
    "fullwidth": (None, "C", None),
    "two_letters": (None, None, "not_offered"),
    "no_verdict": (None, None, "no_verdict"),
    "partial": (None, "P", None),
}


def test_judge_rereads_every_stored_verdict():
    graded = gf.read_log(LOG).grade.judge("inspect_score_explanation").sort("sample_id")
    rows = {
        r["sample_id"]: (r["tool_correct"], r["verdict"], r["grader_failure"])
        for r in graded.iter_rows(named=True)
    }
    assert rows == EXPECTED
    failures = dict(zip(graded["sample_id"], graded["failure_kind"], strict=True))
    assert failures["no_verdict"] == "grader_failure"
    assert failures["two_letters"] == "grader_failure"
    assert failures["plain_wrong"] == "wrong"
    assert failures["bold"] is None
    # inspect's own grader failures, as the reader keeps them: the six it left unscored.
    unscored = {k for k, (tool, _, _) in EXPECTED.items() if tool is None}
    tool_failure = dict(zip(graded["sample_id"], graded["tool_failure"], strict=True))
    assert {k for k, v in tool_failure.items() if v == "grader_failure"} == unscored


def test_agreement_counts_where_inspect_left_a_readable_verdict_unscored():
    graded = gf.read_log(LOG).grade.judge("inspect_score_explanation")
    table = gf.agreement(graded, "tool_correct", "correct")
    # inspect scored two samples (both read alike); the six it left unscored are missing.
    assert table.select("n", "both_right", "both_wrong", "n_missing").row(0) == (2, 1, 1, 6)
    unscored = graded.filter(graded["tool_correct"].is_null() & graded["verdict"].is_not_null())
    assert sorted(unscored["sample_id"]) == ["bold", "bracket", "fullwidth", "partial"]
