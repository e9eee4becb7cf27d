"""Read inspect_ai logs: ``.eval`` archives (zip, members compressed with Zstandard) and ``.json``.

One row per sample and epoch. The answer is ``output.completion`` (null when the model gave no
choice, as on a failed sample); the acceptable answers are ``target``; inspect's message and turn
limits become the note ``call_cap_reached`` and its token and cost limits ``cost_cap_reached``
(with ``partial`` true), a ``max_tokens`` or ``model_length`` stop is a partial answer noted
``stop:<reason>``, every model call is a trace step finished with its ``stop_reason`` (a content
filter is ``content_filter``), and a sample error sets ``status`` to ``"error"``.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from gradeframe.logs._common import (
    CALL_CAP,
    COST_CAP,
    PathLike,
    as_text,
    conform,
    head,
    load_json,
    log_error,
    open_zip,
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
    "inspect_completion": pl.String(),
    "inspect_target": pl.List(pl.String),
    "inspect_metadata": pl.String(),
    "inspect_working_time": pl.Float64(),
    "inspect_uuid": pl.String(),
}

# A stop reason that cut the answer short (not a run budget: a generation setting).
_CUT_SHORT = ("max_tokens", "model_length")
_SAMPLE_MEMBER = re.compile(r"^samples/.+\.json$")
_ATTACHMENT = "attachment://"
_LOG_START = re.compile(r'\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')
# inspect's verdict letters (CORRECT, INCORRECT, PARTIAL, NOANSWER) and other values as Polars
# writes them as text: their meaning as a Boolean (other numbers are scores, not verdicts).
_VERDICT_TEXT = {
    "C": True,
    "I": False,
    "P": False,
    "N": False,
    "yes": True,
    "no": False,
    "true": True,
    "false": False,
    "1": True,
    "0": False,
    "1.0": True,
    "0.0": False,
}


def detect(path: PathLike) -> bool:
    """Return whether ``path`` is an inspect log (``.eval`` archive or ``.json`` log)."""
    path = Path(path)
    if not path.is_file():
        return False
    if path.suffix == ".eval":
        return True
    if path.suffix != ".json":
        return False
    # An EvalLog starts with its format version and status (inspect writes its fields in
    # order); a log folder's logs.json index, keyed by file name, does not.
    text = head(path)
    if _LOG_START.match(text):
        return True
    return (
        path.name != "logs.json"
        and bool(re.search(r'"eval"\s*:\s*\{', text))
        and '"eval_id"' in text
        and '"task"' in text
    )


def read(path: PathLike, *, scorer: str | Sequence[str] | None = None) -> pl.DataFrame:
    """Read one inspect log (``.eval`` or ``.json``) into the common columns.

    Parameters
    ----------
    path
        The log file.
    scorer
        The scorer whose value becomes ``tool_score``/``tool_correct`` (default: the task's
        first scorer), or a list of them in order of preference (the first the log has is
        used; for a folder of tasks with different scorers). Every scorer's value is kept in
        ``inspect_scores`` (JSON text).

    Returns
    -------
    polars.DataFrame
        One row per sample and epoch.
    """
    path = Path(path)
    if path.suffix == ".eval":
        header, members, summaries = _read_eval(path)
        scorers = _scorers(header, summaries) or _member_scorers(path, members)
        parts = _fast_parts(path, members, scorers)
    else:
        log = load_json(path)
        if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
            raise log_error(path, "not an inspect log (no 'eval' header)")
        header, samples = log, [s for s in log.get("samples") or [] if isinstance(s, dict)]
        scorers = _scorers(header, samples)
        parts = _exact_parts(samples, scorers)
    if scorer is not None:
        wanted = [scorer] if isinstance(scorer, str) else list(scorer)
        present = [name for name in wanted if name in scorers]
        if not present:
            msg = f"`scorer={scorer!r}`: {path} has no such scorer; its scorers are {scorers}"
            raise ValueError(msg)
        scorer = present[0]
    evaluation = header.get("eval") or {}
    context = {
        "tool": pl.lit(TOOL),
        "log": pl.lit(os.fspath(path)),
        "model": pl.lit(evaluation.get("model"), dtype=pl.String),
        "task": pl.lit(evaluation.get("task"), dtype=pl.String),
    }
    chosen = scorer if scorer is not None else (scorers[0] if scorers else None)
    index = scorers.index(chosen) if chosen is not None else None
    return conform(_frame(parts, context, chosen, index, scorers), EXTRAS)


def read_samples(
    samples: Sequence[dict[str, Any]],
    *,
    model: str | None = None,
    task: str | None = None,
    log: str | None = None,
) -> pl.DataFrame:
    """Read samples given as inspect's sample records (``EvalSample`` as JSON) into the columns.

    The same mapping as :func:`read` (completion, targets, stop reasons, limits, errors, an
    inspect ``choice()`` score's letters), for samples that are not in a log file: the
    scorers of :mod:`gradeframe.inspect` build each sample's record from the ``TaskState`` and
    its transcript and read it here, so that a scorer and ``read_inspect`` never disagree.
    """
    records = [sample for sample in samples if isinstance(sample, dict)]
    scorers = _scorers({}, records)
    context = {
        "tool": pl.lit(TOOL),
        "log": pl.lit(log, dtype=pl.String),
        "model": pl.lit(model, dtype=pl.String),
        "task": pl.lit(task, dtype=pl.String),
    }
    chosen = scorers[0] if scorers else None
    frame = _frame(_exact_parts(records, scorers), context, chosen, 0 if scorers else None, scorers)
    return conform(frame, EXTRAS)


def _scorers(header: dict[str, Any], samples: list[Any]) -> list[str]:
    """Return the scorer names: the header's, then any other a sample's scores are keyed by."""
    listed = (header.get("eval") or {}).get("scorers") or []
    names = [s["name"] for s in listed if isinstance(s, dict) and isinstance(s.get("name"), str)]
    for sample in samples:
        scores = sample.get("scores") if isinstance(sample, dict) else None
        if isinstance(scores, dict):
            names.extend(name for name in scores if isinstance(name, str))
    return list(dict.fromkeys(names))


def _member_scorers(path: Path, members: list[tuple[str, bytes]]) -> list[str]:
    """Return the scorers of the first sample (for a header that lists none)."""
    for member, data in members[:1]:
        sample = load_json(path, data, member=member)
        scores = sample.get("scores") if isinstance(sample, dict) else None
        return list(scores) if isinstance(scores, dict) else []
    return []


def _read_eval(path: Path) -> tuple[dict[str, Any], list[tuple[str, bytes]], list[Any]]:
    """Return the header, the sample members (in archive order) and the sample summaries."""
    with open_zip(path) as archive:
        infos = {info.filename: info for info in archive.infolist()}
        # header.json is written when the run ends; a run still going has only its journal.
        name = "header.json" if "header.json" in infos else "_journal/start.json"
        if name not in infos:
            raise log_error(path, "not an inspect .eval log (no header.json)")
        header = load_json(path, read_zip_member(path, archive, infos[name]), member=name)
        members = [
            (member, read_zip_member(path, archive, info))
            for member, info in infos.items()
            if _SAMPLE_MEMBER.match(member)
        ]
        # compact summaries (no output): they name every scorer a sample was scored by
        summaries: list[Any] = []
        for member in [m for m in infos if m == "summaries.json"] or sorted(
            m for m in infos if m.startswith("_journal/summaries/")
        ):
            found = load_json(path, read_zip_member(path, archive, infos[member]), member=member)
            summaries.extend(found if isinstance(found, list) else [])
    if not isinstance(header, dict):
        raise log_error(path, f"{name} is not a JSON object")
    if "eval" not in header and isinstance(header.get("eval_spec"), dict):
        header = {**header, "eval": header["eval_spec"]}
    return header, members, summaries


# The columns both ways of reading produce, before they become the common columns.
PARTS: dict[str, pl.DataType] = {
    "sample_id": pl.String(),
    "epoch": pl.Int64(),
    "input": pl.String(),
    "refs": pl.List(pl.String),
    "answer": pl.String(),
    "stop": pl.String(),
    "limit": pl.String(),
    "error": pl.String(),
    "trace": pl.List(pl.String),
    "usage": pl.List(pl.Int64),
    "scores": pl.List(pl.String),  # one value per scorer, as text, in the scorers' order
    "score_answer": pl.List(pl.String),
    "score_explanation": pl.List(pl.String),
    "choices": pl.List(pl.String),
    "metadata": pl.String(),
    "total_time": pl.Float64(),
    "working_time": pl.Float64(),
    "uuid": pl.String(),
}


# ---- the exact way: Python's json, one sample at a time -------------------------------------


def _value_text(value: Any) -> str | None:
    """Return a score value as text, as Polars writes a JSON value into a String column."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _exact_row(sample: dict[str, Any], scorers: list[str]) -> dict[str, Any]:
    attachments = sample.get("attachments") or {}
    output = sample.get("output") or {}
    choices = output.get("choices") or []
    stop = choices[0].get("stop_reason") if choices else None
    raw_input = sample.get("input")
    if isinstance(raw_input, list):
        question = _input_text([m for m in raw_input if isinstance(m, dict)], attachments)
    else:
        question = _resolve(as_text(raw_input), attachments)
    trace = [
        ((event.get("output") or {}).get("choices") or [{}])[0].get("stop_reason")
        for event in sample.get("events") or []
        if isinstance(event, dict)
        and event.get("event") == "model"
        and isinstance(event.get("output"), dict)
    ]
    limit = sample.get("limit")
    error = sample.get("error")
    scores = sample.get("scores") or {}
    chosen = [scores.get(name) if isinstance(scores.get(name), dict) else {} for name in scorers]
    metadata = sample.get("metadata")
    target = sample.get("target")
    return {
        "sample_id": as_text(sample.get("id")),
        "epoch": sample.get("epoch"),
        "input": question,
        "refs": [target] if isinstance(target, str) else target,
        "answer": _resolve(output.get("completion"), attachments) if choices else None,
        "stop": stop,
        "limit": limit.get("type") if isinstance(limit, dict) else limit,
        "error": error.get("message") if isinstance(error, dict) else error,
        "trace": trace if trace else [stop for _ in choices[:1]],
        "usage": _usage(sample.get("model_usage") or {}),
        "scores": [_value_text(c.get("value")) for c in chosen],
        "score_answer": [as_text(c.get("answer")) for c in chosen],
        "score_explanation": [as_text(c.get("explanation")) for c in chosen],
        "choices": sample.get("choices"),
        "metadata": json.dumps(metadata, ensure_ascii=False) if metadata else None,
        "total_time": sample.get("total_time"),
        "working_time": sample.get("working_time"),
        "uuid": sample.get("uuid"),
    }


def _exact_parts(samples: list[dict[str, Any]], scorers: list[str]) -> pl.DataFrame:
    rows = [_exact_row(sample, scorers) for sample in samples if "epoch" in sample]
    return pl.DataFrame(rows, schema=PARTS, strict=False)


# ---- the fast way: Polars parses every sample at once ----------------------------------------


def _fast_schema(scorers: list[str]) -> dict[str, pl.DataType]:
    """Return the fields to read, typed where inspect's schema fixes the type.

    A field whose JSON type varies (``input``: a string or messages; ``target``: a string or a
    list) is read as String, where Polars writes a nested value as JSON text. That text is exact
    only when it holds no backslash (Polars leaves backslashes and tabs in strings as they
    are), so rows whose text has one are read again the exact way.
    """
    score = pl.Struct({"value": pl.String, "answer": pl.String, "explanation": pl.String})
    schema: dict[str, pl.DataType] = {
        "id": pl.String(),
        "epoch": pl.Int64(),
        "input": pl.String(),
        "target": pl.String(),
        "choices": pl.List(pl.String),
        "output": pl.Struct(
            {"completion": pl.String, "choices": pl.List(pl.Struct({"stop_reason": pl.String}))}
        ),
        "events": pl.List(pl.Struct({"event": pl.String, "output": pl.String})),
        "model_usage": pl.String(),
        "error": pl.Struct({"message": pl.String}),
        "limit": pl.Struct({"type": pl.String}),
        "total_time": pl.Float64(),
        "working_time": pl.Float64(),
        "uuid": pl.String(),
        "metadata": pl.String(),
        "attachments": pl.String(),
    }
    if scorers:
        schema["scores"] = pl.Struct({name: score for name in scorers})
    return schema


# The stop reason of a model call, from the call's output as JSON text (a quote inside the
# message text is written \", so only the field itself matches).
_STOP_REASON = r'"stop_reason"\s*:\s*"([^"\\]*)"'


def _fast_parts(path: Path, members: list[tuple[str, bytes]], scorers: list[str]) -> pl.DataFrame:
    if not members:
        return pl.DataFrame(schema=PARTS)
    # A JSON text holds a line break only as white space (never inside a string): one a line.
    lines = b"\n".join(data.replace(b"\n", b" ") for _, data in members)
    try:
        raw = pl.read_ndjson(io.BytesIO(lines), schema=_fast_schema(scorers))
    except pl.exceptions.PolarsError:
        # a malformed member, or a field of another type than inspect's: read one at a time
        samples = [load_json(path, data, member=member) for member, data in members]
        return _exact_parts([s for s in samples if isinstance(s, dict)], scorers)
    output = pl.col("output")
    choices = output.struct.field("choices")
    events = pl.col("events")
    model_stops = events.list.eval(
        pl.element()
        .filter(pl.element().struct.field("event") == "model")
        .struct.field("output")
        .str.extract(_STOP_REASON)
    )
    final_stop = choices.list.first().struct.field("stop_reason")
    fields = [pl.col("scores").struct.field(name) for name in scorers] if scorers else []

    def per_scorer(field: str) -> pl.Expr:
        if not fields:
            return pl.lit([], dtype=pl.List(pl.String))
        return pl.concat_list(f.struct.field(field) for f in fields)

    text_refs = pl.col("target").str.starts_with("[")
    text_input = pl.col("input").str.starts_with("[")
    parts = raw.select(
        sample_id="id",
        epoch="epoch",
        input="input",
        refs=pl.when(text_refs).then(None).otherwise(pl.concat_list("target")),
        answer=pl.when(choices.list.len() > 0).then(output.struct.field("completion")),
        stop=final_stop,
        limit=pl.col("limit").struct.field("type"),
        error=pl.col("error").struct.field("message"),
        trace=pl.when(model_stops.list.len() > 0)
        .then(model_stops)
        .otherwise(choices.list.head(1).list.eval(pl.element().struct.field("stop_reason"))),
        usage=pl.col("model_usage"),
        scores=per_scorer("value"),
        score_answer=per_scorer("answer"),
        score_explanation=per_scorer("explanation"),
        choices="choices",
        metadata=pl.when(pl.col("metadata") != "{}").then("metadata"),
        total_time="total_time",
        working_time="working_time",
        uuid="uuid",
        __json_refs=pl.when(text_refs).then("target"),
        __json_input=pl.when(text_input).then("input"),
        __attachments=pl.col("input").str.contains(_ATTACHMENT, literal=True)
        | output.struct.field("completion").str.starts_with(_ATTACHMENT),
    )
    # Text Polars wrote with a backslash in it may not be exact: read those samples again.
    exact = (
        pl.col("__json_refs").str.contains("\\", literal=True)
        | pl.col("__json_input").str.contains("\\", literal=True)
        | pl.col("metadata").str.contains("\\", literal=True)
        | pl.col("__attachments")
    ).fill_null(value=False)
    parts = parts.with_columns(
        refs=pl.coalesce("refs", _list_targets(parts["__json_refs"], members)),
        input=pl.coalesce(
            pl.when(text_input.not_()).then("input"),
            _python(parts["__json_input"], _json_question, pl.String()),
        ),
        usage=_python(parts["usage"], _usage_text, pl.List(pl.Int64)),
        __exact=exact,
    )
    redo = parts["__exact"].arg_true().to_list()
    parts = parts.drop("__json_refs", "__json_input", "__attachments", "__exact")
    if not redo:
        return parts.cast(PARTS)
    again = _exact_parts(
        [load_json(path, members[i][1], member=members[i][0]) for i in redo], scorers
    )
    index = pl.int_range(pl.len(), dtype=pl.UInt32).alias("__row")
    kept = parts.with_columns(index).filter(~pl.col("__row").is_in(redo))
    redone = again.with_columns(__row=pl.Series(redo, dtype=pl.UInt32))
    return pl.concat([kept.cast({**PARTS, "__row": pl.UInt32}), redone]).sort("__row").drop("__row")


# ---- helpers on small values ------------------------------------------------------------------


def _python(column: pl.Series, function: Any, dtype: pl.DataType) -> pl.Series:
    """Apply a Python function to the non-null values of a small column (JSON text to values)."""
    return pl.Series(
        column.name, [None if v is None else function(v) for v in column.to_list()], dtype=dtype
    )


_TARGET_KEY = re.compile(rb'"target"\s*:\s*(.)')


def _list_targets(texts: pl.Series, members: list[tuple[str, bytes]]) -> pl.Series:
    """Return the targets whose text starts with "[": a list, or a string that looks like one.

    Polars wrote a list target as JSON text, and a string target as it is: where the text reads
    as a JSON list of strings, the sample's own bytes say which it was.
    """
    values: list[list[str] | None] = []
    for text, (_, data) in zip(texts.to_list(), members, strict=True):
        if text is None:
            values.append(None)
            continue
        try:
            value = json.loads(text, strict=False)
        except ValueError:
            value = None
        is_list = isinstance(value, list) and all(isinstance(v, str) for v in value)
        if is_list:
            key = _TARGET_KEY.search(data)
            is_list = key is None or key[1] == b"["
        values.append(value if is_list else [text])
    return pl.Series(texts.name, values, dtype=pl.List(pl.String))


def _json_question(text: str) -> str | None:
    """Return the question of a chat input from the JSON text Polars wrote for it."""
    try:
        value = json.loads(text, strict=False)
    except ValueError:
        return text  # a string input that starts with "["
    if isinstance(value, list) and value and all(isinstance(m, dict) for m in value):
        return _input_text(value, {})
    return text


def _usage(usage: dict[str, Any]) -> list[int | None]:
    """Return input, output and total tokens, summed over every model a sample used."""
    models = [u for u in usage.values() if isinstance(u, dict)] if isinstance(usage, dict) else []

    def total(key: str) -> int | None:
        values = [u[key] for u in models if isinstance(u.get(key), int)]
        return sum(values) if values else None

    return [total("input_tokens"), total("output_tokens"), total("total_tokens")]


def _usage_text(text: str) -> list[int | None]:
    return _usage(json.loads(text, strict=False))


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


def _input_text(messages: list[dict[str, Any]], attachments: dict[str, Any]) -> str | None:
    """Return the question of a chat input: its last user message (else its last message)."""
    users = [m for m in messages if m.get("role") == "user"] or messages
    return _message_text(users[-1].get("content"), attachments) if users else None


# ---- the common columns ----------------------------------------------------------------------


def _letter_index(letter: pl.Expr) -> pl.Expr:
    """Return the option index an option letter names ("A" is 0), null for anything else."""
    return (
        letter.str.strip_chars()
        .str.to_uppercase()
        .replace_strict(
            {chr(ord("A") + i): i for i in range(26)}, default=None, return_dtype=pl.Int64
        )
    )


def _frame(
    parts: pl.DataFrame,
    context: dict[str, pl.Expr],
    scorer: str | None,
    index: int | None,
    scorers: list[str],
) -> pl.DataFrame:
    stop, limit = pl.col("stop"), pl.col("limit")
    cut = stop.is_in(_CUT_SHORT).fill_null(value=False)
    cap = limit.replace_strict(
        {"message": CALL_CAP, "turn": CALL_CAP, "token": COST_CAP, "cost": COST_CAP},
        default=None,
        return_dtype=pl.String,
    )
    notes = pl.concat_list(
        pl.lit("limit:") + limit, cap, pl.when(cut).then(pl.lit("stop:") + stop)
    ).list.drop_nulls()

    def chosen(column: str) -> pl.Expr:
        if index is None:
            return pl.lit(None, dtype=pl.String)
        return pl.col(column).list.get(index, null_on_oob=True)

    # Multiple choice: the options are the answers. The acceptable answers are the options the
    # target letters name; the answer is the option(s) inspect's choice() scorer read from the
    # reply (null when it read none), as lm-eval's and HELM's choice answers are option texts.
    options = pl.col("choices")
    is_choice = options.list.len().fill_null(0) > 0
    target_options = options.list.gather(
        pl.col("refs").list.eval(_letter_index(pl.element())).list.drop_nulls(),
        null_on_oob=True,
    ).list.drop_nulls()
    answer = pl.col("answer")
    if "choice" in scorers:
        picked = pl.col("score_answer").list.get(scorers.index("choice"), null_on_oob=True)
        letters = picked.str.to_uppercase().str.extract_all(r"\b[A-Z]\b")
        picked_options = options.list.gather(
            letters.list.eval(_letter_index(pl.element())), null_on_oob=True
        ).list.drop_nulls()
        answer = (
            pl.when(is_choice)
            .then(pl.when(picked_options.list.len() > 0).then(picked_options.list.join(", ")))
            .otherwise(answer)
        )
    value = chosen("scores")
    named = (
        pl.struct(
            *(
                pl.col("scores").list.get(i, null_on_oob=True).alias(n)
                for i, n in enumerate(scorers)
            )
        )
        if scorers
        else None
    )
    scored = pl.col("scores").list.eval(pl.element().is_not_null()).list.any()
    return parts.select(
        **context,
        sample_id="sample_id",
        epoch="epoch",
        input="input",
        output=pl.struct(
            answer=answer,
            partial=limit.is_not_null() | cut,
            notes=notes,
            trace=pl.col("trace").list.eval(
                pl.struct(step=pl.lit("model"), finish_reason=pl.element())
            ),
            status=pl.when(pl.col("error").is_not_null())
            .then(pl.lit("error"))
            .otherwise(pl.lit("ok")),
        ),
        refs=pl.when(is_choice).then(target_options).otherwise("refs"),
        tool_score=value,
        tool_correct=value.replace_strict(_VERDICT_TEXT, default=None, return_dtype=pl.Boolean),
        input_tokens=pl.col("usage").list.get(0, null_on_oob=True),
        output_tokens=pl.col("usage").list.get(1, null_on_oob=True),
        total_tokens=pl.col("usage").list.get(2, null_on_oob=True),
        seconds="total_time",
        inspect_scorer=pl.when(value.is_not_null()).then(pl.lit(scorer, dtype=pl.String)),
        inspect_score_answer=chosen("score_answer"),
        inspect_score_explanation=chosen("score_explanation"),
        inspect_scores=pl.when(scored).then(named.struct.json_encode())
        if named is not None
        else pl.lit(None, dtype=pl.String),
        inspect_stop_reason="stop",
        inspect_limit="limit",
        inspect_error="error",
        inspect_choices="choices",
        inspect_completion=pl.when(is_choice).then("answer"),
        inspect_target=pl.when(is_choice).then("refs"),
        inspect_metadata="metadata",
        inspect_working_time="working_time",
        inspect_uuid="uuid",
    )
