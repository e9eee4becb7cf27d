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
    MAX_BYTES,
    PathLike,
    ZipLog,
    as_text,
    as_text_list,
    conform,
    head,
    load_json,
    log_error,
    markers_in,
    open_zip,
    record_row,
    rows_frame,
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
    "inspect_eval_id": pl.String(),  # the run's id: the same in its .eval and its .json
    "tool_calls": pl.List(pl.Struct({"name": pl.String, "arguments": pl.String})),
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
    if _LOG_START.match(head(path, 256)):
        return True
    if path.name == "logs.json":  # inspect's index of a log folder, keyed by file name
        return False
    signs = (b'"eval"', b'"eval_id"', b'"task"')
    return len(markers_in(path, signs)) == len(signs)


def read(
    path: PathLike,
    *,
    scorer: str | Sequence[str] | None = None,
    max_bytes: int | None = MAX_BYTES,
) -> pl.DataFrame:
    """Read one inspect log (``.eval`` or ``.json``) into the common columns.

    Parameters
    ----------
    path
        The log file.
    scorer
        The scorer whose value becomes ``tool_score``/``tool_correct`` (default: the task's
        first scorer), or a list of them in order of preference (the first the log has is
        used; for a folder of tasks with different scorers). Every scorer's value is kept in
        ``inspect_scores`` (JSON text). A log with no scores at all (a task without a scorer,
        or ``inspect eval --no-score``) has nothing to choose from: its ``tool_score`` and
        ``tool_correct`` are null whatever ``scorer`` says.
    max_bytes
        The most bytes to decompress from one ``.eval`` log (default 2 GiB; None: no limit):
        a guard against zip bombs. Each member is also read no further than its declared size.

    Returns
    -------
    polars.DataFrame
        One row per sample and epoch.
    """
    path = Path(path)
    if path.suffix == ".eval":
        header, members, summaries = _read_eval(path, max_bytes)
        scorers = _scorers(header, summaries) or _member_scorers(path, members)
        parts = _fast_parts(path, members, scorers, _evaluated_model(header))
        calls = _member_tool_calls(path, members)
    else:
        log = load_json(path)
        if not isinstance(log, dict) or not isinstance(log.get("eval"), dict):
            raise log_error(path, "not an inspect log (no 'eval' header)")
        samples = log.get("samples") or []
        if not isinstance(samples, list):
            raise log_error(path, "field 'samples' is not a list")
        for index, sample in enumerate(samples):
            if not isinstance(sample, dict):
                raise log_error(path, f"samples[{index}] is not a JSON object")
        header = log
        scorers = _scorers(header, samples)
        parts = _exact_parts(path, samples, scorers, _evaluated_model(header))
        calls = _tool_calls(samples)
    if scorer is not None:
        wanted = [scorer] if isinstance(scorer, str) else list(scorer)
        present = [name for name in wanted if name in scorers]
        unscored = parts["scores"].explode().drop_nulls().len() == 0  # e.g. --no-score
        if not present and not unscored:
            msg = f"`scorer={scorer!r}`: {path} has no such scorer; its scorers are {scorers}"
            raise ValueError(msg)
        scorer = present[0] if present else None
    evaluation = header.get("eval") or {}
    if not isinstance(evaluation, dict):
        raise log_error(path, "field 'eval' is not a JSON object")
    context = {
        "tool": pl.lit(TOOL),
        "log": pl.lit(os.fspath(path)),
        "model": pl.lit(evaluation.get("model"), dtype=pl.String),
        "task": pl.lit(evaluation.get("task"), dtype=pl.String),
    }
    eval_id = pl.lit(as_text(evaluation.get("eval_id")), dtype=pl.String)
    chosen = scorer if scorer is not None else (scorers[0] if scorers else None)
    index = scorers.index(chosen) if chosen is not None else None
    frame = _frame(parts, context, chosen, index, scorers).with_columns(
        inspect_eval_id=eval_id, tool_calls=calls
    )
    return conform(frame, EXTRAS)


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
    # errors name the log, or else where the samples come from
    where = Path(log) if log else Path("<inspect samples>")
    parts = _exact_parts(where, records, scorers, model)
    frame = _frame(parts, context, chosen, 0 if scorers else None, scorers)
    return conform(frame.with_columns(tool_calls=_tool_calls(records)), EXTRAS)


