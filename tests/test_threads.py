"""Several threads grading at once finish, with the same answers (issue 23, item 4).

The trap: rules that run a Python callback which itself runs a Polars query (``_subset.on_rows``,
the long-pattern fallback) deadlocked when several threads graded at once: eight threads each
running ``df.to_pandas().grade.answer_contains(...)`` hung for ever at 0 % CPU, on frames of
1,000 rows as of 20,000. Grading calls now take turns (``gradeframe._threads``).
"""

from __future__ import annotations

import contextlib
import faulthandler
import inspect
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pandas as pd
import polars as pl
import pytest
from polars.testing import assert_frame_equal, assert_series_equal

import gradeframe
from gradeframe import _threads

THREADS = 8
CALLS = 20
ROWS = 1_000
#: A deadlock must fail the suite, never hang it: past this, every thread's stack is written to
#: stderr and the process exits (faulthandler's watchdog is C code, so it fires even when a
#: deadlocked thread holds the GIL and no join timeout could return).
HARD_TIMEOUT_S = 120


def _frame(rows: int = ROWS) -> pl.DataFrame:
    """Answers that take every costly step: separators, wide text, boundary misses, not-found."""
    kinds = [
        ("The answer is {n:,} units.", ["{n}"], "B"),  # a thousands separator
        ("Il a coûté {n} €, soit {m}.", ["{n}"], "(C)"),  # wide text
        ("It was 1{n}5 then {n}.", ["{n}"], "ANSWER: A"),  # first occurrence breaks a rule
        ("NOT_IN_DOCUMENT", ["NOT_IN_DOCUMENT"], "D"),
        ("I could not find that in the document.", ["{n}"], "B"),
        ("Paris, {n}", ["Paris", "Lutetia"], "the answer is C"),
        ("Only 1{n}5 here.", ["{n}"], "A"),  # the only occurrence breaks a rule: wrong
    ]
    answers, refs, letters = [], [], []
    for i in range(rows):
        text, wanted, letter = kinds[i % len(kinds)]
        n, m = 1000 + (i * 7919) % 90000, i % 97
        answers.append(text.format(n=n, m=m))
        refs.append([w.format(n=n) for w in wanted])
        letters.append(letter)
    return pl.DataFrame(
        {
            "model": ["a", "b"] * (rows // 2) + ["a"] * (rows % 2),
            "answer": answers,
            "refs": refs,
            "reply": letters,
            "key": ["B", "C", "A", "D", "B", "C", "A"] * (rows // 7) + ["B"] * (rows % 7),
        }
    )


def _in_threads(work: Callable[[int, int], Any]) -> None:
    """Run ``work(thread, call)`` CALLS times in each of THREADS threads; raise what they raise."""
    errors: list[BaseException] = []

    def body(slot: int) -> None:
        try:
            for call in range(CALLS):
                work(slot, call)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(THREADS)]
    faulthandler.dump_traceback_later(HARD_TIMEOUT_S, exit=True, file=sys.__stderr__)
    try:
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + HARD_TIMEOUT_S
        for thread in threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
    finally:
        faulthandler.cancel_dump_traceback_later()
    alive = [thread.name for thread in threads if thread.is_alive()]
    assert not alive, f"threads still running after {HARD_TIMEOUT_S} s: {alive}"
    if errors:
        raise errors[0]


@contextlib.contextmanager
def _lock_held_by_another_thread() -> Iterator[None]:
    """Hold the grading lock in another thread for the duration of the block."""
    held, release = threading.Event(), threading.Event()

    def holder() -> None:
        with _threads._lock:
            held.set()
            release.wait(timeout=60)

    thread = threading.Thread(target=holder, daemon=True)
    thread.start()
    assert held.wait(timeout=10)
    try:
        yield
    finally:
        release.set()
        thread.join(timeout=60)


def test_eight_threads_grading_polars_and_pandas_frames_at_once_finish_alike() -> None:
    frame = _frame()
    expected = frame.grade.answer_contains("answer", "refs")
    expected_pandas = frame.to_pandas().grade.answer_contains("answer", "refs")
    assert set(expected.get_column("failure_kind")) == {None, "wrong", "not_in_document"}
    expected_exact = frame.grade.exact_match("answer", "refs", fold=True)
    expected_includes = frame.grade.includes("answer", "refs", fold=True)
    expected_choice = frame.grade.choice("reply", "key")
    expected_f1 = frame.grade.f1("answer", "refs")
    expected_numbers = frame.get_column("answer").grade.extract_number()
    expected_report = gradeframe.report(expected, by="model")

    def work(slot: int, call: int) -> None:
        step = (slot + call) % 6
        if step == 0:  # the probe's own call: a pandas frame made in the thread
            graded = frame.to_pandas().grade.answer_contains("answer", "refs")
            pd.testing.assert_frame_equal(graded, expected_pandas)
        elif step == 1:
            assert_frame_equal(frame.grade.answer_contains("answer", "refs"), expected)
        elif step == 2:
            assert_frame_equal(frame.grade.exact_match("answer", "refs", fold=True), expected_exact)
            assert_frame_equal(frame.grade.includes("answer", "refs", fold=True), expected_includes)
        elif step == 3:
            assert_frame_equal(frame.grade.choice("reply", "key"), expected_choice)
            assert_frame_equal(frame.grade.f1("answer", "refs"), expected_f1)
        elif step == 4:
            numbers = frame.get_column("answer").grade.extract_number()
            assert_series_equal(numbers, expected_numbers)
        else:
            graded = gradeframe.with_answer_contains(frame, "answer", "refs")
            assert_frame_equal(gradeframe.report(graded, by="model"), expected_report)

    _in_threads(work)


def test_the_expression_form_never_waits_for_the_lock() -> None:
    # The expression form grades inside a Polars callback (gradeframe._deferred), on one of Polars'
    # threads: taking the lock there would wait for whichever thread holds it, and that thread
    # may be waiting for Polars' threads.
    frame = _frame(70)
    expected = frame.grade.answer_contains("answer", "refs")
    with _lock_held_by_another_thread():
        graded = frame.select(gradeframe.answer_contains("answer", "refs").alias("result"))
        built = frame.select(pl.col("answer").grade.fold())
    result = graded.get_column("result").struct.unnest()
    assert_frame_equal(result, expected.select("correct", "failure_kind", "outcome"))
    assert built.height == frame.height


def test_frame_methods_and_functions_run_under_the_lock_and_builders_do_not() -> None:
    frame = _frame(14)
    seen: list[bool] = []

    def spy(batch: pl.Series) -> pl.Series:
        # Whether some thread holds the lock: this one (the callback may run on the calling
        # thread), or another (it may run on one of Polars' threads).
        if _threads._lock._is_owned():  # type: ignore[attr-defined]
            seen.append(True)
        elif _threads._lock.acquire(blocking=False):
            _threads._lock.release()
            seen.append(False)
        else:
            seen.append(True)
        return batch

    expression = pl.col("answer").map_batches(spy, return_dtype=pl.String)
    frame.grade.answer_contains(expression, "refs")
    assert seen
    assert all(seen)
    seen.clear()
    gradeframe.with_exact_match(frame, expression, "refs")
    assert seen
    assert all(seen)
    seen.clear()
    frame.select(expression)  # the user's own query: not gradeframe's to serialize
    assert seen
    assert not any(seen)
    # An expression method builds and runs nothing: it is not wrapped (it may be called inside
    # a callback, where the lock must not be taken).
    assert not hasattr(type(pl.col("a").grade).fold, "__wrapped__")
    assert hasattr(type(frame.grade).answer_contains, "__wrapped__")
    assert hasattr(type(frame.to_pandas().grade).answer_contains, "__wrapped__")
    assert hasattr(type(frame.get_column("answer").grade).fold, "__wrapped__")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_gets_a_lock_of_its_own() -> None:
    # A child made by fork while another thread of the parent holds the lock would otherwise
    # wait for a thread that does not exist in it.
    with _lock_held_by_another_thread():
        pid = os.fork()
        if pid == 0:  # the child: exit 0 when the lock is free in it
            os._exit(0 if _threads._lock.acquire(timeout=5) else 1)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_every_exported_frame_function_runs_under_the_lock() -> None:
    # Each frame function is wrapped where it is defined: a new one must not be missed.
    functions = {
        name: getattr(gradeframe, name)
        for name in gradeframe.__all__
        if inspect.isfunction(getattr(gradeframe, name))
    }
    takes_frame = {
        name
        for name, function in functions.items()
        if next(iter(inspect.signature(function).parameters), None) in {"frame", "counts"}
    }
    assert {"with_answer_contains", "report", "html_report", "pass_at_k"} <= takes_frame
    assert {n for n in takes_frame if not hasattr(functions[n], "__wrapped__")} == set()
    # The expression functions are never wrapped.
    assert not hasattr(gradeframe.answer_contains, "__wrapped__")
    assert not hasattr(gradeframe.exact_match, "__wrapped__")
