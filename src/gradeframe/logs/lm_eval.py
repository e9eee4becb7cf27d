"""Read lm-evaluation-harness sample logs: ``samples_<task>_<time>.jsonl`` (``--log_samples``).

lm-eval writes one line per document *and filter*. By default each line is one row: the answer
is the filtered response (``"[invalid]"``, the regex filter's "no match", becomes null), the
acceptable answers are the target, which lm-eval writes as the Python ``str()`` of the value (so
it is read with :func:`ast.literal_eval`, not as JSON), and ``lm_eval_filter`` says which filter
made the row. Multiple-choice lines have no text answer: the answer is the continuation with the
highest log-likelihood and the acceptable answers are the gold continuations. With
``responses="raw"`` each repeat of a generation (``repeats:`` in the task) is a row of its own,
taken before any filter. lm-eval records no stop reason, error, refusal, tokens or time per
sample, so ``partial``, ``notes``, ``trace`` and ``status`` are null.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import polars as pl

from gradeframe.logs._common import (
    PathLike,
    as_text,
    as_text_list,
    build_frame,
    concat,
    first_json_line,
    iter_json_lines,
    json_text,
    load_json,
    log_error,
    output_record,
    record_row,
)

TOOL = "lm_eval"

EXTRAS: dict[str, pl.DataType] = {
    "lm_eval_filter": pl.String(),
    "lm_eval_doc_id": pl.Int64(),
    "lm_eval_metric": pl.String(),
    "lm_eval_metrics": pl.String(),
    "lm_eval_target": pl.String(),
    "lm_eval_resps": pl.List(pl.String),
    "lm_eval_doc": pl.String(),
}

INVALID = "[invalid]"  # the regex filter's "no match"
# The record field behind each column (named when a value does not fit the column).
_FIELDS = {"lm_eval_doc_id": "doc_id", "lm_eval_filter": "filter", "sample_id": "doc.id"}
_SAMPLES = re.compile(r"^samples_(?P<task>.+)_(?P<time>\d{4}-\d\d-\d\dT[\d.:-]+)\.jsonl$")
SAMPLES_NAME = _SAMPLES  # the name lm-eval gives a samples file
_RESULTS = re.compile(r"^results_(?P<time>\d{4}-\d\d-\d\dT[\d.:-]+)\.json$")


def detect(path: PathLike) -> bool:
    """Return whether ``path`` is an lm-eval samples file (``samples_*.jsonl``)."""
    path = Path(path)
    if not path.is_file() or path.suffix != ".jsonl":
        return False
    first = first_json_line(path)
    return first is not None and "doc_id" in first and "filtered_resps" in first


def is_results(path: PathLike) -> bool:
    """Return whether ``path`` is lm-eval's aggregate ``results_*.json`` (not a per-sample log)."""
    return bool(_RESULTS.match(Path(path).name))


def read(
    path: PathLike,
    *,
    filter: str | Sequence[str] | None = None,  # lm-eval's own word for it
    responses: Literal["filtered", "raw"] = "filtered",
) -> pl.DataFrame:
    """Read one lm-eval ``samples_*.jsonl`` file into the common columns.

    Parameters
    ----------
    path
        The samples file. The model name is taken from the ``results_*.json`` beside it (the
        run with the same time stamp), else from the folder name.
    filter
        Keep only the rows of this filter (``"raw"``, ``"none"``, a regex filter's name...), or
        of the first of a list of them that the file has (for a folder of tasks with different
        filters); default: every filter, told apart by ``lm_eval_filter``.
    responses
        ``"filtered"`` (default): one row per document and filter, answering with the filtered
        response that lm-eval graded. ``"raw"``: one row per document and repeat, answering with
        each raw generation (``epoch`` is the repeat, from 1); lm-eval graded none of them one by
        one, so ``tool_score`` and ``tool_correct`` are null.

    Returns
    -------
    polars.DataFrame
        One row per graded attempt.
    """
    if responses not in ("filtered", "raw"):
        msg = f"`responses` must be 'filtered' or 'raw', got {responses!r}"
        raise ValueError(msg)
    path = Path(path)
    match = _SAMPLES.match(path.name)
    task = match["task"] if match else path.stem.removeprefix("samples_")
    context = {"log": os.fspath(path), "model": _model_name(path, match), "task": task}
    wanted = None if filter is None else [filter] if isinstance(filter, str) else list(filter)
    # The lines are read one at a time and their rows built into frames in batches, so a large
    # log is never held whole as Python objects. With `filter`, each
    # wanted filter's rows are kept apart until the file says which of them it has.
    batches: dict[str | None, _Batches] = {}
    filters: dict[str, None] = {}
    seen: set[tuple[str | None, str | None]] = set()
    for number, record in iter_json_lines(path):
        if not isinstance(record, dict) or "doc_id" not in record:
            raise log_error(path, "not an lm-eval sample record (no 'doc_id')", line=number)
        name = str(record.get("filter"))
        filters.setdefault(name)
        if wanted is not None and name not in wanted:
            continue
        bucket = batches.setdefault(name if wanted is not None else None, _Batches())
        where = f"{os.fspath(path)}, line {number}"
        if responses == "raw":
            key = (name if wanted is not None else None, as_text(record["doc_id"]))
            if key in seen:  # the same raw responses on every filter's line
                continue
            seen.add(key)
            bucket.add(
                record_row(_raw_rows, record, context, where=where, what="the record"), where
            )
        else:
            bucket.add([record_row(_row, record, context, where=where, what="the record")], where)
    chosen = None
    if wanted is not None:
        chosen = next((name for name in wanted if name in filters), None)
        if chosen is None:
            msg = f"`filter={filter!r}`: {path} has no such filter; its filters are {list(filters)}"
            raise ValueError(msg)
    return batches.get(chosen, _Batches()).frame()


