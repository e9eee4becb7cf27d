from __future__ import annotations

import polars as pl

import gradeframe as gf
from gradeframe import kinds
from gradeframe.example import EXAMPLE_SCHEMA


def test_example_shape_and_schema() -> None:
    df = gf.example()
    assert df.shape == (120, 5)
    assert df.schema == EXAMPLE_SCHEMA
    assert df["model"].n_unique() == 4
    assert df["question_id"].n_unique() == 30


def test_every_failure_kind_occurs() -> None:
    graded = gf.example().grade.answer_contains()
    found = set(graded["failure_kind"].drop_nulls())
    assert set(kinds.KINDS) <= found
    assert "timeout" in found  # a carried kind


def test_number_traps_are_in_the_example() -> None:
    graded = gf.example().grade.answer_contains()
    outcome = dict(
        zip(
            graded.select(pl.concat_str("model", "question_id", separator="/")).to_series(),
            graded["correct"],
            strict=True,
        )
    )
    assert outcome["atlas-small/q06"] is False  # 145.2 is not 45.2
    assert outcome["cedar-mini/q06"] is False  # 45.25 is not 45.2
    assert outcome["atlas-small/q17"] is False  # 12 is not -12
    assert outcome["atlas-large/q17"] is True  # U+2212 minus folds to "-"
    assert outcome["atlas-large/q04"] is True  # 1 204 with a thin space is 1204
    assert outcome["atlas-small/q04"] is True  # 1,204 is 1204
    assert outcome["cedar-mini/q11"] is False  # 3,120 is not 312
    assert outcome["atlas-small/q15"] is True  # 12-15 contains 15


def test_example_document() -> None:
    text = gf.example_document()
    assert "1\u2009204 tonnes" in text
    assert "£45.2 m" in text
