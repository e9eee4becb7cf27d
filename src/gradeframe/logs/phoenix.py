"""Read Arize Phoenix experiment exports: ``/v1/experiments/{id}/json`` and ``/csv``.

A Phoenix experiment runs a task on each example of a dataset (``repetitions`` times) and
scores each run with evaluators, stored as annotations. Its REST exports hold one record per run:
``example_id``, ``repetition_number`` (the ``epoch``), ``input``, ``reference_output`` (the
acceptable answer), ``output`` (the reply), ``error``, ``latency_ms``, token counts and the
``annotations`` (``name``, ``score``, ``label``, ``explanation``, ``error``); the CSV writes each
annotation's fields as ``annotation_<name>_<field>`` columns and adds the example's
``metadata``. One row per record. An input or reference output with one key is read as that
key's value (``{"answer": "12400"}`` is "12400"); with several, ``reference=`` names the key of
the acceptable answer (the input is then its JSON text). The CSV writes an empty reply and a
missing one alike: there both read as null.

The annotation named by ``annotation=`` (default: each record's first) gives ``tool_score``
(its score, else its label) and ``tool_correct`` (score equal to 1, or a label "True"/"False").
A task that raised is ``status="error"``: Phoenix still runs the evaluators on it and records
their scores (a 0.0 from a check on the missing output), so its ``tool_correct`` is false though
the model never answered; the failure kind says ``error``. An evaluator that raised leaves an
annotation with an ``error`` and no score: ``tool_correct`` null and
``tool_failure="grader_failure"``.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from pathlib import Path
from typing import Any

import polars as pl

from gradeframe.logs import _common
from gradeframe.logs._columns import VERDICT, finish
from gradeframe.logs._common import PathLike, as_text

TOOL = "phoenix"

ANNOTATION = pl.Struct(
    {
        "name": pl.String,
        "score": pl.Float64,
        "label": pl.String,
        "explanation": pl.String,
        "error": pl.String,
    }
)

EXTRAS: dict[str, pl.DataType] = {
    **VERDICT,
    "phoenix_annotation": pl.String(),
    "phoenix_label": pl.String(),
    "phoenix_explanation": pl.String(),
    "phoenix_annotations": pl.List(ANNOTATION),
    "phoenix_error": pl.String(),
    "phoenix_trace_id": pl.String(),
    "phoenix_start_time": pl.String(),
    "phoenix_input": pl.String(),
    "phoenix_reference_output": pl.String(),
    "phoenix_metadata": pl.String(),
}

_FIELDS = {
    "sample_id": "example_id",
    "epoch": "repetition_number",
    "seconds": "latency_ms",
    "input_tokens": "prompt_token_count",
    "output_tokens": "completion_token_count",
}
_CSV_HEADER = re.compile(r"^\ufeff?example_id,repetition_number,")
_ANNOTATION_COLUMN = re.compile(
    r"^annotation_(.+)_(label|score|explanation|metadata|annotator_kind|trace_id|error|"
    r"start_time|end_time)$"
)


def detect(path: PathLike) -> bool:
    """Return whether ``path`` is a Phoenix experiment export (JSON or CSV)."""
    path = Path(path)
    if not path.is_file():
        return False
    if path.suffix == ".csv":
        return bool(_CSV_HEADER.match(_common.head(path, 256)))
    if path.suffix == ".json":
        text = _common.head(path, 4096).lstrip()
        return text.startswith("[") and '"repetition_number"' in text and '"example_id"' in text
    return False


def read(
    path: PathLike, *, annotation: str | None = None, reference: str | None = None
) -> pl.DataFrame:
    """Read one Phoenix experiment export into the common columns.

    Parameters
    ----------
    path
        The JSON (``/v1/experiments/{id}/json``) or CSV (``/csv``) export.
    annotation
        The evaluator (annotation name) whose verdict is ``tool_score``/``tool_correct``;
        default: each record's first.
    reference
        The key of ``reference_output`` holding the acceptable answer, where it has several.

    Returns
    -------
    polars.DataFrame
        One row per example and repetition.
    """
    path = Path(path)
    records = _csv_records(path) if path.suffix == ".csv" else _common.load_json(path)
    if not isinstance(records, list):
        raise _common.log_error(
            path, "not a Phoenix experiment export (the document is not a list)"
        )
    context = {"tool": TOOL, "log": os.fspath(path), "model": None, "task": path.stem}
    rows, locations = [], []
    for index, record in enumerate(records):
        what = f"record {index + 1}" if path.suffix == ".csv" else f"[{index}]"
        rows.append(
            _common.record_row(_row, record, context, annotation, reference, where=path, what=what)
        )
        locations.append((path, what))
    return finish(_common.build_frame(rows, EXTRAS, locations=locations, fields=_FIELDS), EXTRAS)


def _csv_value(text: str | None) -> Any:
    return None if text is None or text == "" else text


def _json_cell(text: str | None) -> Any:
    if text is None or text == "":
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def _csv_records(path: Path) -> list[dict[str, Any]]:
    """Return the CSV export as the JSON export's records (its annotation columns regrouped)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise _common.log_error(path, f"not UTF-8 text ({error.reason})") from None
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        table = list(reader)
    except csv.Error as error:
        raise _common.log_error(path, f"not a readable CSV ({error})") from None
    names: dict[str, None] = {}
    for column in reader.fieldnames or []:
        match = _ANNOTATION_COLUMN.match(column)
        if match:
            names[match[1]] = None
    records = []
    for row in table:
        if None in row:
            raise _common.log_error(
                path, f"a row has more fields than the header ({len(row)} columns)"
            )
        annotations = []
        for name in names:
            fields = {f: _csv_value(row.get(f"annotation_{name}_{f}")) for f in _ANN_FIELDS}
            if any(v is not None for v in fields.values()):
                annotations.append({"name": name, **fields})
        cells = {c: (_json_cell if c in _JSON_CELLS else _csv_value)(row.get(c)) for c in _CELLS}
        records.append({**cells, "annotations": annotations})
    return records


