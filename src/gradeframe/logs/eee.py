"""Read Every Eval Ever logs (schema 0.3): the instance-level ``*_samples.jsonl`` of a run.

Every Eval Ever is the shared schema that inspect, lm-eval, HELM and others convert into
(``every_eval_ever convert ...``). A run is an aggregate JSON (scores per metric) beside its
instance-level ``<id>_samples.jsonl``, one JSON object a line. The converters write one line per
sample *and scorer* (``evaluation_result_id`` names the scorer): those lines become one row per
attempt (sample × epoch), each scorer's verdict kept in ``eee_scores`` and the first scorer's as
``tool_score``/``tool_correct``. ``tool_correct`` is the score equal to 1: the converters set
``evaluation.is_correct`` for any score above 0 (a partial credit of 0.5 counts as correct
there), kept as ``eee_is_correct``.

The reply is the last assistant message of ``messages`` when the line has them (multi-turn and
agentic samples), else ``output.raw``, which in files converted from inspect holds the scorer's
*extracted* answer (lower-cased by ``includes()``, the matched number for ``match()``), not the
reply: ``eee_answer_source`` says which was used. ``metadata.stop_reason`` ``max_tokens`` or
``length`` is a partial answer noted ``cost_cap_reached`` (a budget stop), ``content_filter`` a
trace step finished with ``content_filter`` (a refusal); an ``error`` sets ``status="error"``.
References written as a Python list in one string (lm-eval conversions: ``"['12400', '12,400']"``)
are read as that list; a multiple-choice reference or answer that is an option's letter or index
(and not itself an option) is read as the option's text.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import polars as pl

from gradeframe.logs._columns import (
    BOOLEAN,
    INTEGER,
    NUMBER,
    OBJECT,
    RECORDS,
    SCALAR,
    TEXT,
    TEXTS,
    field,
    finish,
)
from gradeframe.logs._common import (
    COST_CAP,
    LogFormatError,
    PathLike,
    first_json_line,
    head,
    iter_json_lines,
    log_error,
)

TOOL = "eee"

SCORE = pl.Struct({"scorer": pl.String, "score": pl.Float64, "is_correct": pl.Boolean})
TOOL_CALL = pl.Struct({"name": pl.String, "arguments": pl.String})

EXTRAS: dict[str, pl.DataType] = {
    "tool_calls": pl.List(TOOL_CALL),
    "eee_answer_source": pl.String(),
    "eee_scores": pl.List(SCORE),
    "eee_is_correct": pl.Boolean(),
    "eee_stop_reason": pl.String(),
    "eee_error": pl.String(),
    "eee_choices": pl.List(pl.String),
    "eee_interaction_type": pl.String(),
    "eee_cache_write_tokens": pl.Int64(),
    "eee_evaluation_id": pl.String(),
    "eee_sample_hash": pl.String(),
    "eee_metadata": pl.String(),
}

_CUT_SHORT = ["max_tokens", "length", "model_length"]
_SAMPLES = re.compile(r".*_samples\.jsonl$")


def detect(path: PathLike) -> bool:
    """Return whether ``path`` is an Every Eval Ever log (samples JSON Lines, or aggregate)."""
    path = Path(path)
    if not path.is_file():
        return False
    if path.suffix == ".jsonl":
        first = first_json_line(path)
        return first is not None and {"schema_version", "evaluation_id", "evaluation"} <= set(first)
    if path.suffix == ".json":
        return is_aggregate(path)
    return False


def is_aggregate(path: PathLike) -> bool:
    """Return whether ``path`` is a run's aggregate JSON (its samples are in another file)."""
    path = Path(path)
    if path.suffix != ".json" or not path.is_file():
        return False
    text = head(path, 8192)
    return '"schema_version"' in text and '"evaluation_results"' in text


def samples_of(aggregate: PathLike) -> Path | None:
    """Return the instance-level samples file of an aggregate JSON, when it is beside it."""
    aggregate = Path(aggregate)
    beside = aggregate.with_name(f"{aggregate.stem}_samples.jsonl")
    if beside.is_file():
        return beside
    try:
        named = json.loads(aggregate.read_bytes()).get("detailed_evaluation_results") or {}
        name = Path(str(named.get("file_path") or "")).name
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    return aggregate.with_name(name) if name and aggregate.with_name(name).is_file() else None


