"""The status vocabulary: each value read as its row of the chain, unknown values named once.

Every case runs on Polars eager, Polars lazy, pandas with object columns and pandas with Arrow
columns (the ``constructor`` fixture); the command line, Dask and the expression form below.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from gradeframe import StatusWarning, kinds
from tests.utils import to_data

# (status, the kind of a row whose answer holds no acceptable answer)
READ_AS = [
    *[(value, "error") for value in ("error", "failed", "failure", "exception", "timeout")],
    *[(value, "refusal") for value in ("refused", "refusal", "content_filter")],
    *[(value, "budget_stop") for value in ("length", "max_tokens")],
    *[(value, "wrong") for value in kinds.FINISHED_STATUSES],
    (None, "wrong"),
    ("", "wrong"),
    ("  ", "wrong"),
    (" TimeOut ", "error"),
    ("MAX_TOKENS", "budget_stop"),
]


@pytest.mark.parametrize(("status", "kind"), READ_AS, ids=[repr(s) for s, _ in READ_AS])
def test_each_status_is_read_as_its_row_of_the_chain(constructor: Any, status, kind) -> None:
    data = {"answer": ["Lyon", "It is Paris."], "refs": ["Paris", "Paris"], "status": [status] * 2}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a status in a vocabulary is read without a warning
        out = to_data(constructor(data).grade.answer_contains())
    assert out["failure_kind"][0] == kind
    # an error is never right; a stopped or refused run that found the answer is
    if kind == "error":
        assert out["correct"][1] is False
        assert out["failure_kind"][1] == "error"
    else:
        assert out["correct"][1] is True


def test_a_token_budget_status_leaves_an_empty_reply_a_budget_stop(constructor: Any) -> None:
    data = {"answer": ["", None], "refs": ["Paris", "Paris"], "status": ["length", "max_tokens"]}
    out = to_data(constructor(data).grade.answer_contains())
    assert out["failure_kind"] == ["budget_stop", "budget_stop"]


UNREAD = {
    "answer": ["Paris", "Lyon", "Lyon", "Paris", "x", "y"],
    "refs": ["Paris"] * 6,
    "status": ["pending", "queued", " Pending", "ok", "PENDING", None],
}
MESSAGE = r"status values not read: 'pending' \(3\), 'queued' \(1\); each row was read as a normal"


def test_unknown_statuses_are_named_once_with_their_counts(constructor: Any) -> None:
    with pytest.warns(StatusWarning, match=MESSAGE) as caught:
        out = constructor(UNREAD).grade.answer_contains()
    assert len([w for w in caught if issubclass(w.category, StatusWarning)]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a LazyFrame warned when the call was made, not now
        data = to_data(out)
    assert data["failure_kind"] == [None, "wrong", "wrong", None, "wrong", "wrong"]


def test_the_status_warning_points_at_the_users_call_not_into_gradeframe(constructor: Any) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        constructor(UNREAD).grade.answer_contains()
    statuses = [w for w in caught if issubclass(w.category, StatusWarning)]
    assert [Path(w.filename).name for w in statuses] == [Path(__file__).name]


def test_a_lazy_frame_warns_when_the_call_is_made_not_at_collect() -> None:
    with pytest.warns(StatusWarning, match=MESSAGE):
        lazy = pl.LazyFrame(UNREAD).grade.answer_contains()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lazy.collect()


def test_unknown_status_in_an_output_record_is_named_too() -> None:
    frame = pl.DataFrame(
        {"output": [{"answer": "Lyon", "status": "cancelled"}], "refs": [["Paris"]]}
    )
    with pytest.warns(StatusWarning, match=r"'cancelled' \(1\)"):
        out = frame.grade.answer_contains("output", "refs")
    assert out["failure_kind"].to_list() == ["wrong"]


def test_the_vocabularies_do_not_overlap() -> None:
    groups = [
        kinds.ERROR_STATUSES,
        kinds.REFUSAL_STATUSES,
        kinds.BUDGET_STATUSES,
        kinds.FINISHED_STATUSES,
    ]
    assert sum(len(g) for g in groups) == len(set(kinds.KNOWN_STATUSES))
    assert all(value == value.strip().lower() for value in kinds.KNOWN_STATUSES)


def test_the_command_line_says_unknown_statuses_once_on_stderr(tmp_path: Path) -> None:
    from gradeframe.cli import main

    path = tmp_path / "runs.csv"
    pl.DataFrame(UNREAD).write_csv(path)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["score", str(path), "--chunk-rows", "2", "-q"])
    assert status == 0
    lines = [line for line in err.getvalue().splitlines() if "status values" in line]
    assert lines == [
        "gradeframe: warning: status values not read: 'pending' (3), 'queued' (1); "
        "each row was read as a normal finish"
    ]


def test_dask_partitions_warn_where_they_are_graded() -> None:
    dd = pytest.importorskip("dask.dataframe")
    import dask

    import gradeframe.dask  # noqa: F401  (registers .grade on Dask frames)

    ddf = dd.from_pandas(pl.DataFrame(UNREAD).to_pandas(), npartitions=2)
    with dask.config.set(scheduler="sync"), pytest.warns(StatusWarning, match="'pending'"):
        out = ddf.grade.answer_contains().compute()
    assert list(out["failure_kind"].fillna("-")) == ["-", "wrong", "wrong", "-", "wrong", "wrong"]
