"""Read Braintrust evaluations: ``Eval(...).as_json()`` written to a file.

``braintrust.Eval(name, data=..., task=..., scores=[...])`` returns the run's summary and one
result per case and trial (``input``, ``output``, ``expected``, ``scores`` by scorer,
``metadata``, ``error``). One row per result: ``expected`` gives the acceptable answers, the
score of the scorer named by ``scorer=`` (default: the run's first) is ``tool_score`` and
``tool_correct`` is that score equal to 1 (Braintrust scores run from 0 to 1 and have no pass
flag); every scorer's score is in ``braintrust_scores``. A task that raised is
``status="error"`` (its ``output`` is null, its ``scores`` empty). A scorer that raised has no
score: Braintrust names it in ``metadata.scorer_errors``, and the row reads ``tool_correct`` null
with ``tool_failure="grader_failure"``.

The results carry no case id and no trial number: ``sample_id`` is the case's ``metadata.id``
where there is one, else the order in which the case (its input and expected output) first
appears, from 1; ``epoch`` numbers the trials of a case in order. Rows exported from an
experiment with ``metrics`` (``prompt_tokens``, ``completion_tokens``, ``tokens``,
``prompt_cached_tokens``, ``completion_reasoning_tokens``, ``start``, ``end``,
``estimated_cost``) read those as tokens, ``seconds`` and ``cost``; ``input_tokens`` is
``prompt_tokens`` less ``prompt_cached_tokens`` (those are ``cache_read_tokens``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import polars as pl

from gradeframe.logs._columns import USAGE, VERDICT, finish
from gradeframe.logs._common import (
    PathLike,
    as_text,
    as_text_list,
    build_frame,
    head,
    json_text,
    load_json,
    log_error,
    output_record,
    record_row,
)

TOOL = "braintrust"

SCORE = pl.Struct({"scorer": pl.String, "score": pl.Float64})

EXTRAS: dict[str, pl.DataType] = {
    **VERDICT,
    **USAGE,
    "braintrust_scorer": pl.String(),
    "braintrust_scores": pl.List(SCORE),
    "braintrust_scorer_errors": pl.List(pl.String),
    "braintrust_error": pl.String(),
    "braintrust_metadata": pl.String(),
    "braintrust_tags": pl.List(pl.String),
    "braintrust_experiment": pl.String(),
}

_FIELDS = {"tool_score": "scores", "input_tokens": "metrics.prompt_tokens"}


def detect(path: PathLike) -> bool:
    """Return whether ``path`` is a Braintrust ``as_json()`` file."""
    path = Path(path)
    if not path.is_file() or path.suffix != ".json":
        return False
    text = head(path, 8192)
    return '"summary"' in text and '"results"' in text and '"experiment_name"' in text


def read(path: PathLike, *, scorer: str | None = None) -> pl.DataFrame:
    """Read one Braintrust evaluation (``as_json()``) into the common columns.

    Parameters
    ----------
    path
        The file ``as_json()`` was written to.
    scorer
        The scorer whose score is ``tool_score``/``tool_correct``; default: the run's first.

    Returns
    -------
    polars.DataFrame
        One row per case and trial.
    """
    path = Path(path)
    document = load_json(path)
    if not isinstance(document, dict) or not isinstance(document.get("results"), list):
        raise log_error(path, "not a Braintrust evaluation: field 'results' is not a list")
    summary = document.get("summary") or {}
    if not isinstance(summary, dict):
        raise log_error(path, "field 'summary' is not a JSON object")
    comparison = summary.get("comparison") or {}
    names = list((comparison.get("scores") or {}) if isinstance(comparison, dict) else {})
    for result in document["results"]:
        scores = result.get("scores") if isinstance(result, dict) else None
        names += [n for n in scores or {} if n not in names] if isinstance(scores, dict) else []
    chosen = scorer if scorer is not None else (names[0] if names else None)
    if scorer is not None and scorer not in names:
        msg = f"scorer={scorer!r}: {os.fspath(path)} has the scorers {names}"
        raise ValueError(msg)
    context = {
        "tool": TOOL,
        "log": os.fspath(path),
        "model": None,
        "task": as_text(summary.get("experiment_name") or summary.get("project_name")) or path.stem,
        "braintrust_experiment": as_text(summary.get("experiment_name")),
    }
    seen: dict[str, int] = {}
    trials: dict[str, int] = {}
    rows, locations = [], []
    for index, result in enumerate(document["results"]):
        what = f"results[{index}]"
        row = record_row(_row, result, context, names, chosen, where=path, what=what)
        key = row.pop("__case")
        seen.setdefault(key, len(seen) + 1)
        trials[key] = trials.get(key, 0) + 1
        row["sample_id"] = row["sample_id"] or str(seen[key])
        row["epoch"] = trials[key]
        rows.append(row)
        locations.append((path, what))
    return finish(build_frame(rows, EXTRAS, locations=locations, fields=_FIELDS), EXTRAS)


def _number(metrics: dict[str, Any], key: str) -> Any:
    value = metrics.get(key)
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _uncached(metrics: dict[str, Any]) -> Any:
    """Return the prompt tokens not read from the provider's cache (gradeframe's convention).

    Braintrust's ``prompt_tokens`` counts every prompt token, the cached ones
    (``prompt_cached_tokens``) among them; gradeframe's ``input_tokens`` leaves those to
    ``cache_read_tokens``, so that no token is charged twice.
    """
    prompt, cached = _number(metrics, "prompt_tokens"), _number(metrics, "prompt_cached_tokens")
    return prompt if prompt is None or cached is None else prompt - cached


def _row(
    result: dict[str, Any], context: dict[str, Any], names: list[str], chosen: str | None
) -> dict[str, Any]:
    scores = result.get("scores") or {}
    metadata = result.get("metadata") or {}
    errors = metadata.get("scorer_errors") or {} if isinstance(metadata, dict) else {}
    error = result.get("error")
    value = scores.get(chosen) if chosen is not None else None
    metrics = result.get("metrics") or {}
    start, end = _number(metrics, "start"), _number(metrics, "end")
    case_id = metadata.get("id") if isinstance(metadata, dict) else None
    return {
        **context,
        "__case": json_text([result.get("input"), result.get("expected")]),
        "sample_id": as_text(case_id),
        "input": as_text(result.get("input")),
        "output": output_record(
            as_text(result.get("output")), status="error" if error is not None else "ok"
        ),
        "refs": as_text_list(result.get("expected")),
        "tool_score": as_text(value),
        "tool_correct": None if value is None else value == 1,
        "tool_failure": "grader_failure" if error is None and chosen in errors else None,
        "input_tokens": _uncached(metrics),
        "output_tokens": _number(metrics, "completion_tokens"),
        "total_tokens": _number(metrics, "tokens"),
        "seconds": end - start if start is not None and end is not None else None,
        "cache_read_tokens": _number(metrics, "prompt_cached_tokens"),
        "reasoning_tokens": _number(metrics, "completion_reasoning_tokens"),
        "cost": _number(metrics, "estimated_cost"),
        "braintrust_scorer": chosen if value is not None else None,
        "braintrust_scores": [{"scorer": n, "score": scores.get(n)} for n in names],
        "braintrust_scorer_errors": list(errors),
        "braintrust_error": as_text(error),
        "braintrust_metadata": json_text(metadata) if metadata else None,
        "braintrust_tags": as_text_list(result.get("tags")),
    }