def read(path: PathLike) -> pl.DataFrame:
    """Read one Every Eval Ever run into the common columns.

    Parameters
    ----------
    path
        The instance-level ``*_samples.jsonl``, or the run's aggregate JSON beside it.

    Returns
    -------
    polars.DataFrame
        One row per sample and epoch.
    """
    path = Path(path)
    if is_aggregate(path):
        samples = samples_of(path)
        if samples is None:
            problem = (
                "an Every Eval Ever aggregate JSON holds scores per metric only, and its "
                "instance-level *_samples.jsonl is not beside it"
            )
            raise log_error(path, problem)
        path = samples
    lines = _parse(path)
    return _frame(lines, path)


def _parse(path: Path) -> pl.DataFrame:
    try:
        frame = pl.read_ndjson(path, infer_schema_length=None)
    except pl.exceptions.PolarsError as error:
        raise mixed_types_error(path, error) from None
    if frame.height == 0:
        raise log_error(path, "holds no records; the log is empty or truncated")
    return frame


def _json_kind(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, bool):
        return "true or false"
    return "a number" if isinstance(value, int | float) else "null"


def _mixed_field(records: list[tuple[int, Any]], prefix: str = "") -> tuple[str, int, str] | None:
    """Return the field (and a line) whose values do not share one type, as Polars needs."""
    keys: dict[str, None] = {}
    for _, record in records:
        if isinstance(record, dict):
            keys.update(dict.fromkeys(record))
    for key in keys:
        values = [(n, r.get(key)) for n, r in records if isinstance(r, dict)]
        kinds = [_json_kind(v) for _, v in values]
        present = [k for k in kinds if k != "null"]
        name = f"{prefix}{key}"
        if len(set(present)) > 1:
            common = max(set(present), key=present.count)
            line, kind = next(
                (n, k) for (n, _), k in zip(values, kinds, strict=True) if k not in (common, "null")
            )
            return name, line, f"{kind}, where other lines hold {common}"
        if present and present[0] == "an object":
            inner = _mixed_field([(n, v) for n, v in values if isinstance(v, dict)], f"{name}.")
            if inner is not None:
                return inner
        if present and present[0] == "a list":
            items = [(n, item) for n, v in values if isinstance(v, list) for item in v]
            if len({_json_kind(item) for _, item in items} - {"null"}) > 1:
                return f"{name}[]", items[0][0], "items of several types"
            inner = _mixed_field([(n, i) for n, i in items if isinstance(i, dict)], f"{name}[].")
            if inner is not None:
                return inner
    return None


def mixed_types_error(path: PathLike, error: Exception) -> LogFormatError:
    """Return the error for JSON Lines Polars cannot parse: the bad line, or the mixed field."""
    records = list(iter_json_lines(path))  # raises naming the first line that is not JSON
    for number, record in records:
        if not isinstance(record, dict):
            return log_error(path, "a line is not a JSON object", line=number)
    found = _mixed_field(records)
    if found is not None:
        name, line, kind = found
        return log_error(path, f"field {name!r} holds {kind}", line=line)
    first = str(error).splitlines()[0][:200] if str(error) else type(error).__name__
    return log_error(path, f"not readable as JSON Lines ({first})")


def _literal_lists(refs: pl.Series) -> dict[str, list[str]]:
    """Map each reference written as a Python list literal to that list (lm-eval conversions)."""
    found: dict[str, list[str]] = {}
    for text in refs.drop_nulls().unique().to_list():
        if not (text.startswith("[") and text.endswith("]")):
            continue  # "1,204" is a number with a separator, not the tuple (1, 204)
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, list) and all(isinstance(v, str | int | float) for v in value):
            found[text] = [str(v) for v in value]
    return found


def _option(value: pl.Expr, choices: pl.Expr) -> pl.Expr:
    """Return the option a letter ("B") or an index ("1") names, where the value is no option."""
    letter = value.str.strip_chars().str.to_uppercase()
    index = (
        pl.when(value.str.contains(r"^\s*\d+\s*$"))
        .then(value.str.strip_chars().cast(pl.Int64, strict=False))
        .when(letter.str.contains(r"^[A-Z]$"))
        .then(letter.str.encode("hex").str.to_integer(base=16) - ord("A"))
    )
    named = choices.list.get(index, null_on_oob=True)
    is_option = choices.list.contains(value)
    return pl.when(~is_option & named.is_not_null()).then(named).otherwise(value)


