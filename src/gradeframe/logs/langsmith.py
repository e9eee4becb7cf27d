"""Read LangSmith experiment results: ``evaluate(...).to_pandas()`` written as CSV or Parquet.

``langsmith.evaluate(target, data=..., evaluators=[...])`` gives one row per example and
repetition with the columns ``inputs.*`` (the example's inputs), ``outputs.*`` (what the target
returned), ``reference.*`` (the example's reference outputs), ``feedback.*`` (each evaluator's
score), ``error``, ``execution_time``, ``example_id`` and ``id`` (the run). One row each: the
reply is the ``outputs.*`` column named by ``output=`` (default: the first that holds a value),
the acceptable answer the ``reference.*`` column named by ``reference=`` (default likewise), and
the ``feedback.*`` column named by ``feedback=`` (default: the first) is ``tool_score``, with
``tool_correct`` the feedback itself where it is true/false and a score equal to 1 otherwise;
every evaluator's feedback is in ``langsmith_feedback``. A run that raised is
``status="error"``. An evaluator that raised leaves its feedback empty on a run that has a reply:
that is ``tool_failure="grader_failure"``, not a wrong answer.

LangSmith records no repetition number: ``sample_id`` is the ``example_id`` and ``epoch``
numbers its rows in order. ``execution_time`` is ``seconds``; token and cost columns
(``prompt_tokens``/``input_tokens``, ``completion_tokens``/``output_tokens``, ``total_tokens``,
``total_cost``) are read where the file has them. The task is the file's stem (the experiment's
name is not in the frame). Parquet keeps ids as 16-byte UUIDs: they are written back as text.
The CSV is read as text and typed here, so its ``True``/``False`` feedback reads as Parquet's; but
pandas writes an empty reply and a missing one alike in a CSV, so there both read as null (the
Parquet keeps an empty reply as "").
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl

from gradeframe.logs._columns import USAGE, VERDICT, finish
from gradeframe.logs._common import PathLike, log_error

TOOL = "langsmith"

FEEDBACK = pl.Struct({"key": pl.String, "score": pl.String})

EXTRAS: dict[str, pl.DataType] = {
    **VERDICT,
    **USAGE,
    "langsmith_feedback_key": pl.String(),
    "langsmith_feedback": pl.List(FEEDBACK),
    "langsmith_error": pl.String(),
    "langsmith_run_id": pl.String(),
    "langsmith_inputs": pl.String(),
    "langsmith_outputs": pl.String(),
}

_SUFFIXES = (".csv", ".parquet")
_TRUE, _FALSE = ["true", "1", "1.0"], ["false", "0", "0.0"]


def _columns(path: Path) -> list[str]:
    try:
        if path.suffix == ".parquet":
            return list(pl.read_parquet_schema(path))
        with path.open("rb") as handle:
            header = handle.readline(65_536).decode("utf-8", errors="replace")
        return list(pl.read_csv(header.encode(), infer_schema=False, n_rows=0).columns)
    except (OSError, pl.exceptions.PolarsError, ValueError):
        return []


def detect(path: PathLike) -> bool:
    """Return whether ``path`` is a LangSmith results table (``to_pandas()`` as CSV/Parquet)."""
    path = Path(path)
    if not path.is_file() or path.suffix not in _SUFFIXES:
        return False
    columns = _columns(path)
    prefixed = any(c.startswith(("feedback.", "reference.", "outputs.")) for c in columns)
    return "example_id" in columns and prefixed


def _read_table(path: Path) -> pl.DataFrame:
    if path.suffix == ".parquet":
        frame = pl.read_parquet(path)
    else:
        frame = pl.read_csv(path, infer_schema=False)
    uuids = {}
    for name, dtype in frame.schema.items():
        if isinstance(dtype, pl.Binary):  # a UUID as Parquet stores it
            hexed = pl.col(name).bin.encode("hex")
            parts = [hexed.str.slice(a, b - a) for a, b in ((0, 8), (8, 12), (12, 16), (16, 20))]
            uuids[name] = pl.concat_str([*parts, hexed.str.slice(20, 12)], separator="-")
    return frame.with_columns(**uuids) if uuids else frame


def _pick(
    frame: pl.DataFrame, prefix: str, name: str | None, path: Path, option: str
) -> str | None:
    """Return the column ``prefix.name``, or the first ``prefix.*`` column holding a value."""
    columns = [c for c in frame.columns if c.startswith(prefix)]
    if name is not None:
        wanted = name if name.startswith(prefix) else prefix + name
        if wanted not in columns:
            held = [c[len(prefix) :] for c in columns]
            msg = f"{option}={name!r}: {os.fspath(path)} has the {prefix}* columns {held}"
            raise ValueError(msg)
        return wanted
    filled = [c for c in columns if frame.get_column(c).null_count() < frame.height]
    return (filled or columns or [None])[0]


def _text(frame: pl.DataFrame, column: str | None) -> pl.Expr:
    if column is None:
        return pl.lit(None, dtype=pl.String)
    if isinstance(frame.schema[column], pl.String):
        return pl.col(column)
    # Booleans and numbers always cast; anything else that cannot becomes null
    return pl.col(column).cast(pl.String, strict=False)


def _score(frame: pl.DataFrame, column: str | None) -> pl.Expr:
    """Return feedback as text, true/false as Parquet writes them (the CSV has True/False)."""
    score = _text(frame, column)
    score = pl.when(score.str.strip_chars() != "").then(score)
    return pl.when(score.is_in(["True", "False"])).then(score.str.to_lowercase()).otherwise(score)


def _verdict(frame: pl.DataFrame, column: str | None) -> pl.Expr:
    if column is None:
        return pl.lit(None, dtype=pl.Boolean)
    dtype = frame.schema[column]
    expr = pl.col(column)
    if isinstance(dtype, pl.Boolean):
        return expr
    if dtype.is_numeric():
        return expr.cast(pl.Float64) == 1.0
    text = expr.cast(pl.String).str.strip_chars().str.to_lowercase()
    number = text.cast(pl.Float64, strict=False)
    return (
        pl.when(text.is_in(_TRUE))
        .then(pl.lit(value=True))
        .when(text.is_in(_FALSE))
        .then(pl.lit(value=False))
        .otherwise(number == 1.0)
    )


def _number(frame: pl.DataFrame, names: tuple[str, ...], dtype: pl.DataType) -> pl.Expr:
    for name in names:
        if name in frame.columns:
            return pl.col(name).cast(dtype, strict=False)
    return pl.lit(None, dtype=dtype)


def _struct_text(columns: list[str], prefix: str) -> pl.Expr:
    if not columns:
        return pl.lit(None, dtype=pl.String)
    fields = [pl.col(c).cast(pl.String).alias(c[len(prefix) :]) for c in columns]
    return pl.struct(fields).struct.json_encode()


def read(
    path: PathLike,
    *,
    output: str | None = None,
    reference: str | None = None,
    feedback: str | None = None,
) -> pl.DataFrame:
    """Read one LangSmith results table into the common columns.

    Parameters
    ----------
    path
        ``to_pandas()`` written with ``to_csv(index=False)`` or ``to_parquet()``.
    output, reference, feedback
        The ``outputs.*``, ``reference.*`` and ``feedback.*`` column (with or without its
        prefix) giving the reply, the acceptable answer and the verdict.

    Returns
    -------
    polars.DataFrame
        One row per example and repetition.
    """
    path = Path(path)
    frame = _read_table(path)
    if "example_id" not in frame.columns:
        raise log_error(path, "not a LangSmith results table: it has no 'example_id' column")
    for name, dtype in frame.schema.items():
        if isinstance(dtype, pl.List | pl.Struct | pl.Array | pl.Object):
            problem = f"column {name!r} holds {dtype}, not text or a number"
            raise log_error(path, problem)
    reply = _pick(frame, "outputs.", output, path, "output")
    answer_column = _pick(frame, "reference.", reference, path, "reference")
    verdict = _pick(frame, "feedback.", feedback, path, "feedback")
    inputs = [c for c in frame.columns if c.startswith("inputs.")]
    outputs = [c for c in frame.columns if c.startswith("outputs.")]
    feedbacks = [c for c in frame.columns if c.startswith("feedback.")]
    error = _text(frame, "error" if "error" in frame.columns else None)
    error = pl.when(error.str.strip_chars() != "").then(error)
    reply_text = _text(frame, reply)
    score = _score(frame, verdict)
    example = _text(frame, "example_id")
    question = _text(frame, inputs[0]) if len(inputs) == 1 else _struct_text(inputs, "inputs.")
    rows = frame.select(
        tool=pl.lit(TOOL),
        log=pl.lit(os.fspath(path)),
        model=pl.lit(None, dtype=pl.String),
        task=pl.lit(path.stem),
        sample_id=example,
        epoch=pl.int_range(1, pl.len() + 1).over(example),
        input=question,
        output=pl.struct(
            answer=reply_text,
            partial=pl.lit(value=False),
            notes=pl.lit([], dtype=pl.List(pl.String)),
            trace=pl.lit(
                [], dtype=pl.List(pl.Struct({"step": pl.String, "finish_reason": pl.String}))
            ),
            status=pl.when(error.is_not_null()).then(pl.lit("error")).otherwise(pl.lit("ok")),
        ),
        refs=pl.when(_text(frame, answer_column).is_not_null()).then(
            pl.concat_list(_text(frame, answer_column))
        ),
        tool_score=score,
        tool_correct=pl.when(score.is_not_null()).then(_verdict(frame, verdict)),
        tool_failure=pl.when(score.is_null() & error.is_null() & reply_text.is_not_null())
        .then(pl.lit("grader_failure"))
        .otherwise(pl.lit(None, dtype=pl.String))
        if verdict is not None
        else pl.lit(None, dtype=pl.String),
        input_tokens=_number(frame, ("prompt_tokens", "input_tokens"), pl.Int64()),
        output_tokens=_number(frame, ("completion_tokens", "output_tokens"), pl.Int64()),
        total_tokens=_number(frame, ("total_tokens",), pl.Int64()),
        seconds=_number(frame, ("execution_time", "latency"), pl.Float64()),
        cost=_number(frame, ("total_cost", "cost"), pl.Float64()),
        langsmith_feedback_key=pl.lit(None if verdict is None else verdict[len("feedback.") :]),
        langsmith_feedback=pl.concat_list(
            pl.struct(key=pl.lit(c[len("feedback.") :]), score=_score(frame, c)) for c in feedbacks
        )
        if feedbacks
        else pl.lit([], dtype=pl.List(FEEDBACK)),
        langsmith_error=error,
        langsmith_run_id=_text(frame, "id" if "id" in frame.columns else None),
        langsmith_inputs=_struct_text(inputs, "inputs."),
        langsmith_outputs=_struct_text(outputs, "outputs."),
    )
    return finish(rows, EXTRAS)
