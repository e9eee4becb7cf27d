"""Read promptfoo results: ``promptfoo eval -o results.json`` (or ``.jsonl``).

One row per test case, prompt, provider and repeat. promptfoo has no reference field: the
acceptable answers come from the test's ``metadata`` or variable named by ``refs=`` (a list is
best kept in ``metadata``, because promptfoo expands a list-valued variable into one test per
value), or else from the values of its ``equals``/``contains*``/``starts-with`` assertions (as
promptfoo rendered them). ``--repeat`` writes each repeat as a test of its own with no repeat
number: the reader numbers the repeats (``epoch``) of identical tests in order and gives all of
them the same ``sample_id``. A provider error (``failureReason`` 2) sets ``status="error"``; a
reply promptfoo flags as a refusal sets ``status="refused"`` and a trace step ``refusal``; a
content filter (``finishReason: content_filter`` or flagged guardrails) is a trace step finished
with ``content_filter``; ``finishReason: length`` is a partial answer noted ``finish:length``.
``input_tokens`` is ``tokenUsage.prompt`` less the cache reads
(``completionDetails.cacheReadInputTokens``, which are ``cache_read_tokens``).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import polars as pl

from gradeframe.logs import _common
from gradeframe.logs._common import PathLike, as_text

TOOL = "promptfoo"
#: JSON Lines results are read a line at a time and turned into columns this many at a time.
BATCH_ROWS = 5_000

EXTRAS: dict[str, pl.DataType] = {
    "promptfoo_test": pl.String(),
    "promptfoo_test_idx": pl.Int64(),
    "promptfoo_prompt": pl.String(),
    "promptfoo_prompt_idx": pl.Int64(),
    "promptfoo_provider_id": pl.String(),
    "promptfoo_failure_reason": pl.Int64(),
    "promptfoo_reason": pl.String(),
    "promptfoo_grader_text": pl.String(),
    "promptfoo_error": pl.String(),
    "promptfoo_cost": pl.Float64(),
    "promptfoo_vars": pl.String(),
    "promptfoo_id": pl.String(),
}

# Assertions whose values are acceptable answers (not negated, not regex, not model-graded).
_REF_ASSERTIONS = {
    "equals",
    "contains",
    "icontains",
    "contains-any",
    "icontains-any",
    "contains-all",
    "icontains-all",
    "starts-with",
}
_TEMPLATE = re.compile(r"\{\{\s*([A-Za-z_][\w.]*)\s*\}\}")
# Model-graded assertions: a judge model's reply is their verdict (its text is kept).
_MODEL_GRADED = {
    "llm-rubric",
    "g-eval",
    "factuality",
    "model-graded-closedqa",
    "model-graded-factuality",
    "answer-relevance",
    "context-faithfulness",
    "context-recall",
    "context-relevance",
    "select-best",
    "search-rubric",
    "conversation-relevance",
}
_ERROR = 2  # failureReason of a provider error (1 is a failed assertion)
# The result field behind each column (named when a value does not fit the column).
_FIELDS = {
    "task": "config.description",
    "model": "provider.label",
    "input": "prompt.raw",
    "tool_score": "score",
    "tool_correct": "success",
    "input_tokens": "response.tokenUsage.prompt",
    "output_tokens": "response.tokenUsage.completion",
    "total_tokens": "response.tokenUsage.total",
    "seconds": "latencyMs",
    "promptfoo_test": "testCase.description",
    "promptfoo_test_idx": "testIdx",
    "promptfoo_prompt_idx": "promptIdx",
    "promptfoo_provider_id": "provider.id",
    "promptfoo_failure_reason": "failureReason",
    "promptfoo_reason": "gradingResult.reason",
    "grader_input_tokens": "gradingResult.tokensUsed.prompt",
    "grader_output_tokens": "gradingResult.tokensUsed.completion",
    "cache_read_tokens": "response.tokenUsage.completionDetails.cacheReadInputTokens",
    "reasoning_tokens": "response.tokenUsage.completionDetails.reasoning",
    "cost": "cost",
    "promptfoo_cost": "cost",
    "promptfoo_id": "id",
}


def detect(path: PathLike) -> bool:
    """Return whether ``path`` is a promptfoo results file (``.json`` or ``.jsonl``)."""
    path = Path(path)
    if not path.is_file():
        return False
    if path.suffix == ".json":
        text = _common.head(path)
        return '"evalId"' in text or ('"promptIdx"' in text and '"testIdx"' in text)
    if path.suffix == ".jsonl":
        first = _common.first_json_line(path)
        return first is not None and "promptIdx" in first and "testIdx" in first
    return False


def read(path: PathLike, *, refs: str = "expected") -> pl.DataFrame:
    """Read one promptfoo results file into the common columns.

    Parameters
    ----------
    path
        ``results.json`` (the ``-o`` JSON export) or ``results.jsonl`` (one result a line).
    refs
        The test ``metadata`` key or variable holding the acceptable answers (a string or a
        list); where a test has neither, the values of its ``equals``/``contains*``/
        ``starts-with`` assertions are used.

    Returns
    -------
    polars.DataFrame
        One row per test case, prompt, provider and repeat.
    """
    path = Path(path)
    extras = {**EXTRAS, "_test_key": pl.String(), "_repeat_key": pl.String()}
    if path.suffix == ".jsonl":
        # JSON Lines output has no eval description: the file's stem names the task
        context = {"log": os.fspath(path), "task": path.stem}
        frames, rows, locations = [], [], []
        for number, record in _common.iter_json_lines(path):  # a line at a time, rows in batches
            if not isinstance(record, dict) or "testIdx" not in record:
                raise _common.log_error(path, "not a promptfoo result (no 'testIdx')", line=number)
            where, what = f"{os.fspath(path)}, line {number}", "the result"
            rows.append(_common.record_row(_row, record, context, refs, where=where, what=what))
            locations.append((where, what))
            if len(rows) >= BATCH_ROWS:
                frames.append(
                    _common.build_frame(rows, extras, locations=locations, fields=_FIELDS)
                )
                rows, locations = [], []
        if rows or not frames:
            frames.append(_common.build_frame(rows, extras, locations=locations, fields=_FIELDS))
        frame = _common.concat(frames)
    else:
        document = _common.load_json(path)
        body = document.get("results") if isinstance(document, dict) else None
        results = body.get("results") if isinstance(body, dict) else body
        if not isinstance(results, list):
            raise _common.log_error(path, "not a promptfoo results file (no 'results' list)")
        config = document.get("config") or {}
        if not isinstance(config, dict):
            raise _common.log_error(path, "field 'config' is not a JSON object")
        description = as_text(config.get("description"))
        task = description if isinstance(description, str) and description else path.stem
        context = {"log": os.fspath(path), "task": task}
        rows, locations = [], []
        for index, result in enumerate(results):
            if not isinstance(result, dict):
                raise _common.log_error(path, f"result {index} is not a JSON object")
            what = f"results[{index}]"
            rows.append(_common.record_row(_row, result, context, refs, where=path, what=what))
            locations.append((path, what))
        frame = _common.build_frame(rows, extras, locations=locations, fields=_FIELDS)
    # Repeats carry no number: identical tests are repeats, numbered in the order promptfoo ran
    # them, and share the id of the first one.
    return frame.with_columns(
        sample_id=pl.col("promptfoo_test_idx").min().over("_test_key").cast(pl.String),
        epoch=pl.col("promptfoo_test_idx").rank("ordinal").over("_repeat_key").cast(pl.Int64),
    ).drop("_test_key", "_repeat_key")


def _grader_error(component: dict[str, Any]) -> bool:
    """Whether a grading result (or one of its components) says its grader failed."""
    metadata = component.get("metadata") or {}
    return bool(metadata.get("graderError")) if isinstance(metadata, dict) else False


def _judged(grading: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the components graded by a judge model (or whose grader failed)."""
    components = grading.get("componentResults") or []
    found = []
    for component in components:
        if not isinstance(component, dict):
            continue
        assertion = component.get("assertion") or {}
        kind = assertion.get("type") if isinstance(assertion, dict) else assertion
        metadata = component.get("metadata") or {}
        if kind in _MODEL_GRADED or _grader_error(component) or "graderOutputs" in metadata:
            found.append(component)
    return found