def _scorers(header: dict[str, Any], samples: list[Any]) -> list[str]:
    """Return the scorer names: the header's, then any other a sample's scores are keyed by."""
    listed = (header.get("eval") or {}).get("scorers") or []
    names = [s["name"] for s in listed if isinstance(s, dict) and isinstance(s.get("name"), str)]
    for sample in samples:
        scores = sample.get("scores") if isinstance(sample, dict) else None
        if isinstance(scores, dict):
            names.extend(name for name in scores if isinstance(name, str))
    return list(dict.fromkeys(names))


def _member_scorers(path: Path, members: _Members) -> list[str]:
    """Return the scorers of the first sample (for a header that lists none)."""
    for member, data in members[:1]:
        sample = load_json(path, data, member=member)
        scores = sample.get("scores") if isinstance(sample, dict) else None
        return list(scores) if isinstance(scores, dict) else []
    return []


class _Members:
    """The sample members of a ``.eval`` log, held once: one JSON text a line, in one buffer.

    Each member is decompressed a chunk at a time straight into the buffer (a JSON text holds
    a line break only as white space, never inside a string, so line breaks become spaces and
    each member is one line of JSON Lines for Polars). ``members[i]`` is ``(name, bytes)``.
    """

    def __init__(self) -> None:
        self.lines = io.BytesIO()
        self.spans: list[tuple[str, int, int]] = []

    def add(self, name: str, chunks: Any) -> None:
        """Append a member's bytes, given a chunk at a time."""
        if self.spans:
            self.lines.write(b"\n")
        start = self.lines.tell()
        for chunk in chunks:
            self.lines.write(chunk.replace(b"\n", b" "))
        self.spans.append((name, start, self.lines.tell()))

    def _bytes(self, start: int, end: int) -> bytes:
        with self.lines.getbuffer() as view:
            return view[start:end].tobytes()

    def __len__(self) -> int:
        return len(self.spans)

    def all_objects(self) -> bool:
        """Whether every member starts as a JSON object does (else it is read one at a time)."""
        return all(
            self._bytes(start, start + 64).lstrip()[:1] == b"{" for _, start, _ in self.spans
        )

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        name, start, end = self.spans[index]
        return name, self._bytes(start, end)

    def __iter__(self) -> Any:
        return (self[i] for i in range(len(self)))


def _read_eval(path: Path, max_bytes: int | None) -> tuple[dict[str, Any], _Members, list[Any]]:
    """Return the header, the sample members (in archive order) and the sample summaries."""
    with open_zip(path) as archive:
        log = ZipLog(path, archive, max_bytes)
        infos = log.infos
        # header.json is written when the run ends; a run still going has only its journal.
        name = "header.json" if "header.json" in infos else "_journal/start.json"
        if name not in infos:
            raise log_error(path, "not an inspect .eval log (no header.json)")
        header = load_json(path, log.read(name), member=name)
        members = _Members()
        for member in infos:
            if _SAMPLE_MEMBER.match(member):
                members.add(member, log.chunks(member))
        # compact summaries (no output): they name every scorer a sample was scored by
        summaries: list[Any] = []
        for member in [m for m in infos if m == "summaries.json"] or sorted(
            m for m in infos if m.startswith("_journal/summaries/")
        ):
            found = load_json(path, log.read(member), member=member)
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


def _evaluated_model(header: dict[str, Any]) -> str | None:
    """Return the name of the model under test (the key of its ``model_usage`` entry)."""
    model = (header.get("eval") or {}).get("model")
    return model if isinstance(model, str) else None


