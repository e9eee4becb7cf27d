"""Read inspect_ai logs: ``.eval`` archives (zip, members compressed with Zstandard) and ``.json``.

One row per sample and epoch. The answer is ``output.completion`` (null when the model gave no
choice, as on a failed sample); the acceptable answers are ``target``; inspect's message and turn
limits become the note ``call_cap_reached`` and its token and cost limits ``cost_cap_reached``
(with ``partial`` true), a ``max_tokens`` or ``model_length`` stop is a partial answer noted
``stop:<reason>``, every model call is a trace step finished with its ``stop_reason`` (a content
filter is ``content_filter``), and a sample error sets ``status`` to ``"error"``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import polars as pl

from gradeframe.logs._common import (
    PathLike,
    as_text,
    as_text_list,
    build_frame,
    cap_note,
    head,
    json_text,
    load_json,
    log_error,
    open_zip,
    output_record,
    read_zip_member,
)

TOOL = "inspect"

EXTRAS: dict[str, pl.DataType] = {
    "inspect_scorer": pl.String(),
    "inspect_score_answer": pl.String(),
    "inspect_score_explanation": pl.String(),
    "inspect_scores": pl.String(),
    "inspect_stop_reason": pl.String(),
    "inspect_limit": pl.String(),
    "inspect_error": pl.String(),
    "inspect_choices": pl.List(pl.String),
    "inspect_metadata": pl.String(),
    "inspect_working_time": pl.Float64(),
    "inspect_uuid": pl.String(),
}

# A stop reason that cut the answer short (not a run budget: a generation setting).
_CUT_SHORT = ("max_tokens", "model_length")
_SAMPLE_MEMBER = re.compile(r"^samples/.+\.json$")
_ATTACHMENT = "attachment://"
# inspect's own verdict letters (CORRECT, INCORRECT, PARTIAL, NOANSWER) and their meaning.
_VERDICT = {"C": True, "I": False, "P": False, "N": False, "yes": True, "no": False}


def detect(path: PathLike) -> bool:
    """Return whether ``path`` is an inspect log (``.eval`` archive or ``.json`` log)."""
    path = Path(path)
    if not path.is_file():
        return False
    if path.suffix == ".eval":
        return True
    if path.suffix != ".json":
        return False
    text = head(path)
    return bool(re.search(r'"eval"\s*:\s*\{', text)) and '"task"' in text and '"eval_id"' in text


def read(path: PathLike, *, scorer: str | None = None) -> pl.DataFrame:
    """Read one inspect log (``.eval`` or ``.json``) into the common columns.

    Parameters
    ----------
    path
        The log file.
    scorer
        The scorer whose value becomes ``tool_score``/``tool_correct`` (default: the task's
        first scorer). Every scorer's value is kept in ``inspect_scores`` (JSON text).

    Returns
    -------
    polars.DataFrame
        One row per sample and epoch.
    """
    path = Path(path)
    if path.suffix == ".eval":
        header, samples = _read_eval(path)
    else:
        log = load_json(path)
        if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
            raise log_error(path, "not an inspect log (no 'eval' header)")
        header, samples = log, log.get("samples") or []
    evaluation = header.get("eval") or {}
    scorers = [s.get("name") for s in evaluation.get("scorers") or [] if isinstance(s, dict)]
    if scorer is None and scorers:
        scorer = scorers[0]
    context = {
        "log": os.fspath(path),
        "model": evaluation.get("model"),
        "task": evaluation.get("task"),
    }
    rows = []
    for sample in samples:
        if not isinstance(sample, dict) or "epoch" not in sample:
            raise log_error(path, "a sample record has no 'epoch': not an inspect sample")
        rows.append(_row(sample, context, scorer))
    return build_frame(rows, EXTRAS)


def _read_eval(path: Path) -> tuple[dict[str, Any], list[Any]]:
    """Return the header and the samples of an ``.eval`` archive, in the archive's order."""
    with open_zip(path) as archive:
        infos = {info.filename: info for info in archive.infolist()}
        # header.json is written when the run ends; a run still going has only its journal.
        name = "header.json" if "header.json" in infos else "_journal/start.json"
        if name not in infos:
            raise log_error(path, "not an inspect .eval log (no header.json)")
        header = load_json(path, read_zip_member(path, archive, infos[name]), member=name)
        samples = [
            load_json(path, read_zip_member(path, archive, info), member=member)
            for member, info in infos.items()
            if _SAMPLE_MEMBER.match(member)
        ]
    if not isinstance(header, dict):
        raise log_error(path, f"{name} is not a JSON object")
    return header, samples


def _resolve(value: Any, attachments: dict[str, Any]) -> Any:
    """Replace an ``attachment://<hash>`` reference by the text it stands for."""
    if isinstance(value, str) and value.startswith(_ATTACHMENT):
        return attachments.get(value[len(_ATTACHMENT) :], value)
    return value


