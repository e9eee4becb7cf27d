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
    GRADER_FAILURE,
    MAX_BYTES,
    LogFormatError,
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
    "inspect_score_reason": pl.String(),
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

# Score reasons that say the grader or the scorer failed, not the model (Score.reason).
_GRADER_FAILED = ("grader_failed", "scoring_failed")
# The common columns of the token counts in ``usage`` (see _USAGE), in its order.
_USAGE_COLUMNS = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "cache_read_tokens",
    "reasoning_tokens",
    "grader_input_tokens",
    "grader_output_tokens",
)
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
        header, parts, scorers = _read_eval(path, max_bytes)
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
    frame = _frame(parts, context, chosen, index, scorers).with_columns(inspect_eval_id=eval_id)
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

    @property
    def size(self) -> int:
        """The bytes held."""
        return self.lines.tell()

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


#: The sample members read and parsed at a time: about this many bytes of JSON (whole
#: members), so that reading holds one batch beside the columns already built, however large
#: the log.
BATCH_BYTES = 8 * 1024**2


def _read_eval(path: Path, max_bytes: int | None) -> tuple[dict[str, Any], pl.DataFrame, list[str]]:
    """Return the header, the samples' parts (in archive order) and the scorers.

    The samples are decompressed and parsed a batch at a time (:data:`BATCH_BYTES`): only
    their columns are kept, never the whole log's JSON.
    """
    with open_zip(path) as archive:
        log = ZipLog(path, archive, max_bytes)
        infos = log.infos
        # header.json is written when the run ends; a run still going has only its journal.
        name = "header.json" if "header.json" in infos else "_journal/start.json"
        if name not in infos:
            raise log_error(path, "not an inspect .eval log (no header.json)")
        header = load_json(path, log.read(name), member=name)
        if not isinstance(header, dict):
            raise log_error(path, f"{name} is not a JSON object")
        if "eval" not in header and isinstance(header.get("eval_spec"), dict):
            header = {**header, "eval": header["eval_spec"]}
        # compact summaries (no output): they name every scorer a sample was scored by
        summaries: list[Any] = []
        for member in [m for m in infos if m == "summaries.json"] or sorted(
            m for m in infos if m.startswith("_journal/summaries/")
        ):
            found = load_json(path, log.read(member), member=member)
            summaries.extend(found if isinstance(found, list) else [])
        names = [member for member in infos if _SAMPLE_MEMBER.match(member)]
        scorers = _scorers(header, summaries)
        if not scorers and names:  # a header that lists none: the first sample's scorers
            first = load_json(path, log.read(names[0]), member=names[0])
            scores = first.get("scores") if isinstance(first, dict) else None
            scorers = list(scores) if isinstance(scores, dict) else []
        model = _evaluated_model(header)
        # every model a sample called, read as columns: the run's usage sums every sample's
        # (a run still going has none yet: its sample summaries' usage then)
        stats = header.get("stats")
        usages = [stats.get("model_usage") if isinstance(stats, dict) else None]
        usages += [s.get("model_usage") for s in summaries if isinstance(s, dict)]
        used = [name for u in usages if isinstance(u, dict) for name in u if isinstance(name, str)]
        models = list(dict.fromkeys([*([model] if model else []), *used]))
        frames, batch = [], _Members()
        for member in names:
            batch.add(member, log.chunks(member))
            if batch.size >= BATCH_BYTES:
                frames.append(_compact(_fast_parts(path, batch, scorers, model, models)))
                batch = _Members()
        if len(batch) or not frames:
            frames.append(_compact(_fast_parts(path, batch, scorers, model, models)))
    return header, pl.concat(frames, rechunk=False) if len(frames) > 1 else frames[0], scorers