#: Rows built into one frame at a time while a samples file is read.
BATCH_ROWS = 5_000


class _Batches:
    """The rows of a samples file, built into frames ``BATCH_ROWS`` at a time."""

    def __init__(self) -> None:
        self.frames: list[pl.DataFrame] = []
        self.rows: list[dict[str, Any]] = []
        self.locations: list[tuple[PathLike, str]] = []

    def add(self, rows: list[dict[str, Any]], where: str) -> None:
        self.rows.extend(rows)
        self.locations.extend([(where, "the record")] * len(rows))
        if len(self.rows) >= BATCH_ROWS:
            self._build()

    def _build(self) -> None:
        self.frames.append(build_frame(self.rows, EXTRAS, locations=self.locations, fields=_FIELDS))
        self.rows, self.locations = [], []

    def frame(self) -> pl.DataFrame:
        """Return every row read, as one frame."""
        if self.rows or not self.frames:
            self._build()
        return concat(self.frames)


def _model_name(path: Path, match: re.Match[str] | None) -> str:
    """Return the model name from the results file, else the folder (``/`` written ``__``)."""
    candidates = sorted(path.parent.glob("results_*.json"))
    if match:
        same_run = [c for c in candidates if match["time"] in c.name]
        candidates = same_run or candidates
    for candidate in candidates:
        results = load_json(candidate)
        if isinstance(results, dict) and isinstance(results.get("model_name"), str):
            return results["model_name"]
    return path.parent.name.replace("__", "/")


def _literal(text: Any) -> Any:
    """Read a target that lm-eval wrote as the ``str()`` of a Python value."""
    if not isinstance(text, str):
        return text
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text  # a plain string target is written as it is


def _target_refs(target: Any) -> list[str] | None:
    """Return a generation target's acceptable answers.

    lm-eval writes ``str(target)``: a list target is the Python text of a list. Any other text
    is the answer as written ("1,204" is one answer, not the tuple Python would read).
    """
    if isinstance(target, list):
        return as_text_list(target)
    value = _literal(target)
    if isinstance(value, list):
        return as_text_list(value)
    return as_text_list(target)


def _arguments(record: dict[str, Any]) -> list[list[Any]]:
    """Return the request arguments as lists (both layouts lm-eval has written)."""
    arguments = record.get("arguments")
    if isinstance(arguments, dict):
        return [
            [args[k] for k in sorted(args, key=lambda k: int(k.split("_")[-1]))]
            if isinstance(args, dict)
            else list(args)
            for _, args in sorted(arguments.items(), key=lambda kv: int(kv[0].split("_")[-1]))
        ]
    if isinstance(arguments, list):
        return [list(a) if isinstance(a, list | tuple) else [a] for a in arguments]
    return []