def _exact_row(sample: dict[str, Any], scorers: list[str], model: str | None) -> dict[str, Any]:
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
    epoch = sample.get("epoch")
    epoch = 1 if epoch is None else epoch  # inspect requires it; a log without one ran once
    return {
        "sample_id": as_text(sample.get("id")),
        "epoch": epoch,
        "input": question,
        "refs": as_text_list(target),
        "answer": _resolve(output.get("completion"), attachments) if choices else None,
        "stop": stop,
        "limit": limit.get("type") if isinstance(limit, dict) else limit,
        "error": error.get("message") if isinstance(error, dict) else error,
        "trace": trace if trace else [stop for _ in choices[:1]],
        "usage": _usage(sample.get("model_usage") or {}, model),
        "scores": [_value_text(c.get("value")) for c in chosen],
        "score_answer": [as_text(c.get("answer")) for c in chosen],
        "score_explanation": [as_text(c.get("explanation")) for c in chosen],
        "choices": sample.get("choices"),
        "metadata": json.dumps(metadata, ensure_ascii=False) if metadata else None,
        "total_time": sample.get("total_time"),
        "working_time": sample.get("working_time"),
        "uuid": sample.get("uuid"),
    }


def _exact_parts(
    path: Path,
    samples: list[Any],
    scorers: list[str],
    model: str | None,
    names: list[str] | None = None,
) -> pl.DataFrame:
    """Read samples one at a time; ``names`` are their members (of a ``.eval``) for errors."""
    rows, locations = [], []
    for index, sample in enumerate(samples):
        where = f"{os.fspath(path)}[{names[index]}]" if names else f"{os.fspath(path)}"
        what = "the sample" if names else f"samples[{index}]"
        if not isinstance(sample, dict):
            raise log_error(where, f"{what} is not a JSON object")
        rows.append(record_row(_exact_row, sample, scorers, model, where=where, what=what))
        locations.append((where, what))
    fields = {"sample_id": "id", "refs": "target", "stop": "output.choices[0].stop_reason"}
    fields |= {"limit": "limit.type", "error": "error.message", "usage": "model_usage"}
    return rows_frame(rows, PARTS, where=path, locations=locations, fields=fields)


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


def _members_exactly(
    path: Path, members: _Members, scorers: list[str], model: str | None
) -> pl.DataFrame:
    """Read every sample member the exact way (each must be a JSON object)."""
    samples = []
    for member, data in members:
        sample = load_json(path, data, member=member)
        if not isinstance(sample, dict):
            raise log_error(f"{os.fspath(path)}[{member}]", "the sample is not a JSON object")
        samples.append(sample)
    return _exact_parts(path, samples, scorers, model, [member for member, _ in members])


def _fast_parts(
    path: Path, members: _Members, scorers: list[str], model: str | None
) -> pl.DataFrame:
    if not members:
        return pl.DataFrame(schema=PARTS)
    try:
        members.lines.seek(0)
        raw = pl.read_ndjson(members.lines, schema=_fast_schema(scorers))
    except (pl.exceptions.PolarsError, RecursionError):
        raw = None
    if raw is None or raw.height != len(members) or not members.all_objects():
        # a malformed member, or a field of another type than inspect's: read one at a time
        return _members_exactly(path, members, scorers, model)
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
        epoch=pl.col("epoch").fill_null(1),  # as the exact way: a sample without one ran once
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
        usage=_python(
            parts["usage"],
            lambda text: _usage_text(text, model),
            pl.List(pl.Int64),
        ),
        __exact=exact,
    )
    redo = parts["__exact"].arg_true().to_list()
    parts = parts.drop("__json_refs", "__json_input", "__attachments", "__exact")
    if not redo:
        return parts.cast(PARTS)
    again = _exact_parts(
        path,
        [load_json(path, members[i][1], member=members[i][0]) for i in redo],
        scorers,
        model,
        [members[i][0] for i in redo],
    )
    index = pl.int_range(pl.len(), dtype=pl.UInt32).alias("__row")
    kept = parts.with_columns(index).filter(~pl.col("__row").is_in(redo))
    redone = again.with_columns(__row=pl.Series(redo, dtype=pl.UInt32))
    return pl.concat([kept.cast({**PARTS, "__row": pl.UInt32}), redone]).sort("__row").drop("__row")


# ---- tool calls (SPEC §14) ---------------------------------------------------------------------

#: The ``tool_calls`` column: the calls of a sample's assistant messages, in order, each its
#: tool's name and its arguments as JSON text (the shape ``df.grade.tool_calls`` reads).
TOOL_CALLS: pl.DataType = pl.List(pl.Struct({"name": pl.String, "arguments": pl.String}))
_MESSAGES = pl.List(
    pl.Struct(
        {
            "role": pl.String,
            "tool_calls": pl.List(pl.Struct({"function": pl.String, "arguments": pl.String})),
        }
    )
)