def _compact(parts: pl.DataFrame) -> pl.DataFrame:
    """Return a batch's columns holding only their own text.

    Polars' text columns are views into the buffers the batch's JSON was parsed into: kept as
    they are, each batch's columns would keep that whole batch's text alive. Copying them out
    through Arrow's plain string layout keeps only the text the columns hold.
    """
    compact = pl.from_arrow(parts.to_arrow(compat_level=pl.CompatLevel.oldest()))
    assert isinstance(compact, pl.DataFrame)  # a table converts to a frame
    return compact.cast(PARTS)


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
    "usage": pl.List(pl.Int64),  # see _USAGE
    "cost": pl.Float64(),
    "grader_model": pl.String(),
    "scores": pl.List(pl.String),  # one value per scorer, as text, in the scorers' order
    "score_reason": pl.List(pl.String),
    "score_answer": pl.List(pl.String),
    "score_explanation": pl.List(pl.String),
    "choices": pl.List(pl.String),
    "metadata": pl.String(),
    "total_time": pl.Float64(),
    "working_time": pl.Float64(),
    "uuid": pl.String(),
    "tool_calls": pl.List(pl.Struct({"name": pl.String, "arguments": pl.String})),
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
        **_usage(sample.get("model_usage") or {}, sample.get("role_usage"), model),
        "scores": [_value_text(c.get("value")) for c in chosen],
        "score_reason": [_reason(c) for c in chosen],
        "score_answer": [as_text(c.get("answer")) for c in chosen],
        "score_explanation": [as_text(c.get("explanation")) for c in chosen],
        "choices": sample.get("choices"),
        "metadata": json.dumps(metadata, ensure_ascii=False) if metadata else None,
        "total_time": sample.get("total_time"),
        "working_time": sample.get("working_time"),
        "uuid": sample.get("uuid"),
        "tool_calls": _calls_of(sample),
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


def _fast_schema(scorers: list[str], models: list[str]) -> dict[str, pl.DataType]:
    """Return the fields to read, typed where inspect's schema fixes the type.

    A field whose JSON type varies (``input``: a string or messages; ``target``: a string or a
    list) is read as String, where Polars writes a nested value as JSON text. That text is exact
    only when it holds no backslash (Polars leaves backslashes and tabs in strings as they
    are), so rows whose text has one are read again the exact way.
    """
    score = pl.Struct(
        {
            "value": pl.String,
            "answer": pl.String,
            "explanation": pl.String,
            "reason": pl.String,
            "metadata": pl.Struct({"unscored_reason": pl.String}),
        }
    )
    schema: dict[str, pl.DataType] = {
        "id": pl.String(),
        "epoch": pl.Int64(),
        "input": pl.String(),
        "target": pl.String(),
        "choices": pl.List(pl.String),
        "output": pl.Struct(
            {"completion": pl.String, "choices": pl.List(pl.Struct({"stop_reason": pl.String}))}
        ),
        "events": pl.List(
            pl.Struct(
                {
                    "event": pl.String,
                    "output": pl.Struct(
                        {"choices": pl.List(pl.Struct({"stop_reason": pl.String}))}
                    ),
                }
            )
        ),
        "model_usage": pl.Struct({name: _USAGE_STRUCT for name in models or ["-"]}),
        "role_usage": pl.Struct({"grader": _USAGE_STRUCT}),
        "error": pl.Struct({"message": pl.String}),
        "limit": pl.Struct({"type": pl.String}),
        "total_time": pl.Float64(),
        "working_time": pl.Float64(),
        "uuid": pl.String(),
        "metadata": pl.String(),
        "messages": _MESSAGES,
    }
    if scorers:
        schema["scores"] = pl.Struct({name: score for name in scorers})
    return schema


# A score's NaN value (inspect's "unscored"), written as the JSON constant NaN: read as the text
# "NaN", as Python's json gives it (a quote inside a string is escaped, so never matches).
_NAN = re.compile(b"NaN")
_NAN_VALUE = re.compile(rb'((?<!\\)"value"\s*:\s*)NaN(?=\s*[,}])')
# One model's entry of ``model_usage`` (the fields read).
_USAGE_STRUCT = pl.Struct(
    {
        "input_tokens": pl.Int64,
        "output_tokens": pl.Int64,
        "total_tokens": pl.Int64,
        "input_tokens_cache_read": pl.Int64,
        "reasoning_tokens": pl.Int64,
        "total_cost": pl.Float64,
    }
)