def _loglikelihoods(responses: list[Any]) -> list[tuple[float, bool]] | None:
    """Return ``(log-likelihood, is_greedy)`` pairs when the responses are log-likelihoods."""
    pairs = []
    for response in responses:
        if isinstance(response, list) and len(response) == 1 and isinstance(response[0], list):
            response = response[0]  # resps nests each pair one level deeper
        if not isinstance(response, list | tuple) or len(response) != 2:
            return None
        value, greedy = response
        pairs.append((float(value), str(greedy) == "True" or greedy is True))
    return pairs


def _scores_continuations(record: dict[str, Any]) -> bool:
    """Whether the requests score given continuations (log-likelihoods), not generate text.

    A generation request's second argument is its generation settings (an object); a
    log-likelihood request's is the continuation text.
    """
    arguments = _arguments(record)
    if arguments and len(arguments[0]) > 1:
        return isinstance(arguments[0][1], str)
    filtered = record.get("filtered_resps") or []
    return bool(filtered) and not isinstance(filtered[0], str)


def _metric(record: dict[str, Any]) -> tuple[str | None, Any]:
    names = record.get("metrics") or [k for k in ("exact_match", "acc") if k in record]
    for name in names:
        if name in record:
            return name, record[name]
    return None, None


def _verdict(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return value == 1
    return None


def _choice_answer(
    record: dict[str, Any], pairs: list[tuple[float, bool]]
) -> tuple[str | None, list[str] | None]:
    """Answer and acceptable answers of a multiple-choice (or single log-likelihood) line."""
    continuations = [
        args[1].strip() if len(args) > 1 and isinstance(args[1], str) else None
        for args in _arguments(record)
    ]
    target = _literal(record.get("target"))
    if len(pairs) == 1:  # one continuation: right when it is the greedy one
        answer = continuations[0] if continuations and pairs[0][1] else None
        return answer, as_text_list(continuations[:1])
    best = max(range(len(pairs)), key=lambda i: pairs[i][0])
    answer = continuations[best] if best < len(continuations) else None
    golds = target if isinstance(target, list) else [target]
    refs = []
    for gold in golds:
        if isinstance(gold, int) and not isinstance(gold, bool) and 0 <= gold < len(continuations):
            refs.append(continuations[gold])
        elif gold is not None:
            refs.append(as_text(gold))
    return answer, [r for r in refs if r is not None]


def _common(record: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    arguments = _arguments(record)
    doc = record.get("doc")
    doc_key = doc.get("id") if isinstance(doc, dict) else None
    sample_id = doc_key if isinstance(doc_key, str | int) else record["doc_id"]
    return {
        "tool": TOOL,
        **context,
        "sample_id": str(sample_id),
        "input": as_text(arguments[0][0]) if arguments and arguments[0] else None,
        "lm_eval_doc_id": record["doc_id"],
        "lm_eval_target": as_text(record.get("target")),
        "lm_eval_doc": json_text(doc),
    }


def _generations(record: dict[str, Any]) -> list[str] | None:
    responses = record.get("resps") or []
    first = responses[0] if responses else None
    if isinstance(first, list) and all(isinstance(r, str) for r in first):
        return first
    return None


def _row(record: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
    filtered = record.get("filtered_resps") or []
    pairs = _loglikelihoods(filtered) if _scores_continuations(record) else None
    if pairs is not None:
        answer, refs = _choice_answer(record, pairs)
    else:
        answer = filtered[0] if filtered else None
        while isinstance(answer, list):  # no take_first filter: the repeats, first one graded
            answer = answer[0] if answer else None
        answer = None if answer == INVALID else as_text(answer)
        refs = _target_refs(record.get("target"))
    name, value = _metric(record)
    return {
        **_common(record, context),
        "epoch": 1,
        "output": output_record(answer),
        "refs": refs,
        "tool_score": as_text(value),
        "tool_correct": _verdict(value),
        "lm_eval_filter": as_text(record.get("filter")),
        "lm_eval_metric": name,
        "lm_eval_metrics": json_text({m: record.get(m) for m in record.get("metrics") or []}),
        "lm_eval_resps": _generations(record),
    }


def _raw_rows(record: dict[str, Any], context: dict[str, Any]) -> list[dict[str, Any]]:
    generations = _generations(record)
    if generations is None:  # log-likelihood requests have no repeats: the filtered row
        return [{**_row(record, context), "lm_eval_filter": None}]
    refs = _target_refs(record.get("target"))
    common = _common(record, context)
    return [
        {**common, "epoch": i, "output": output_record(text), "refs": refs, "lm_eval_resps": None}
        for i, text in enumerate(generations, start=1)
    ]
