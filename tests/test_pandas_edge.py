"""A pandas frame is converted once at the edge of each public summary call (issue 31, item 4).

The trap: ``gf.report(pandas_df)`` went pandas -> Polars -> pandas -> Polars -> pandas, through
``report_counts`` and ``report_from_counts`` each converting on its own. Every conversion is
counted here: gradeframe's own (``_frames.to_polars``, ``_frames.to_pandas_frame``) and Polars'
(``pl.from_pandas``, ``pl.DataFrame.to_pandas``); at most one each way per call.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pandas as pd
import polars as pl
import pytest

import gradeframe as gf
from gradeframe import _frames


def _graded() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model": ["a", "a", "b", "b"] * 3,
            "question_id": ["q1", "q2"] * 6,
            "answer": ["12", "7", "12", "8"] * 3,
            "correct": [True, False, True, True, False, False] * 2,
            "failure_kind": [None, "wrong", None, None, "wrong", "wrong"] * 2,
        }
    )


#: Every public summary function that takes a frame, called on a pandas frame.
CALLS: dict[str, Callable[[pd.DataFrame], Any]] = {
    "report": lambda f: gf.report(f, "model"),
    "report_counts": lambda f: gf.report_counts(f, "model"),
    "report_from_counts": lambda f: gf.report_from_counts(
        gf.report_counts(f.pipe(pl.from_pandas), "model").to_pandas(), "model"
    ),
    "failures": lambda f: gf.failures(f, actual="answer", expected=False),
    "compare": lambda f: gf.compare(f, by="model", on="question_id"),
    "agreement": lambda f: gf.agreement(f.assign(b=f["correct"]), "correct", "b"),
    "pass_at_k": lambda f: gf.pass_at_k(f, k=1, by="model", on="question_id"),
    "consistency": lambda f: gf.consistency(f, by="model", on="question_id"),
    "flaky": lambda f: gf.flaky(f, by="model", on="question_id"),
    "chart": lambda f: gf.chart(f, "model"),
    "compare_chart": lambda f: gf.compare_chart(f, "model", "question_id"),
    "pass_at_k_chart": lambda f: gf.pass_at_k_chart(f, by="model", on="question_id"),
    "html_report": lambda f: gf.html_report(f),
}
#: These return a chart or a page, not a frame: nothing goes back to pandas.
NOT_FRAMES = {"chart", "compare_chart", "pass_at_k_chart", "html_report"}


@pytest.mark.parametrize("name", list(CALLS))
def test_a_pandas_frame_is_converted_once_each_way(monkeypatch, name) -> None:
    frame = _graded()
    if name == "report_from_counts":
        counts = gf.report_counts(pl.from_pandas(frame), "model").to_pandas()
        call: Callable[[], Any] = lambda: gf.report_from_counts(counts, "model")  # noqa: E731
    else:
        call = lambda: CALLS[name](frame)  # noqa: E731
    seen: Counter[str] = Counter()

    def counted(key: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            seen[key] += 1
            return function(*args, **kwargs)

        return run

    monkeypatch.setattr(_frames, "to_polars", counted("in", _frames.to_polars))
    monkeypatch.setattr(_frames, "to_pandas_frame", counted("out", _frames.to_pandas_frame))
    monkeypatch.setattr(pl, "from_pandas", counted("in", pl.from_pandas))
    monkeypatch.setattr(pl.DataFrame, "to_pandas", counted("out", pl.DataFrame.to_pandas))
    if name in NOT_FRAMES and name != "html_report":
        pytest.importorskip("altair")
    result = call()
    if name in NOT_FRAMES:
        assert result is not None
        assert seen["out"] == 0, f"{name}: converted back to pandas"
    else:
        assert isinstance(result, pd.DataFrame)
        assert len(result) > 0
    assert seen["in"] == 1, f"{name}: {seen['in']} conversions to Polars"
    assert seen["out"] <= 1, f"{name}: {seen['out']} conversions back to pandas"