def _usage_exprs(model: str | None, models: list[str]) -> dict[str, pl.Expr]:
    """Return the ``usage``, ``cost`` and ``grader_model`` parts (as :func:`_usage` does)."""
    usage = pl.col("model_usage")
    own = usage.struct.field(model) if model in models else pl.lit(None, dtype=_USAGE_STRUCT)
    others = sorted(name for name in models if name != model)
    role = pl.col("role_usage").struct.field("grader")
    present = [usage.struct.field(name).is_not_null() for name in others]
    any_other = pl.any_horizontal(present) if present else pl.lit(value=False)

    def grader(key: str) -> pl.Expr:
        summed = (
            pl.sum_horizontal(usage.struct.field(n).struct.field(key).fill_null(0) for n in others)
            if others
            else pl.lit(None, dtype=pl.Int64)
        )
        return (
            pl.when(role.is_not_null())
            .then(role.struct.field(key))
            .when(any_other)
            .then(summed)
            .cast(pl.Int64)
        )

    names = pl.concat_str(
        [pl.when(p).then(pl.lit(name)) for p, name in zip(present, others, strict=True)],
        separator=", ",
        ignore_nulls=True,
    )
    return {
        "usage": pl.concat_list(
            *(own.struct.field(key) for key in _USAGE[:5]),
            grader("input_tokens"),
            grader("output_tokens"),
        ),
        "cost": own.struct.field("total_cost"),
        "grader_model": pl.when(any_other).then(names) if others else pl.lit(None, pl.String),
    }


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
    path: Path, members: _Members, scorers: list[str], model: str | None, models: list[str]
) -> pl.DataFrame:
    if not members:
        return pl.DataFrame(schema=PARTS)
    raw = _parsed(members, scorers, models)
    if raw is None or raw.height != len(members) or not members.all_objects():
        # a malformed member, or a field of another type than inspect's: read one at a time
        return _members_exactly(path, members, scorers, model)
    parts = _with_texts(raw.select(**_fast_columns(scorers, model, models)), members)
    redo = parts["__exact"].arg_true().to_list()
    parts = parts.drop("__json_refs", "__json_input", "__attachments", "__exact").select(
        list(PARTS)
    )
    if not redo:
        return parts.cast(PARTS)
    return _redone(path, members, parts, redo, scorers, model)


def _parsed(members: _Members, scorers: list[str], models: list[str]) -> pl.DataFrame | None:
    """Parse every sample member at once with Polars; None where Polars cannot."""
    data: Any = members.lines
    with members.lines.getbuffer() as view:
        unscored = _NAN.search(view) is not None  # a literal: a fast scan
    if unscored:  # an unscored score's value (a JSON constant Polars does not parse)
        data = io.BytesIO(_NAN_VALUE.sub(rb'\1"NaN"', members.lines.getvalue()))
    try:
        data.seek(0)
        return pl.read_ndjson(data, schema=_fast_schema(scorers, models))
    except (pl.exceptions.PolarsError, RecursionError):
        return None


#: A target or an input written as a JSON list (a list of messages, or of acceptable answers).
_TEXT_REFS = pl.col("target").str.starts_with("[")
_TEXT_INPUT = pl.col("input").str.starts_with("[")


def _fast_columns(scorers: list[str], model: str | None, models: list[str]) -> dict[str, pl.Expr]:
    """Return the parts' columns over the parsed samples, and the texts to read again."""
    output = pl.col("output")
    choices = output.struct.field("choices")
    events = pl.col("events")
    event_output = pl.element().struct.field("output")
    model_stops = events.list.eval(
        event_output.filter(
            (pl.element().struct.field("event") == "model") & event_output.is_not_null()
        )
        .struct.field("choices")
        .list.first()
        .struct.field("stop_reason")
    )
    final_stop = choices.list.first().struct.field("stop_reason")
    fields = [pl.col("scores").struct.field(name) for name in scorers] if scorers else []

    def per_scorer(field: str) -> pl.Expr:
        if not fields:
            return pl.lit([], dtype=pl.List(pl.String))
        return pl.concat_list(f.struct.field(field) for f in fields)

    return {
        "sample_id": pl.col("id"),
        # as the exact way: a sample without one ran once
        "epoch": pl.col("epoch").fill_null(1),
        "input": pl.col("input"),
        "refs": pl.when(_TEXT_REFS).then(None).otherwise(pl.concat_list("target")),
        "answer": pl.when(choices.list.len() > 0).then(output.struct.field("completion")),
        "stop": final_stop,
        "limit": pl.col("limit").struct.field("type"),
        "error": pl.col("error").struct.field("message"),
        "trace": pl.when(model_stops.list.len() > 0)
        .then(model_stops)
        .otherwise(choices.list.head(1).list.eval(pl.element().struct.field("stop_reason"))),
        **_usage_exprs(model, models),
        "scores": per_scorer("value"),
        "score_reason": pl.concat_list(
            pl.coalesce(
                f.struct.field("reason"),
                f.struct.field("metadata").struct.field("unscored_reason"),
            )
            for f in fields
        )
        if fields
        else pl.lit([], dtype=pl.List(pl.String)),
        "score_answer": per_scorer("answer"),
        "score_explanation": per_scorer("explanation"),
        "choices": pl.col("choices"),
        "metadata": pl.when(pl.col("metadata") != "{}").then("metadata"),
        "total_time": pl.col("total_time"),
        "working_time": pl.col("working_time"),
        "uuid": pl.col("uuid"),
        "tool_calls": _calls_column(pl.col("messages")),
        "__json_refs": pl.when(_TEXT_REFS).then("target"),
        "__json_input": pl.when(_TEXT_INPUT).then("input"),
        "__attachments": pl.col("input").str.contains(_ATTACHMENT, literal=True)
        | output.struct.field("completion").str.starts_with(_ATTACHMENT),
    }