def _judge_text(component: dict[str, Any]) -> str | None:
    """Return a judge's text: its raw outputs where promptfoo kept them, else its reason."""
    outputs = (component.get("metadata") or {}).get("graderOutputs")
    if outputs:
        texts = outputs if isinstance(outputs, list) else [outputs]
        return "\n\n".join(t for t in (as_text(x) for x in texts) if t)
    return as_text(component.get("reason"))


def _render(value: Any, variables: dict[str, Any]) -> Any:
    """Fill ``{{name}}`` placeholders from the test's variables (lists element by element)."""
    if isinstance(value, list):
        return [_render(v, variables) for v in value]
    if not isinstance(value, str):
        return value
    return _TEMPLATE.sub(lambda m: str(variables.get(m[1], m[0])), value)


def _assertion_refs(result: dict[str, Any], variables: dict[str, Any]) -> list[str]:
    grading = result.get("gradingResult") or {}
    components = grading.get("componentResults") if isinstance(grading, dict) else None
    if components:
        checks = [
            (c.get("assertion") or {}, (c.get("metadata") or {}).get("renderedAssertionValue"))
            for c in components
            if isinstance(c, dict)
        ]
    else:
        assertions = (result.get("testCase") or {}).get("assert") or []
        checks = [(a, None) for a in assertions if isinstance(a, dict)]
    refs: list[str] = []
    for assertion, rendered in checks:
        kind = assertion.get("type")
        if kind not in _REF_ASSERTIONS:
            continue
        value = rendered if rendered is not None else _render(assertion.get("value"), variables)
        if isinstance(value, str) and kind.endswith(("-any", "-all")):
            value = [part.strip() for part in value.split(",")]
        refs.extend(_common.as_text_list(value) or [])
    return list(dict.fromkeys(refs))