def _tool_calls(frame: pl.DataFrame, where: Path) -> pl.Expr:
    """Every assistant message's tool calls, in order, as ``{name, arguments}`` (JSON text)."""
    messages = field(frame, where, "messages", RECORDS)
    calls = pl.lit(None, dtype=pl.List(TOOL_CALL))
    schema = frame.schema.get("messages")
    inner = schema.inner if isinstance(schema, pl.List) else None
    if not isinstance(inner, pl.Struct):
        return pl.when(messages.is_not_null()).then(pl.lit([], dtype=pl.List(TOOL_CALL)))
    names = {f.name: f.dtype for f in inner.fields}
    kind = names.get("tool_calls")
    if not isinstance(kind, pl.List) or not isinstance(kind.inner, pl.Struct):
        if kind is not None and not isinstance(kind, pl.List | pl.Null):
            raise log_error(where, f"field 'messages[].tool_calls' holds {kind}, not a list")
        return pl.when(messages.is_not_null()).then(pl.lit([], dtype=pl.List(TOOL_CALL)))
    call_fields = {f.name: f.dtype for f in kind.inner.fields}
    arguments = call_fields.get("arguments")
    element = pl.element()
    if isinstance(arguments, pl.Struct):
        args = element.struct.field("arguments").struct.json_encode()
    elif isinstance(arguments, pl.String):
        args = element.struct.field("arguments")
    else:
        args = pl.lit(None, dtype=pl.String)
    name = element.struct.field("name") if "name" in call_fields else pl.lit(None, pl.String)
    calls = (
        messages.list.eval(
            element.filter(element.struct.field("role") == "assistant").struct.field("tool_calls")
        )
        .list.eval(element.list.explode(keep_nulls=False, empty_as_null=False))
        .list.eval(pl.struct(name=name.cast(pl.String), arguments=args))
    )
    return calls


def _frame(lines: pl.DataFrame, where: Path) -> pl.DataFrame:
    def at(path: str, kind: Any, **options: Any) -> pl.Expr:
        return field(lines, where, path, kind, **options)

    raw = at("output.raw", TEXTS, inner=(pl.String,), dtype=pl.List(pl.String))
    last_reply, has_reply = _last_reply(lines, at("messages", RECORDS))
    choices = at("input.choices", TEXTS, inner=(pl.String,), dtype=pl.List(pl.String))
    references = at("input.reference", TEXTS, inner=(pl.String,), dtype=pl.List(pl.String))
    has_choices = choices.list.len().fill_null(0) > 0
    refs = _refs(lines, references, choices, has_choices)
    stop = at("metadata.stop_reason", TEXT)
    stop = pl.when(stop.str.strip_chars() != "").then(stop)
    error = at("error", TEXT)
    score = at("evaluation.score", NUMBER, dtype=pl.Float64)
    answer = pl.when(has_reply).then(last_reply).otherwise(raw.list.first())
    answer = pl.when(has_choices).then(_option(answer, choices)).otherwise(answer)
    latency = at("performance.latency_ms", NUMBER, dtype=pl.Float64)
    generation = at("performance.generation_time_ms", NUMBER, dtype=pl.Float64)
    metadata = at("metadata", OBJECT)
    epoch = at("metadata.epoch", SCALAR, dtype=pl.String).cast(pl.Int64, strict=False)
    rows = lines.select(
        tool=pl.lit(TOOL),
        log=pl.lit(str(where)),
        model=at("model_id", TEXT),
        task=at("evaluation_name", TEXT),
        sample_id=at("sample_id", SCALAR, dtype=pl.String),
        epoch=epoch.fill_null(1),
        input=at("input.raw", TEXT),
        output=_output(answer, stop, error),
        refs=refs,
        tool_score=score.cast(pl.String),
        tool_correct=score == 1.0,
        tool_failure=pl.lit(None, dtype=pl.String),
        input_tokens=at("token_usage.input_tokens", INTEGER),
        output_tokens=at("token_usage.output_tokens", INTEGER),
        total_tokens=at("token_usage.total_tokens", INTEGER),
        seconds=pl.coalesce(latency, generation) / 1000,
        cache_read_tokens=at("token_usage.input_tokens_cache_read", INTEGER),
        reasoning_tokens=at("token_usage.reasoning_tokens", INTEGER),
        tool_calls=_tool_calls(lines, where),
        eee_answer_source=pl.when(has_reply)
        .then(pl.lit("messages"))
        .when(raw.list.len() > 0)
        .then(pl.lit("output.raw")),
        eee_score=pl.struct(
            scorer=at("evaluation_result_id", TEXT),
            score=score,
            is_correct=at("evaluation.is_correct", BOOLEAN),
        ),
        eee_is_correct=at("evaluation.is_correct", BOOLEAN),
        eee_stop_reason=stop,
        eee_error=error,
        eee_choices=choices,
        eee_interaction_type=at("interaction_type", TEXT),
        eee_cache_write_tokens=at("token_usage.input_tokens_cache_write", INTEGER),
        eee_evaluation_id=at("evaluation_id", TEXT),
        eee_sample_hash=at("sample_hash", TEXT),
        eee_metadata=metadata.struct.json_encode()
        if isinstance(lines.schema.get("metadata"), pl.Struct)
        else pl.lit(None, pl.String),
    )
    # one row per attempt: the lines of one sample and epoch (one per scorer) fold into one
    key = ["eee_evaluation_id", "task", "sample_id", "epoch"]
    others = [c for c in rows.columns if c not in (*key, "eee_score")]
    folded = rows.group_by(key, maintain_order=True).agg(
        pl.col(others).first(), eee_scores=pl.col("eee_score")
    )
    return finish(folded, EXTRAS)