def _with_texts(parts: pl.DataFrame, members: _Members) -> pl.DataFrame:
    """Read the JSON-list targets and inputs, and mark (``__exact``) the samples to read again."""
    # Text Polars wrote with a backslash in it may not be exact: read those samples again.
    exact = (
        pl.col("__json_refs").str.contains("\\", literal=True)
        | pl.col("__json_input").str.contains("\\", literal=True)
        | pl.col("metadata").str.contains("\\", literal=True)
        | pl.col("__attachments")
        | pl.col("tool_calls")
        .list.eval(pl.element().struct.field("arguments"))
        .list.join("")
        .str.contains("\\", literal=True)
    ).fill_null(value=False)
    return parts.with_columns(
        refs=pl.coalesce("refs", _list_targets(parts["__json_refs"], members)),
        input=pl.coalesce(
            pl.when(_TEXT_INPUT.not_()).then("input"),
            _python(parts["__json_input"], _json_question, pl.String()),
        ),
        __exact=exact,
    )


def _redone(
    path: Path,
    members: _Members,
    parts: pl.DataFrame,
    redo: list[int],
    scorers: list[str],
    model: str | None,
) -> pl.DataFrame:
    """Read the samples at ``redo`` again the exact way, in place of their fast rows."""
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


# ---- tool calls -------------------------------------------------------------------------------

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


def _calls_of(sample: dict[str, Any]) -> list[dict[str, str | None]]:
    """Return a sample's tool calls (its assistant messages' ``tool_calls``, in order)."""
    messages = sample.get("messages")
    calls = []
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict):
                arguments = call.get("arguments")
                text = None if arguments is None else json.dumps(arguments, ensure_ascii=False)
                calls.append({"name": as_text(call.get("function")), "arguments": text})
    return calls


def _calls_column(messages: pl.Expr) -> pl.Expr:
    """Return the tool calls of the messages Polars read (:data:`_MESSAGES`), in order.

    Polars writes each call's arguments object as JSON text; where that text has a backslash
    (which it may not write exactly, see :func:`_fast_schema`) the sample is read again.
    """
    e = pl.element()
    return (
        messages.list.eval(
            e.filter(e.struct.field("role") == "assistant").struct.field("tool_calls")
        )
        .list.eval(e.explode().drop_nulls())
        .list.eval(
            pl.struct(name=e.struct.field("function"), arguments=e.struct.field("arguments"))
        )
        .fill_null([])
    )


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


#: The token counts in ``usage``, in order: the model under test's, then the grader's.
_USAGE = (
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "input_tokens_cache_read",
    "reasoning_tokens",
    "grader_input_tokens",
    "grader_output_tokens",
)


