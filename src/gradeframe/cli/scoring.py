"""Scoring the rows in chunks, with a progress bar on stderr."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Final, TextIO

import polars as pl

from gradeframe import answer as answer_rules
from gradeframe.cli._common import CHUNK_ROWS

#: Without ``rich``, progress lines start once scoring has run this many seconds, and come at
#: most this often.
PROGRESS_AFTER: Final = 2.0
PROGRESS_EVERY: Final = 1.0


# --------------------------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------------------------


@contextmanager
def _progress(total: int, err: TextIO | None) -> Iterator[Any]:
    """Yield ``advance(rows)``: a rich progress bar, or timed plain lines without rich."""
    if err is None:
        yield lambda rows: None
        return
    try:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
    except ImportError:
        yield _plain_progress(total, err)
        return
    columns = (
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(file=err), transient=False) as bar:
        task = bar.add_task("scoring", total=total)
        yield lambda rows: bar.advance(task, rows)


def _plain_progress(total: int, err: TextIO) -> Any:
    start = time.perf_counter()
    state = {"done": 0, "last": -PROGRESS_EVERY}

    def advance(rows: int) -> None:
        state["done"] += rows
        done, elapsed = state["done"], time.perf_counter() - start
        if elapsed >= PROGRESS_AFTER and elapsed - state["last"] >= PROGRESS_EVERY:
            state["last"] = elapsed
            left = (total - done) * elapsed / done if done else 0.0
            print(
                f"gradeframe: scored {done:,} of {total:,} rows ({done / total:.0%}), "
                f"{elapsed:.1f} s, about {left:.0f} s left",
                file=err,
                flush=True,
            )

    return advance


def score(
    frame: pl.DataFrame,
    *,
    grade: Callable[..., pl.DataFrame] = answer_rules.with_answer_contains,
    answer: Any = "answer",
    refs: Any = "refs",
    chunk_rows: int = CHUNK_ROWS,
    progress: TextIO | None = None,
    **kwargs: Any,
) -> pl.DataFrame:
    """Grade a frame in chunks of rows, showing progress on long runs.

    ``grade`` is the frame function of ``--grader`` (answer_contains by default), called as
    ``grade(chunk, answer, refs, **kwargs)``: the answer, and the acceptable answers or the
    column a matcher compares with.
    """
    # Check the columns and arguments once, on the whole frame, before any row is scored.
    grade(frame.clear(), answer, refs, **kwargs)
    total = frame.height
    if total <= chunk_rows:
        return grade(frame, answer, refs, **kwargs)
    parts = []
    with _progress(total, progress) as advance:
        for offset in range(0, total, chunk_rows):
            chunk = frame.slice(offset, chunk_rows)
            parts.append(grade(chunk, answer, refs, **kwargs))
            advance(chunk.height)
    return pl.concat(parts, how="vertical")
