"""``scan_log``: a LazyFrame over a folder of evaluation logs, read one log at a time.

The logs are found and recognised as :func:`gradeframe.read_log` finds them, but nothing is read
until the query runs; then each log is read in turn and only the columns and rows the query
asks for are kept, so a query over a large folder holds one log's frame at a time beside its
result.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import polars as pl

from gradeframe.logs._common import IDENTITY, MEASURES, PathLike


def _schema(tools: list[str]) -> dict[str, pl.DataType]:
    """Return the columns of a scan: the common ones, every measure, then each tool's own."""
    from gradeframe.logs import READERS

    schema: dict[str, pl.DataType] = {**IDENTITY, **MEASURES}
    for tool in READERS:
        if tool in tools:
            schema.update(getattr(READERS[tool], "EXTRAS", {}))
    return schema


def _conformed(frame: pl.DataFrame, schema: dict[str, pl.DataType]) -> pl.DataFrame:
    """Return a log's frame in the scan's columns (a column its log lacks is null)."""
    unknown = [name for name in frame.columns if name not in schema]
    if unknown:  # a reader whose EXTRAS does not list a column it returns: a bug, said so
        where = frame["log"][0] if frame.height else "a log"
        msg = f"columns {unknown} of {where} are not in the scan's schema (the reader's EXTRAS)"
        raise AssertionError(msg)
    return frame.select(
        pl.col(name).cast(dtype) if name in frame.columns else pl.lit(None, dtype).alias(name)
        for name, dtype in schema.items()
    )


def scan_log(
    path: PathLike,
    *,
    tool: str | None = None,
    errors: Literal["raise", "skip"] = "raise",
    **options: Any,
) -> pl.LazyFrame:
    """Return a LazyFrame over evaluation logs (a file, or a folder of them), read lazily.

    The logs are read when the query runs, one log at a time: each log's frame is cut to the
    columns and rows the query needs before the next log is read, so a query that keeps a few
    columns, or filters rows, holds one log beside its result instead of the whole folder.
    The rows are those of :func:`gradeframe.read_log` (an inspect run saved twice, a run's
    shards beside its merged log, promptfoo results exported twice: each read once). The
    columns are known before any log is read: the common columns, every token, cost and
    seconds column (null where a log does not record it), then the columns of each tool whose
    logs the folder holds, in the readers' order.

    Parameters
    ----------
    path
        A log file, a HELM run folder, or a folder of logs (searched recursively).
    tool
        The tool that wrote the logs; default: recognised from each file.
    errors
        ``"raise"`` (default): a log that cannot be read raises a :class:`LogFormatError`
        naming it when the query runs. ``"skip"``: it is left out and named in one
        :class:`SkippedLogWarning` when the query has read every log.
    **options
        Passed to each tool's reader, as :func:`gradeframe.read_log` does.

    Returns
    -------
    polars.LazyFrame
        The logs' rows, read when collected.

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist, or a folder holds no log (at once, not when collected).

    Examples
    --------
    Count the attempts per tool of a folder of logs, reading only the column needed:

    >>> import polars as pl
    >>> import gradeframe as gf
    >>> logs = gf.example_logs()  # small real logs, shipped with gradeframe
    >>> scan = gf.scan_log(logs)
    >>> scan.group_by("tool").len().sort("tool").collect()
    shape: (10, 2)
    ┌──────────────┬─────┐
    │ tool         ┆ len │
    │ ---          ┆ --- │
    │ str          ┆ u32 │
    ╞══════════════╪═════╡
    │ braintrust   ┆ 14  │
    │ deepeval     ┆ 9   │
    │ eee          ┆ 22  │
    │ helm         ┆ 8   │
    │ inspect      ┆ 22  │
    │ langsmith    ┆ 14  │
    │ lm_eval      ┆ 17  │
    │ openai_evals ┆ 7   │
    │ phoenix      ┆ 14  │
    │ promptfoo    ┆ 40  │
    └──────────────┴─────┘
    """
    from gradeframe.logs import (
        _UNREADABLE,
        LogFormatError,
        _check_options,
        _options_for,
        _read_one,
        logs_to_read,
        warn_skipped,
    )

    path = Path(path)
    _, logs = logs_to_read(path, tool, errors)
    tools = sorted({t for t, _ in logs if t != _UNREADABLE})
    _check_options(tools, options)
    schema = _schema(tools)

    def source(
        with_columns: list[str] | None,
        predicate: pl.Expr | None,
        n_rows: int | None,
        _batch_size: int | None,
    ) -> Iterator[pl.DataFrame]:
        runs: dict[str, str] = {}  # inspect eval id -> the log it was read from
        seen_results: set[str] = set()  # promptfoo result ids
        failed: list[str] = []
        read_any = False
        left = n_rows
        for kind, log in logs:
            if left is not None and left <= 0:
                return
            try:
                frame = _read_one(kind, log, _options_for(kind, options))
            except LogFormatError as error:
                if errors == "raise" or (not read_any and len(failed) == len(logs) - 1):
                    raise  # (when no log can be read, the last error is raised)
                failed.append(str(error))
                continue
            read_any = True
            frame = _once(frame, runs, seen_results)
            if frame is None:
                continue
            frame = _conformed(frame, schema)
            if predicate is not None:
                frame = frame.filter(predicate)
            if with_columns is not None:
                frame = frame.select(with_columns)
            if left is not None:
                frame = frame.head(left)
                left -= frame.height
            yield frame
        if failed:
            warn_skipped(path, failed)

    from polars.io.plugins import register_io_source

    return register_io_source(source, schema=schema, explain_name="gradeframe.scan_log")


def _once(frame: pl.DataFrame, runs: dict[str, str], seen_results: set[str]) -> pl.DataFrame | None:
    """Return a log's frame without what a folder read counts once already.

    An inspect run read before, promptfoo results exported twice (as
    :func:`gradeframe.read_log` does); None when the whole log was read before.
    """
    from gradeframe.logs import DuplicateRunWarning

    if "inspect_eval_id" in frame.columns and frame.height:
        ids = frame.get_column("inspect_eval_id").drop_nulls().unique().to_list()
        log = frame.get_column("log")[0]
        if len(ids) == 1 and ids[0] in runs:
            message = (
                f"{log} holds the same inspect run as {runs[ids[0]]} (eval id {ids[0]}): "
                "it is read once, from the first"
            )
            warnings.warn(message, DuplicateRunWarning, stacklevel=4)
            return None
        if len(ids) == 1:
            runs[ids[0]] = log
    if "promptfoo_id" in frame.columns:
        key = pl.col("promptfoo_id")
        frame = frame.filter(
            key.is_null() | (key.is_first_distinct() & ~key.is_in(list(seen_results)))
        )
        seen_results.update(frame.get_column("promptfoo_id").drop_nulls().to_list())
    return frame