def _count(entry: Any, key: str) -> int | None:
    value = entry.get(key) if isinstance(entry, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _usage(usage: Any, roles: Any, model: str | None) -> dict[str, Any]:
    """Return the tokens (and cost) of the model under test, and the grader's apart.

    ``model_usage`` has an entry per model the sample called: the model under test's, and any
    grader's or judge's a scorer asked. Only the evaluated model's entry is the model's (null
    when the sample has none). The grader's tokens are the ``grader`` role's usage
    (``role_usage``) when the sample has one, else the sum of the other models' entries;
    ``grader_model`` names those other models.
    """
    usage = usage if isinstance(usage, dict) else {}
    entry = usage.get(model) if model is not None else None
    others = {name: e for name, e in usage.items() if name != model and isinstance(e, dict)}
    grader = roles.get("grader") if isinstance(roles, dict) else None
    if isinstance(grader, dict):
        graded = [_count(grader, "input_tokens"), _count(grader, "output_tokens")]
    elif others:
        graded = [
            sum(_count(e, key) or 0 for e in others.values())
            for key in ("input_tokens", "output_tokens")
        ]
    else:
        graded = [None, None]
    cost = entry.get("total_cost") if isinstance(entry, dict) else None
    own = [_count(entry, key) for key in _USAGE[:5]]
    return {
        "usage": own + graded,
        "cost": float(cost)
        if isinstance(cost, int | float) and not isinstance(cost, bool)
        else None,
        "grader_model": ", ".join(sorted(others)) if others else None,
    }


def _reason(score: dict[str, Any]) -> str | None:
    """Return a score's reason (``Score.reason``; older logs: ``metadata.unscored_reason``)."""
    reason = score.get("reason")
    if reason is None:
        metadata = score.get("metadata")
        reason = metadata.get("unscored_reason") if isinstance(metadata, dict) else None
    return as_text(reason)


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
    def chosen(column: str) -> pl.Expr:
        if index is None:
            return pl.lit(None, dtype=pl.String)
        return pl.col(column).list.get(index, null_on_oob=True)

    answer, refs, is_choice = _choice_columns(scorers)
    value = chosen("scores")
    reason = chosen("score_reason")
    # An unscored score (NaN, inspect's sentinel for "not scored"), or a grader or scorer that
    # says it failed: the tool could not grade the answer (the model did not fail).
    unscored = (value.str.to_lowercase() == "nan") | reason.is_in(_GRADER_FAILED)
    unscored = unscored.fill_null(value=False)
    return parts.select(
        **context,
        sample_id="sample_id",
        epoch="epoch",
        input="input",
        output=_output(answer),
        refs=refs,
        tool_score=value,
        tool_correct=pl.when(~unscored).then(
            value.replace_strict(_VERDICT_TEXT, default=None, return_dtype=pl.Boolean)
        ),
        tool_failure=pl.when(unscored).then(pl.lit(GRADER_FAILURE)),
        **{
            name: pl.col("usage").list.get(i, null_on_oob=True)
            for i, name in enumerate(_USAGE_COLUMNS)
        },
        seconds="total_time",
        cost="cost",
        grader_model="grader_model",
        inspect_scorer=pl.when(value.is_not_null()).then(pl.lit(scorer, dtype=pl.String)),
        inspect_score_reason=reason,
        inspect_score_answer=chosen("score_answer"),
        inspect_score_explanation=chosen("score_explanation"),
        inspect_scores=_scores_json(scorers),
        inspect_stop_reason="stop",
        inspect_limit="limit",
        inspect_error="error",
        inspect_choices="choices",
        inspect_completion=pl.when(is_choice).then("answer"),
        inspect_target=pl.when(is_choice).then("refs"),
        inspect_metadata="metadata",
        inspect_working_time="working_time",
        inspect_uuid="uuid",
        tool_calls="tool_calls",
    )


def _choice_columns(scorers: list[str]) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """Return the answer, the acceptable answers, and whether the sample is multiple choice.

    Multiple choice: the options are the answers. The acceptable answers are the options the
    target letters name; the answer is the option(s) inspect's choice() scorer read from the
    reply (null when it read none), as lm-eval's and HELM's choice answers are option texts.
    """
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
    refs = pl.when(is_choice).then(target_options).otherwise("refs")
    return answer, refs, is_choice


def _output(answer: pl.Expr) -> pl.Expr:
    """Return the output record: a limit or a length stop is partial, noted with its cap."""
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
    return pl.struct(
        answer=answer,
        partial=limit.is_not_null() | cut,
        notes=notes,
        trace=pl.col("trace").list.eval(
            pl.struct(step=pl.lit("model"), finish_reason=pl.element())
        ),
        status=pl.when(pl.col("error").is_not_null()).then(pl.lit("error")).otherwise(pl.lit("ok")),
    )


def _scores_json(scorers: list[str]) -> pl.Expr:
    """Return every scorer's value by name as a JSON object (null where none scored)."""
    if not scorers:
        return pl.lit(None, dtype=pl.String)
    named = pl.struct(
        *(pl.col("scores").list.get(i, null_on_oob=True).alias(n) for i, n in enumerate(scorers))
    )
    scored = pl.col("scores").list.eval(pl.element().is_not_null()).list.any()
    return pl.when(scored).then(named.struct.json_encode())


# ---- inspect's per-worker layout: each sample-epoch read once ---------------------------------

_SHARDS = ".shards"
_RECOVERED = "-recovered"
_CREATED = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d[-:]\d\d[-:]\d\d)")


