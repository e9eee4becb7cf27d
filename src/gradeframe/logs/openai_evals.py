"""Read OpenAI evals record files: ``oaieval ... --record_path run.jsonl``.

The first line is the run's ``spec``, then (when the run finished) its ``final_report``, then the
events in completion order. One row per sample: the answer is the last ``sampling`` event's
first sampled text, the acceptable answers are the ``match`` event's ``expected`` (a string when
the sample had one), and the tool's verdict is its ``correct``. Each line is parsed as its own
record: ``sampled`` is a list in one event type and a string in another, which a columnar JSON
reader would merge into JSON text. OpenAI evals records no stop reason, refusal or budget; an
``error`` event sets ``status="error"``; a sample that raised kills the run, which then has no
``final_report`` (``openai_evals_complete`` is false) and no row for that sample.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import polars as pl

from gradeframe.logs import _common
from gradeframe.logs._common import PathLike, as_text

TOOL = "openai_evals"

#: The fields a row reads of each event kind (the rest is not held while the file is read);
#: an ``error`` event is kept whole (it is shown as it is).
_USED: dict[str, tuple[str, ...]] = {
    "match": ("correct", "expected", "picked", "sampled"),
    "metrics": ("choice", "score", "correct"),
}

#: Rows built into one frame at a time.
BATCH_ROWS = 5_000
_INVALID = "__invalid__"  # the choice of a model-graded eval whose judge's reply was unreadable

EXTRAS: dict[str, pl.DataType] = {
    "openai_evals_run_id": pl.String(),
    "openai_evals_sampled_model": pl.String(),
    "openai_evals_picked": pl.String(),
    "openai_evals_samplings": pl.Int64(),
    "openai_evals_error": pl.String(),
    "openai_evals_grader_text": pl.String(),
    "openai_evals_complete": pl.Boolean(),
}


def detect(path: PathLike) -> bool:
    """Return whether ``path`` is an OpenAI evals record file (JSON Lines starting with a spec)."""
    path = Path(path)
    if not path.is_file() or path.suffix not in (".jsonl", ".json", ".log"):
        return False
    first = _common.first_json_line(path)
    spec = first.get("spec") if first else None
    return isinstance(spec, dict) and "eval_name" in spec


def _prompt_text(prompt: Any) -> str | None:
    """Return the question: a text prompt, or the last user message of a chat prompt."""
    if isinstance(prompt, str) or prompt is None:
        return prompt
    if isinstance(prompt, list):
        messages = [m for m in prompt if isinstance(m, dict)]
        users = [m for m in messages if m.get("role") == "user"] or messages
        return as_text(users[-1].get("content")) if users else None
    return as_text(prompt)


def read(path: PathLike) -> pl.DataFrame:
    """Read one OpenAI evals record file into the common columns.

    Parameters
    ----------
    path
        The ``--record_path`` JSON Lines file.

    Returns
    -------
    polars.DataFrame
        One row per sample that has a ``sampling`` or ``match`` event.
    """
    path = Path(path)
    spec: dict[str, Any] | None = None
    complete = False
    samples: dict[str, dict[str, Any]] = {}
    for number, record in _common.iter_json_lines(path):
        if not isinstance(record, dict):
            raise _common.log_error(path, "a line is not a JSON object", line=number)
        if "spec" in record:
            spec = record["spec"]
            continue
        if "final_report" in record:
            complete = True
            continue
        sample_id = record.get("sample_id")
        if sample_id is None or "type" not in record:
            continue  # run-level events (metrics of the whole run) belong to no sample
        events = samples.setdefault(str(sample_id), {"sampling": [], "first": number})
        data = record.get("data") or {}
        kind = record["type"]
        if kind == "sampling":
            events["sampling"].append(_kept(data, first=not events["sampling"]))
        elif kind in ("match", "error", "metrics"):
            events[kind] = (
                {k: data[k] for k in _USED[kind] if k in data}
                if _USED.get(kind) and isinstance(data, dict)
                else data
            )
    if spec is None:
        raise _common.log_error(path, "not an OpenAI evals record file (no 'spec' line)")
    if not isinstance(spec, dict):
        raise _common.log_error(path, "field 'spec' is not a JSON object")
    functions = spec.get("completion_fns") or []
    if not isinstance(functions, list):
        raise _common.log_error(path, "field 'spec.completion_fns' is not a list")
    context = {
        "log": os.fspath(path),
        "model": functions[0] if functions else None,
        "task": spec.get("eval_name"),
        "openai_evals_run_id": spec.get("run_id"),
        "openai_evals_complete": complete,
    }
    fields = {"model": "spec.completion_fns", "task": "spec.eval_name"}
    fields |= {"openai_evals_run_id": "spec.run_id", "openai_evals_sampled_model": "data.model"}
    frames = []
    names = list(samples)
    for start in range(0, max(len(names), 1), BATCH_ROWS):  # rows built a batch at a time
        rows, locations = [], []
        for sample_id in names[start : start + BATCH_ROWS]:
            events = samples.pop(sample_id)
            where, what = f"{os.fspath(path)}, line {events['first']}", f"sample {sample_id!r}"
            rows.append(
                _common.record_row(_sample_row, events, sample_id, context, where=where, what=what)
            )
            locations.append((where, what))
        frames.append(_common.build_frame(rows, EXTRAS, locations=locations, fields=fields))
    frame = _common.concat(frames)
    # Events arrive in completion order; sort by the line number in the samples file.
    order = frame["sample_id"].str.extract(r"\.(\d+)$").cast(pl.Int64, strict=False)
    return frame.with_columns(__order=order).sort("__order", nulls_last=True).drop("__order")


def _kept(data: Any, *, first: bool) -> Any:
    """Return what a row needs of a ``sampling`` event, so a large record file is not held whole.

    The prompt is kept (as its text) only for a sample's first sampling, the one ``input``
    comes from; a sampling that is not an object is kept as it is (the row names it).
    """
    if not isinstance(data, dict):
        return data
    kept = {key: data[key] for key in ("sampled", "usage", "model") if key in data}
    if first and "prompt" in data:
        kept["prompt"] = _prompt_text(data["prompt"])
    return kept


def _sample_row(events: dict[str, Any], sample_id: str, context: dict[str, Any]) -> dict[str, Any]:
    return _row(sample_id, events, context)


def _row(sample_id: str, events: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    samplings = events["sampling"]
    metrics = events.get("metrics") if isinstance(events.get("metrics"), dict) else {}
    # A model-graded eval (a per-sample ``metrics`` event with the judge's ``choice``) samples
    # the model, then asks the judge: its last sampling is the judge's, not the answer.
    graded = not events.get("match") and "choice" in metrics and len(samplings) > 1
    judge = samplings[-1] if graded else None
    if graded:
        samplings = samplings[:-1]
    last = samplings[-1] if samplings else {}
    sampled = last.get("sampled")
    match = events.get("match")
    if isinstance(sampled, list):
        answer = as_text(sampled[0]) if sampled else None
    else:
        answer = as_text(sampled)
    if answer is None and match is not None:
        answer = as_text(match.get("sampled"))
    error = events.get("error")
    usages = [s.get("usage") for s in samplings if isinstance(s.get("usage"), dict)]

    def total(key: str) -> int | None:
        values = [u[key] for u in usages if isinstance(u.get(key), int)]
        return sum(values) if values else None

    correct = match.get("correct") if match else None
    # model-graded evals record their verdict in a per-sample metrics event instead: the
    # choice's score where the spec scores its choices (1 right, 0 wrong), else the choice
    score = correct if match else metrics.get("score")
    if not match and score is None:
        score = metrics.get("choice")
    if not match and isinstance(metrics.get("score"), int | float):
        value = metrics["score"]
        correct = True if value == 1 else (False if value == 0 else None)
    if not match and isinstance(metrics.get("correct"), bool):
        correct = score = metrics["correct"]
    judge_usage = (judge or {}).get("usage")
    judge_usage = judge_usage if isinstance(judge_usage, dict) else {}
    judge_text = (judge or {}).get("sampled")
    if isinstance(judge_text, list):
        judge_text = judge_text[0] if judge_text else None
    # a model-graded eval whose judge gave no choice it offered records "__invalid__": the
    # grader failed, not the model
    invalid = not match and metrics.get("choice") == _INVALID
    return {
        "tool": "openai_evals",
        **context,
        "sample_id": sample_id,
        "epoch": 1,
        "input": _prompt_text(samplings[0].get("prompt")) if samplings else None,
        "output": _common.output_record(answer, status="error" if error is not None else None),
        "refs": _common.as_text_list(match.get("expected")) if match else None,
        "tool_score": as_text(score),
        "tool_correct": correct if isinstance(correct, bool) and not invalid else None,
        "tool_failure": _common.GRADER_FAILURE if invalid else None,
        "input_tokens": total("prompt_tokens"),
        "output_tokens": total("completion_tokens"),
        "total_tokens": total("total_tokens"),
        "openai_evals_sampled_model": as_text(last.get("model")),
        "openai_evals_picked": as_text(match.get("picked")) if match else None,
        "openai_evals_samplings": len(samplings),
        "openai_evals_error": _common.json_text(error) if error is not None else None,
        "grader_input_tokens": judge_usage.get("prompt_tokens") if judge else None,
        "grader_output_tokens": judge_usage.get("completion_tokens") if judge else None,
        "grader_model": as_text(judge.get("model")) if judge else None,
        "openai_evals_grader_text": as_text(judge_text),
    }