def _refs(result: dict[str, Any], variables: dict[str, Any], key: str) -> list[str]:
    metadata = (result.get("testCase") or {}).get("metadata") or {}
    if isinstance(metadata, dict) and metadata.get(key) is not None:
        return _common.as_text_list(metadata[key]) or []
    if variables.get(key) is not None:
        return _common.as_text_list(variables[key]) or []
    return _assertion_refs(result, variables)


def _uncached(prompt: Any, cached: Any) -> Any:
    """Return the prompt tokens not read from the provider's cache (gradeframe's convention).

    promptfoo's ``tokenUsage.prompt`` counts every prompt token, the cache reads among them
    (its OpenAI and Anthropic providers both add them in); gradeframe's ``input_tokens`` leaves
    those to ``cache_read_tokens``, so that no token is charged twice.
    """
    numbers = [isinstance(v, int | float) and not isinstance(v, bool) for v in (prompt, cached)]
    return prompt - cached if all(numbers) else prompt


def _row(result: dict[str, Any], context: dict[str, Any], refs_key: str) -> dict[str, Any]:
    test = result.get("testCase") or {}
    variables = result.get("vars") or test.get("vars") or {}
    response = result.get("response") or {}
    provider = result.get("provider") or {}
    if isinstance(provider, str):
        provider = {"id": provider}
    prompt = result.get("prompt") or {}
    failure = result.get("failureReason")
    error = response.get("error") or (result.get("error") if failure == _ERROR else None)
    finish = response.get("finishReason")
    refused = response.get("isRefusal") is True
    flagged = (response.get("guardrails") or {}).get("flagged") is True
    trace = [("response", finish)] if finish else []
    if refused:
        trace.append(("refusal", "refusal"))
    if flagged and finish != "content_filter":
        trace.append(("guardrails", "content_filter"))
    status = "error" if failure == _ERROR or error else ("refused" if refused else "ok")
    usage = response.get("tokenUsage") or result.get("tokenUsage") or {}
    latency = result.get("latencyMs")
    grading = result.get("gradingResult") or {}
    judged = _judged(grading)
    grader_failed = any(_grader_error(c) for c in [grading, *judged])
    judge_text = [_judge_text(c) for c in judged]
    grader_usage = grading.get("tokensUsed") or {}
    details = usage.get("completionDetails") or {}
    options = test.get("options") or {}
    grader = options.get("provider") if isinstance(options, dict) else None
    grader = grader.get("id") if isinstance(grader, dict) else grader
    test_key = _common.json_text([test.get("description"), variables])
    model = provider.get("label") or provider.get("id")
    prompt_idx = result.get("promptIdx")
    return {
        "tool": TOOL,
        **context,
        "model": model,
        "input": as_text(prompt.get("raw")),
        "output": _common.output_record(
            as_text(response.get("output")),
            partial=finish == "length",
            notes=["finish:length"] if finish == "length" else [],
            trace=trace,
            status=status,
        ),
        "refs": _refs(result, variables, refs_key),
        "tool_score": as_text(result.get("score")),
        # a judge that failed (graderError) leaves the test ungraded: not the model's failure
        "tool_correct": None if grader_failed else result.get("success"),
        "tool_failure": _common.GRADER_FAILURE if grader_failed else None,
        "input_tokens": _uncached(usage.get("prompt"), details.get("cacheReadInputTokens")),
        "output_tokens": usage.get("completion"),
        "total_tokens": usage.get("total"),
        "cache_read_tokens": details.get("cacheReadInputTokens"),
        "reasoning_tokens": details.get("reasoning"),
        "seconds": latency / 1000 if isinstance(latency, int | float) else None,
        "cost": result.get("cost"),
        "grader_input_tokens": grader_usage.get("prompt") if judged else None,
        "grader_output_tokens": grader_usage.get("completion") if judged else None,
        "grader_model": as_text(grader) if judged else None,
        "promptfoo_test": test.get("description"),
        "promptfoo_test_idx": result.get("testIdx"),
        "promptfoo_prompt": as_text(prompt.get("label")),
        "promptfoo_prompt_idx": prompt_idx,
        "promptfoo_provider_id": provider.get("id"),
        "promptfoo_failure_reason": failure,
        "promptfoo_reason": grading.get("reason"),
        "promptfoo_grader_text": "\n\n".join(t for t in judge_text if t) or None,
        "promptfoo_error": as_text(error),
        "promptfoo_cost": result.get("cost"),
        "promptfoo_vars": _common.json_text(variables),
        "promptfoo_id": result.get("id"),
        "_test_key": test_key,
        "_repeat_key": _common.json_text([test_key, prompt_idx, provider.get("id"), model]),
    }