_ANN_FIELDS = ("score", "label", "explanation", "error")
#: The columns of a CSV export read into a record, in its order; those holding JSON.
_CELLS = (
    "example_id",
    "repetition_number",
    "input",
    "reference_output",
    "output",
    "metadata",
    "error",
    "latency_ms",
    "start_time",
    "trace_id",
    "prompt_token_count",
    "completion_token_count",
)
_JSON_CELLS = frozenset({"input", "reference_output", "metadata"})


def _value(value: Any, key: str | None) -> Any:
    """Return an input or reference output as its one value (or the named key's)."""
    if isinstance(value, dict):
        if key is not None:
            return value.get(key)
        if len(value) == 1:
            return next(iter(value.values()))
        return _common.json_text(value)
    return value


def _number(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    return float(value)


def _row(
    record: dict[str, Any],
    context: dict[str, Any],
    annotation: str | None,
    reference: str | None,
) -> dict[str, Any]:
    annotations = [
        {
            "name": as_text(a.get("name")),
            "score": _number(a.get("score")),
            "label": as_text(a.get("label")),
            "explanation": as_text(a.get("explanation")),
            "error": as_text(a.get("error")),
        }
        for a in record.get("annotations") or []
    ]
    chosen = next((a for a in annotations if a["name"] == annotation), None)
    if annotation is None and annotations:
        chosen = annotations[0]
    error = as_text(record.get("error"))
    score = chosen["score"] if chosen else None
    label = chosen["label"] if chosen else None
    grader_failed = chosen is not None and chosen["error"] is not None and score is None
    if score is not None:
        correct: bool | None = score == 1
    elif label in ("True", "False", "true", "false"):
        correct = label.lower() == "true"
    else:
        correct = None
    latency = _number(record.get("latency_ms"))
    output = record.get("output")
    return {
        **context,
        "sample_id": as_text(record.get("example_id")),
        "epoch": _count(record.get("repetition_number")) or 1,
        "input": as_text(_value(record.get("input"), None)),
        "output": _common.output_record(
            as_text(_value(output, None)), status="error" if error is not None else "ok"
        ),
        "refs": _common.as_text_list(_value(record.get("reference_output"), reference)),
        "tool_score": as_text(score) if score is not None else label,
        "tool_correct": None if grader_failed else correct,
        "tool_failure": "grader_failure" if grader_failed and error is None else None,
        "input_tokens": _count(record.get("prompt_token_count")),
        "output_tokens": _count(record.get("completion_token_count")),
        "seconds": None if latency is None else latency / 1000,
        "phoenix_annotation": chosen["name"] if chosen else None,
        "phoenix_label": label,
        "phoenix_explanation": chosen["explanation"] if chosen else None,
        "phoenix_annotations": annotations,
        "phoenix_error": error,
        "phoenix_trace_id": as_text(record.get("trace_id")),
        "phoenix_start_time": as_text(record.get("start_time")),
        "phoenix_input": _common.json_text(record.get("input")),
        "phoenix_reference_output": _common.json_text(record.get("reference_output")),
        "phoenix_metadata": _common.json_text(record.get("metadata")),
    }


def _count(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    return int(value)