def eval_status(path: Path) -> str | None:
    """Return a ``.eval`` log's status, or None when it cannot be read.

    The status is ``header.json``'s; a log with only its journal is ``"started"``. A log whose
    status cannot be read is read as it is (reading it then names the problem).
    """
    try:
        with open_zip(path) as archive:
            names = set(archive.namelist())
            if "header.json" not in names:
                return "started" if "_journal/start.json" in names else None
            header = load_json(path, ZipLog(path, archive, MAX_BYTES).read("header.json"))
    except (LogFormatError, ImportError, OSError):
        return None
    status = header.get("status") if isinstance(header, dict) else None
    return status if isinstance(status, str) else None


def _attempt_key(path: Path) -> tuple[bool, str, bool, float]:
    """Return the key that orders a shard's attempts as inspect does.

    By the time in the name, a ``-recovered`` copy after its original, then by modification
    time (names without a time first).
    """
    created = _CREATED.match(path.name)
    stem = path.name.removesuffix(".eval")
    return (
        created is not None,
        created[1].replace(":", "-") if created else "",
        stem.endswith(_RECOVERED),
        path.stat().st_mtime,
    )


def _base(path: Path) -> str:
    return path.name.removesuffix(".eval").removesuffix(_RECOVERED)


def read_once(found: list[tuple[str, Path]]) -> list[tuple[str, Path]]:
    """Return the logs of a folder read with each inspect sample-epoch in one log only.

    inspect's per-worker layout puts a run's merged log ``NAME.eval`` beside ``NAME.shards/``,
    which holds a folder per worker (``<k>/``) with that worker's attempts; a crashed log
    ``NAME.eval`` may have a ``NAME-recovered.eval`` beside it. A merged log that finished
    (status ``success``) is read instead of its shards; otherwise each shard's newest attempt
    is read (by the time in its name, a ``-recovered`` copy after its original), and a merged
    log that did not finish is left out, as are a shard's older attempts. Of a log and its
    ``-recovered`` copy, the one that finished is read, else the recovered one. A log whose
    status cannot be read is always kept, so that reading it names what is wrong with it.
    """
    logs = [p for tool, p in found if tool == TOOL and p.suffix == ".eval"]
    present = set(logs)
    status: dict[Path, str | None] = {}

    def finished(path: Path) -> bool:
        if path not in status:
            status[path] = eval_status(path)
        return status[path] == "success"

    def unreadable(path: Path) -> bool:
        finished(path)
        return status[path] is None

    dropped: set[Path] = set()
    attempts: dict[Path, list[Path]] = {}
    for path in logs:
        shards = path.parent.parent
        if shards.name.endswith(_SHARDS) and shards.name != _SHARDS:
            attempts.setdefault(path.parent, []).append(path)
    by_set: dict[Path, list[Path]] = {}
    for worker, tries in attempts.items():
        tries.sort(key=_attempt_key)
        dropped.update(tries[:-1])
        by_set.setdefault(worker.parent, []).append(tries[-1])
    covered: set[Path] = set()
    for shards, newest in by_set.items():
        base = shards.name.removesuffix(_SHARDS)
        merged = [shards.parent / f"{base}{end}.eval" for end in ("", _RECOVERED)]
        merged = [m for m in merged if m in present]
        covered.update(merged)
        done = [m for m in merged if finished(m)]
        if done:
            dropped.update(newest)
            dropped.update(m for m in merged if m != max(done, key=_attempt_key))
        else:
            dropped.update(m for m in merged if not unreadable(m))
    pairs: dict[tuple[Path, str], list[Path]] = {}
    for path in logs:
        if path not in covered and path not in dropped:
            pairs.setdefault((path.parent, _base(path)), []).append(path)
    for pair in pairs.values():
        if len(pair) < 2:
            continue
        readable = [p for p in pair if not unreadable(p)]
        done = [p for p in readable if finished(p)]
        keep = max(done or readable, key=_attempt_key) if readable else None
        dropped.update(p for p in readable if p != keep)
    return [(tool, p) for tool, p in found if p not in dropped]
