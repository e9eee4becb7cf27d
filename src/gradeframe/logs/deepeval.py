"""Read DeepEval test runs: ``.deepeval/.latest_test_run.json`` and ``test_run_*.json``.

``deepeval.evaluate(test_cases, metrics=[...])`` writes the run's test cases with each metric's
verdict (``metricsData[]``: ``name``, ``score``, ``success``, ``reason``, ``error``). One row per
test case (DeepEval has no repetitions): the reply is ``actualOutput`` and the acceptable answer
``expectedOutput``; a conversational test case is one row, its reply the last assistant turn, its
question the first user turn and its acceptable answer ``expectedOutcome``. The verdict of the
metric named by ``metric=`` (default: each case's first) is ``tool_score``/``tool_correct``
(``success``), its reason ``deepeval_reason``; every metric's verdict is in ``deepeval_metrics``.

DeepEval records no task error: a test case whose application failed has no ``actualOutput``,
and its metrics record errors. Such a case reads as ``status="error"``. A metric that errored on
a reply that is there (an LLM judge whose answer could not be parsed) is the grader's failure:
``tool_correct`` null and ``tool_failure="grader_failure"``. A metric that refuses an empty
reply ("'actual_output' cannot be empty") gives a null verdict and no failure: the empty reply
is what is graded. ``completionTime`` and ``tokenCost``, where the application recorded them, are
``seconds`` and ``cost``; the metrics' own cost is ``deepeval_evaluation_cost``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import polars as pl

from gradeframe.logs import _common
from gradeframe.logs._columns import VERDICT, finish
from gradeframe.logs._common import PathLike, as_text

TOOL = "deepeval"

METRIC = pl.Struct(
    {
        "name": pl.String,
        "score": pl.Float64,
        "success": pl.Boolean,
        "reason": pl.String,
        "error": pl.String,
        "threshold": pl.Float64,
    }
)
TOOL_CALL = pl.Struct({"name": pl.String, "arguments": pl.String})

EXTRAS: dict[str, pl.DataType] = {
    **VERDICT,
    "cost": pl.Float64(),
    "tool_calls": pl.List(TOOL_CALL),
    "deepeval_metric": pl.String(),
    "deepeval_reason": pl.String(),
    "deepeval_metric_error": pl.String(),
    "deepeval_metrics": pl.List(METRIC),
    "deepeval_success": pl.Boolean(),
    "deepeval_conversational": pl.Boolean(),
    "deepeval_run_duration": pl.Float64(),
    "deepeval_evaluation_cost": pl.Float64(),
    "deepeval_order": pl.Int64(),
    "deepeval_metadata": pl.String(),
}

_FIELDS = {
    "sample_id": "name",
    "input": "input",
    "tool_score": "metricsData[].score",
    "tool_correct": "metricsData[].success",
    "seconds": "completionTime",
    "cost": "tokenCost",
    "deepeval_run_duration": "runDuration",
    "deepeval_evaluation_cost": "evaluationCost",
    "deepeval_order": "order",
}


def _run(document: Any) -> Any:
    """Return the run: ``testRunData`` of ``.latest_test_run.json``, a results file itself."""
    if isinstance(document, dict) and "testRunData" in document:
        return document["testRunData"]
    return document


def detect(path: PathLike) -> bool:
    """Return whether ``path`` is a DeepEval test-run JSON file."""
    path = Path(path)
    if not path.is_file() or path.suffix != ".json":
        return False
    text = _common.head(path, 4096).lstrip()
    if not text.startswith("{"):
        return False
    return ('"testCases"' in text or '"conversationalTestCases"' in text) and (
        '"metricsData"' in text or '"testRunData"' in text or '"testPassed"' in text
    )


def read(path: PathLike, *, metric: str | None = None) -> pl.DataFrame:
    """Read one DeepEval test-run file into the common columns.

    Parameters
    ----------
    path
        ``.deepeval/.latest_test_run.json`` or a ``test_run_*.json`` of ``DEEPEVAL_RESULTS_FOLDER``.
    metric
        The metric (its ``name`` in ``metricsData``) whose verdict is ``tool_score`` and
        ``tool_correct``; default: each test case's first metric.

    Returns
    -------
    polars.DataFrame
        One row per test case.
    """
    path = Path(path)
    run = _run(_common.load_json(path))
    if not isinstance(run, dict):
        raise _common.log_error(path, "not a DeepEval test run (the document is not a JSON object)")
    hyper = run.get("hyperparameters")
    context = {
        "tool": TOOL,
        "log": os.fspath(path),
        "model": as_text(hyper.get("model")) if isinstance(hyper, dict) else None,
        "task": as_text(run.get("identifier")) or path.stem.lstrip(".") or TOOL,
    }
    rows, locations = [], []
    for kind in ("testCases", "conversationalTestCases"):
        cases = run.get(kind) or []
        if not isinstance(cases, list):
            raise _common.log_error(path, f"field {kind!r} is not a list")
        for index, case in enumerate(cases):
            what = f"{kind}[{index}]"
            rows.append(
                _common.record_row(
                    _row, case, context, kind != "testCases", metric, where=path, what=what
                )
            )
            locations.append((path, what))
    frame = _common.build_frame(rows, EXTRAS, locations=locations, fields=_FIELDS)
    return finish(frame, EXTRAS)


def _metric(data: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": as_text(data.get("name")),
        "score": data.get("score"),
        "success": data.get("success"),
        "reason": as_text(data.get("reason")),
        "error": as_text(data.get("error")),
        "threshold": data.get("threshold"),
    }


def _arguments(value: Any) -> str | None:
    return value if isinstance(value, str) or value is None else _common.json_text(value)


def _row(
    case: dict[str, Any], context: dict[str, Any], conversational: bool, metric: str | None
) -> dict[str, Any]:
    metrics = [_metric(m) for m in case.get("metricsData") or []]
    chosen = next((m for m in metrics if m["name"] == metric), None) if metric else None
    if chosen is None and metric is None and metrics:
        chosen = metrics[0]
    if conversational:
        turns = case.get("turns") or []
        users = [t.get("content") for t in turns if t.get("role") == "user"]
        replies = [t.get("content") for t in turns if t.get("role") == "assistant"]
        question = users[0] if users else case.get("scenario")
        answer = replies[-1] if replies else None
        refs = case.get("expectedOutcome")
    else:
        question, answer = case.get("input"), case.get("actualOutput")
        refs = case.get("expectedOutput")
    answer = as_text(answer)
    error = chosen["error"] if chosen else None
    failed_task = answer is None and error is not None
    grader_failed = error is not None and answer is not None and answer.strip() != ""
    calls = case.get("toolsCalled") or []
    return {
        **context,
        "sample_id": as_text(case.get("name")) or str(case.get("order")),
        "epoch": 1,
        "input": as_text(question),
        "output": _common.output_record(answer, status="error" if failed_task else "ok"),
        "refs": None if refs is None else [as_text(refs)],
        "tool_score": None if chosen is None or error else as_text(chosen["score"]),
        "tool_correct": None if chosen is None or error else chosen["success"],
        "tool_failure": "grader_failure" if grader_failed else None,
        "seconds": case.get("completionTime"),
        "cost": case.get("tokenCost"),
        "tool_calls": [
            {"name": as_text(c.get("name")), "arguments": _arguments(c.get("inputParameters"))}
            for c in calls
        ],
        "deepeval_metric": chosen["name"] if chosen else None,
        "deepeval_reason": chosen["reason"] if chosen else None,
        "deepeval_metric_error": error,
        "deepeval_metrics": metrics,
        "deepeval_success": case.get("success"),
        "deepeval_conversational": conversational,
        "deepeval_run_duration": case.get("runDuration"),
        "deepeval_evaluation_cost": case.get("evaluationCost"),
        "deepeval_order": case.get("order"),
        "deepeval_metadata": _common.json_text(
            case.get("additionalMetadata") or case.get("metadata")
        ),
    }