def _last_reply(lines: pl.DataFrame, messages: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """Return the last assistant message's text, and whether the line has an assistant message."""
    last_reply = messages.list.eval(
        pl.element()
        .filter(pl.element().struct.field("role") == "assistant")
        .struct.field("content")
        .cast(pl.String)
    ).list.last()
    has_reply = messages.list.eval(pl.element().struct.field("role") == "assistant").list.any()
    if not isinstance(lines.schema.get("messages"), pl.List) or not isinstance(
        lines.schema["messages"].inner, pl.Struct
    ):
        last_reply, has_reply = pl.lit(None, pl.String), pl.lit(value=False)
    return last_reply, has_reply


def _refs(
    lines: pl.DataFrame, references: pl.Expr, choices: pl.Expr, has_choices: pl.Expr
) -> pl.Expr:
    """Return the acceptable answers: a list literal read as its list, a choice as its option."""
    literal = references.list.first()
    lists = _literal_lists(
        lines.select(pl.when(references.list.len() == 1).then(literal)).to_series()
    )
    if lists:
        expanded = literal.replace_strict(lists, default=None, return_dtype=pl.List(pl.String))
        references = (
            pl.when(references.list.len() == 1)
            .then(pl.coalesce(expanded, references))
            .otherwise(references)
        )
    one_ref = references.list.first()
    return (
        pl.when(has_choices & (references.list.len() == 1))
        .then(pl.concat_list(_option(one_ref, choices)))
        .otherwise(references)
    )


def _output(answer: pl.Expr, stop: pl.Expr, error: pl.Expr) -> pl.Expr:
    """Return the output record: a budget stop is partial (noted), any stop a trace step."""
    cut = stop.is_in(_CUT_SHORT).fill_null(value=False)
    return pl.struct(
        answer=answer,
        partial=cut,
        notes=pl.when(cut)
        .then(pl.concat_list(pl.lit("stop:") + stop, pl.lit(COST_CAP)))
        .otherwise(pl.lit([], dtype=pl.List(pl.String))),
        trace=pl.when(stop.is_not_null())
        .then(pl.concat_list(pl.struct(step=pl.lit("model"), finish_reason=stop)))
        .otherwise(
            pl.lit([], dtype=pl.List(pl.Struct({"step": pl.String, "finish_reason": pl.String})))
        ),
        status=pl.when(error.is_not_null()).then(pl.lit("error")).otherwise(pl.lit("ok")),
    )