def _tool_calls(samples: Sequence[Any]) -> pl.Series:
    """Return each sample's tool calls (its assistant messages' ``tool_calls``, in order)."""
    rows = []
    for sample in samples:
        messages = sample.get("messages") if isinstance(sample, dict) else None
        calls = []
        for message in messages if isinstance(messages, list) else []:
            if not isinstance(message, dict) or message.get("role") != "assistant":
                continue
            for call in message.get("tool_calls") or []:
                if isinstance(call, dict):
                    arguments = call.get("arguments")
                    calls.append(
                        {
                            "name": as_text(call.get("function")),
                            "arguments": None
                            if arguments is None
                            else json.dumps(arguments, ensure_ascii=False),
                        }
                    )
        rows.append(calls)
    return pl.Series("tool_calls", rows, dtype=TOOL_CALLS)


def _member_tool_calls(path: Path, members: _Members) -> pl.Series:
    """Return the tool calls of a ``.eval``'s sample members, read by Polars all at once.

    Polars writes each call's arguments object as JSON text; where that text has a backslash
    (which it may not write exactly, see :func:`_fast_schema`) or a member does not read,
    every member is read again with Python's json.
    """
    if not members:
        return pl.Series("tool_calls", [], dtype=TOOL_CALLS)
    try:
        members.lines.seek(0)
        raw = pl.read_ndjson(members.lines, schema={"messages": _MESSAGES})
    except (pl.exceptions.PolarsError, RecursionError):
        raw = None
    if raw is not None and raw.height == len(members) and members.all_objects():
        e = pl.element()
        calls = raw.select(
            pl.col("messages")
            .list.eval(e.filter(e.struct.field("role") == "assistant").struct.field("tool_calls"))
            .list.eval(e.explode().drop_nulls())
            .list.eval(
                pl.struct(name=e.struct.field("function"), arguments=e.struct.field("arguments"))
            )
            .fill_null([])
            .alias("tool_calls")
        ).to_series()
        arguments = calls.explode().struct.field("arguments")
        if not arguments.str.contains("\\", literal=True).any():
            return calls.cast(TOOL_CALLS)
    return _tool_calls([load_json(path, data, member=member) for member, data in members])


# ---- helpers on small values ------------------------------------------------------------------


def _python(column: pl.Series, function: Any, dtype: pl.DataType) -> pl.Series:
    """Apply a Python function to the non-null values of a small column (JSON text to values)."""
    return pl.Series(
        column.name, [None if v is None else function(v) for v in column.to_list()], dtype=dtype
    )


_TARGET_KEY = re.compile(rb'"target"\s*:\s*(.)')


def _list_targets(texts: pl.Series, members: _Members) -> pl.Series:
    """Return the targets whose text starts with "[": a list, or a string that looks like one.

    Polars wrote a list target as JSON text, and a string target as it is: where the text reads
    as a JSON list, the sample's own bytes say which it was.
    """
    values: list[list[str] | None] = []
    for index, text in enumerate(texts.to_list()):
        if text is None:
            values.append(None)
            continue
        try:
            value = json.loads(text, strict=False)
        except ValueError:
            value = None
        is_list = isinstance(value, list)
        if is_list:
            key = _TARGET_KEY.search(members[index][1])
            is_list = key is None or key[1] == b"["
        values.append(as_text_list(value) if is_list else [text])
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


def _usage(usage: Any, model: str | None) -> list[int | None]:
    """Return the input, output and total tokens of the model under test.

    ``model_usage`` has an entry per model the sample called: the model under test's, and any
    grader's or judge's a scorer asked. Only the evaluated model's entry is counted (null when
    the sample has none).
    """
    entry = usage.get(model) if isinstance(usage, dict) and model is not None else None
    if not isinstance(entry, dict):
        return [None, None, None]
    return [
        entry.get(key) if isinstance(entry.get(key), int) else None
        for key in ("input_tokens", "output_tokens", "total_tokens")
    ]


def _usage_text(text: str, model: str | None) -> list[int | None]:
    try:
        usage = json.loads(text, strict=False)
    except (ValueError, RecursionError):
        usage = None  # not an object of models: no token counts
    return _usage(usage, model)


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