def _message_text(content: Any, attachments: dict[str, Any]) -> str | None:
    """Return the text of a chat message's content (a string or a list of content parts)."""
    content = _resolve(content, attachments)
    if isinstance(content, str) or content is None:
        return content
    if isinstance(content, list):
        parts = [
            _resolve(part.get("text"), attachments)
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        ]
        return "\n".join(p for p in parts if isinstance(p, str))
    return as_text(content)


def _input_text(value: Any, attachments: dict[str, Any]) -> str | None:
    """Return the question: the input text, or the last user message of a chat input."""
    value = _resolve(value, attachments)
    if isinstance(value, str) or value is None:
        return value
    if isinstance(value, list):
        messages = [m for m in value if isinstance(m, dict)]
        users = [m for m in messages if m.get("role") == "user"] or messages
        return _message_text(users[-1].get("content"), attachments) if users else None
    return as_text(value)


def _verdict(value: Any) -> bool | None:
    """Return inspect's verdict as a Boolean: C/yes/true/1 right, I/P/N/no/false/0 not."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return _VERDICT.get(value, {"true": True, "false": False}.get(value.lower()))
    if isinstance(value, int | float):
        return {1: True, 0: False}.get(value)  # other numbers are scores, not verdicts
    return None


def _trace(sample: dict[str, Any], output: dict[str, Any]) -> list[tuple[str | None, str | None]]:
    """One step per model call, finished with the call's stop reason."""
    steps = []
    for event in sample.get("events") or []:
        if isinstance(event, dict) and event.get("event") == "model":
            choices = (event.get("output") or {}).get("choices") or []
            reason = choices[0].get("stop_reason") if choices else None
            steps.append(("model", reason))
    if not steps:  # no events kept: the final output is the one step known
        steps = [("model", c.get("stop_reason")) for c in output.get("choices") or []][:1]
    return steps


def _row(sample: dict[str, Any], context: dict[str, Any], scorer: str | None) -> dict[str, Any]:
    attachments = sample.get("attachments") or {}
    output = sample.get("output") or {}
    choices = output.get("choices") or []
    stop_reason = choices[0].get("stop_reason") if choices else None
    answer = _resolve(output.get("completion"), attachments) if choices else None
    limit = sample.get("limit") or {}
    limit_type = limit.get("type") if isinstance(limit, dict) else None
    notes = []
    if limit_type:
        notes.append(f"limit:{limit_type}")
        note = cap_note(limit_type)
        if note:
            notes.append(note)
    if stop_reason in _CUT_SHORT:
        notes.append(f"stop:{stop_reason}")
    error = sample.get("error")
    status = "error" if error else "ok"
    scores = sample.get("scores") or {}
    chosen = scores.get(scorer) if scorer else None
    if chosen is None and scores and scorer is None:
        chosen = next(iter(scores.values()))
    chosen = chosen if isinstance(chosen, dict) else {}
    usage = [u for u in (sample.get("model_usage") or {}).values() if isinstance(u, dict)]

    def total(key: str) -> int | None:
        values = [u[key] for u in usage if isinstance(u.get(key), int)]
        return sum(values) if values else None

    return {
        "tool": TOOL,
        **context,
        "sample_id": as_text(sample.get("id")),
        "epoch": sample.get("epoch"),
        "input": _input_text(sample.get("input"), attachments),
        "output": output_record(
            answer if isinstance(answer, str) else as_text(answer),
            partial=bool(limit_type) or stop_reason in _CUT_SHORT,
            notes=notes,
            trace=_trace(sample, output),
            status=status,
        ),
        "refs": as_text_list(sample.get("target")),
        "tool_score": as_text(chosen.get("value")),
        "tool_correct": _verdict(chosen.get("value")),
        "input_tokens": total("input_tokens"),
        "output_tokens": total("output_tokens"),
        "total_tokens": total("total_tokens"),
        "seconds": sample.get("total_time"),
        "inspect_scorer": scorer if scorer in scores else (next(iter(scores), None)),
        "inspect_score_answer": as_text(chosen.get("answer")),
        "inspect_score_explanation": as_text(chosen.get("explanation")),
        "inspect_scores": json_text(
            {name: (s or {}).get("value") for name, s in scores.items()} if scores else None
        ),
        "inspect_stop_reason": stop_reason,
        "inspect_limit": limit_type,
        "inspect_error": (error.get("message") if isinstance(error, dict) else as_text(error)),
        "inspect_choices": as_text_list(sample.get("choices")),
        "inspect_metadata": json_text(sample.get("metadata") or None),
        "inspect_working_time": sample.get("working_time"),
        "inspect_uuid": sample.get("uuid"),
    }
