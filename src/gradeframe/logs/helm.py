"""Read HELM run folders: ``benchmark_output/runs/<suite>/<run spec name>/``.

A run folder holds ``scenario_state.json`` (every request: instance, request, result) and
``per_instance_stats.json`` (the metrics per instance). One row per request state: instance ×
train trial (``epoch`` = trial + 1) × perturbation (``helm_perturbation``). The answer is the
first completion's text, mapped through ``output_mapping`` for joint multiple choice (the letter
"B" becomes the option it stands for); the acceptable answers are the references tagged
``correct``; the tool's verdict is the instance's ``exact_match`` (or the metric named by
``metric=``). A completion that stopped at its length limit is a partial answer noted
``finish:length``; each completion is a trace step finished with its ``finish_reason``; a
non-fatal request failure (``success: false``) sets ``status="error"``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import polars as pl

from gradeframe.logs._common import (
    PathLike,
    as_text,
    build_frame,
    json_text,
    load_json,
    log_error,
    output_record,
    record_row,
    rows_frame,
)

TOOL = "helm"
STATE = "scenario_state.json"
STATS = "per_instance_stats.json"

# The request state field behind each column (named when a value does not fit the column).
_FIELDS = {
    "model": "request.model",
    "sample_id": "instance.id",
    "epoch": "train_trial_index",
    "input": "instance.input.text",
    "seconds": "result.request_time",
    "helm_perturbation": "instance.perturbation.name",
    "helm_split": "instance.split",
    "helm_reference_index": "reference_index",
    "helm_error": "result.error",
    "task": "run_spec.json: name",
    "helm_run": "run_spec.json: name",
}

EXTRAS: dict[str, pl.DataType] = {
    "helm_run": pl.String(),
    "helm_perturbation": pl.String(),
    "helm_reference_index": pl.Int64(),
    "helm_split": pl.String(),
    "helm_completion": pl.String(),
    "helm_completions": pl.List(pl.String),
    "helm_output_mapping": pl.String(),
    "helm_error": pl.String(),
}


def run_folder(path: PathLike) -> Path | None:
    """Return the HELM run folder ``path`` is or lies in (its ``scenario_state.json``), if any."""
    path = Path(path)
    if path.is_dir() and (path / STATE).is_file():
        return path
    if path.is_file() and path.name in (STATE, STATS, "run_spec.json", "scenario.json"):
        return run_folder(path.parent)
    return None


def detect(path: PathLike) -> bool:
    """Return whether ``path`` is a HELM run folder or one of its files."""
    return run_folder(path) is not None


def read(path: PathLike, *, metric: str = "exact_match") -> pl.DataFrame:
    """Read one HELM run folder into the common columns.

    Parameters
    ----------
    path
        The run folder (or its ``scenario_state.json``).
    metric
        The per-instance statistic whose mean becomes ``tool_score`` (and, when it is 0 or 1,
        ``tool_correct``). Default ``"exact_match"``; null where the run did not compute it.

    Returns
    -------
    polars.DataFrame
        One row per request state.
    """
    folder = run_folder(path)
    if folder is None:
        raise log_error(path, f"not a HELM run folder (no {STATE})")
    state = load_json(folder / STATE)
    requests = state.get("request_states") if isinstance(state, dict) else None
    if not isinstance(requests, list):
        raise log_error(folder / STATE, "not a HELM scenario state (no 'request_states')")
    spec_file = folder / "run_spec.json"
    spec = load_json(spec_file) if spec_file.is_file() else {}
    run = spec.get("name") if isinstance(spec, dict) else None
    run = run or folder.name
    context = {"log": os.fspath(folder), "task": _task(run), "helm_run": run}
    rows, locations = [], []
    for index, request_state in enumerate(requests):
        if not isinstance(request_state, dict) or "instance" not in request_state:
            raise log_error(folder / STATE, f"request state {index} has no 'instance'")
        where, what = folder / STATE, f"request_states[{index}]"
        rows.append(record_row(_row, request_state, context, where=where, what=what))
        locations.append((where, what))
    frame = build_frame(rows, EXTRAS, locations=locations, fields=_FIELDS)
    stats = _stats(folder / STATS, metric)
    if stats is None:
        return frame
    keys = ["sample_id", "__trial", "helm_perturbation"]
    joined = frame.with_columns(__trial=pl.col("epoch") - 1).join(
        stats, on=keys, how="left", nulls_equal=True, maintain_order="left"
    )
    value = pl.col("__value")
    return (
        joined.with_columns(
            tool_score=value.cast(pl.String),
            tool_correct=pl.when(value.is_in([0.0, 1.0])).then(value == 1.0),
            input_tokens=pl.coalesce("input_tokens", pl.col("__prompt_tokens").cast(pl.Int64)),
            output_tokens=pl.coalesce("output_tokens", pl.col("__output_tokens").cast(pl.Int64)),
        )
        .with_columns(
            total_tokens=pl.col("input_tokens") + pl.col("output_tokens"),
        )
        .drop("__trial", "__value", "__prompt_tokens", "__output_tokens")
    )


def _task(run: str) -> str:
    """Drop the ``model=`` argument: (``mmlu:subject=x,model=m`` → ``mmlu:subject=x``)."""
    name, _, arguments = run.partition(":")
    kept = [a for a in arguments.split(",") if a and not a.startswith("model=")]
    return f"{name}:{','.join(kept)}" if kept else name


def _stats(path: Path, metric: str) -> pl.DataFrame | None:
    """Return the metric, prompt and output tokens per (instance, trial, perturbation)."""
    if not path.is_file():
        return None
    entries = load_json(path)
    if not isinstance(entries, list):
        raise log_error(path, "not HELM per-instance stats (not a list)")
    wanted = {metric: "__value", "num_prompt_tokens": "__prompt_tokens"}
    wanted["num_output_tokens"] = "__output_tokens"
    kept = [(index, entry) for index, entry in enumerate(entries) if isinstance(entry, dict)]
    locations = [(path, f"entry {index}") for index, _ in kept]
    rows = [
        record_row(_stats_row, entry, wanted, where=p, what=w)
        for (_, entry), (p, w) in zip(kept, locations, strict=True)
    ]
    schema = {
        "sample_id": pl.String,
        "__trial": pl.Int64,
        "helm_perturbation": pl.String,
        "__value": pl.Float64,
        "__prompt_tokens": pl.Float64,
        "__output_tokens": pl.Float64,
    }
    fields = {"sample_id": "instance_id", "__trial": "train_trial_index"}
    fields |= {"helm_perturbation": "perturbation.name", "__value": f"stats ({metric}).mean"}
    fields |= {"__prompt_tokens": "stats (num_prompt_tokens).mean"}
    fields |= {"__output_tokens": "stats (num_output_tokens).mean"}
    frame = rows_frame(rows, schema, where=path, locations=locations, fields=fields)
    return frame.unique(["sample_id", "__trial", "helm_perturbation"], keep="first")


def _stats_row(entry: dict[str, Any], wanted: dict[str, str]) -> dict[str, Any]:
    perturbation = (entry.get("perturbation") or {}).get("name")
    row: dict[str, Any] = {
        "sample_id": as_text(entry.get("instance_id")),
        "__trial": entry.get("train_trial_index"),
        "helm_perturbation": perturbation,
    }
    for stat in entry.get("stats") or []:
        name = stat.get("name") or {}
        column = wanted.get(name.get("name"))
        if column and (name.get("perturbation") or {}).get("name") == perturbation:
            row[column] = stat.get("mean")
    return row


def _row(request_state: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    instance = request_state["instance"]
    request = request_state.get("request") or {}
    result = request_state.get("result") or {}
    completions = [c for c in result.get("completions") or [] if isinstance(c, dict)]
    texts = [as_text(c.get("text")) for c in completions]
    mapping = request_state.get("output_mapping")
    first = texts[0] if texts else None
    answer = first
    if isinstance(mapping, dict) and first is not None and first.strip() in mapping:
        answer = as_text(mapping[first.strip()])
    reasons = [(c.get("finish_reason") or {}).get("reason") for c in completions]
    cut = "length" in reasons
    references = instance.get("references") or []
    refs = [
        as_text((r.get("output") or {}).get("text"))
        for r in references
        if isinstance(r, dict) and "correct" in (r.get("tags") or [])
    ]
    success = result.get("success")
    perturbation = instance.get("perturbation") or {}
    return {
        "tool": TOOL,
        **context,
        "model": request.get("model"),
        "sample_id": as_text(instance.get("id")),
        "epoch": (request_state.get("train_trial_index") or 0) + 1,
        "input": as_text((instance.get("input") or {}).get("text")),
        "output": output_record(
            answer,
            partial=cut,
            notes=["finish:length"] if cut else [],
            trace=[("completion", reason) for reason in reasons],
            status="error" if success is False else "ok",
        ),
        "refs": [r for r in refs if r is not None],
        "input_tokens": None,  # from the per-instance stats
        "output_tokens": None,
        "total_tokens": None,
        "seconds": result.get("request_time"),
        "helm_perturbation": perturbation.get("name") if isinstance(perturbation, dict) else None,
        "helm_split": instance.get("split"),
        "helm_reference_index": request_state.get("reference_index"),
        "helm_completion": first,
        "helm_completions": texts,
        "helm_output_mapping": json_text(mapping),
        "helm_error": as_text(result.get("error")),
    }
