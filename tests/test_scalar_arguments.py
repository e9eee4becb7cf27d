"""Scalar expressions broadcast like any Polars argument, on every surface (issue 31, item 2).

The trap: the expression form of answer_contains used to run the frame function inside a Polars
callback, which made a frame of its inputs and failed at collect with a shape error when one of
them was ``pl.lit(...)`` (one row beside many), where ``gf.exact_match`` worked. Now one
mechanism (``gradeframe._deferred``) builds every expression form, and a literal equals a column
holding the same value in every row, whatever the surface.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import gradeframe as gf
from gradeframe import answer
from tests.utils import assert_equal_data, to_data

ANSWERS = ["It is 12,400.", "About 45 m", "NOT_IN_DOCUMENT", None, "I cannot help with that."]
REFS = ["12400", "45", "NOT_IN_DOCUMENT", "7", "12400"]

#: (argument, the column's constant value, other columns): the argument names a column holding
#: the value in every row, or is given as pl.lit(value).
ANSWER_CASES: list[tuple[str, Any, dict[str, list[Any]]]] = [
    ("answer", "It is 12,400.", {"refs": REFS}),
    ("refs", "12400", {"answer": ANSWERS}),
    ("refs", ["45", "12400"], {"answer": ANSWERS}),
    ("refs", 12400, {"answer": ANSWERS}),
    ("status", "error", {"answer": ANSWERS, "refs": REFS}),
    ("partial", True, {"answer": ANSWERS, "refs": REFS, "notes": ["budget"] * 5}),
    ("not_found", True, {"answer": ANSWERS, "refs": REFS}),
    ("refusal", True, {"answer": ANSWERS, "refs": REFS}),
]
OUTPUTS = ["correct", "failure_kind", "outcome"]


def _arguments(argument: str, value: Any, others: dict[str, list[Any]]) -> dict[str, Any]:
    """The keyword arguments naming every column (``notes`` only where the frame has it)."""
    names = {"answer": "answer", "refs": "refs", argument: value}
    if "notes" in others:
        names["notes"] = "notes"
    return names


def _column_form(argument: str, value: Any, others: dict[str, list[Any]]) -> dict[str, list]:
    frame = pl.DataFrame({**others, argument: [value] * 5})
    graded = gf.with_answer_contains(frame, **_arguments(argument, argument, others))
    return to_data(graded.select(OUTPUTS))


@pytest.mark.parametrize(("argument", "value", "others"), ANSWER_CASES)
def test_answer_contains_literal_equals_the_column_in_the_expression_form(
    argument, value, others
) -> None:
    expected = _column_form(argument, value, others)
    frame = pl.DataFrame(others)
    kwargs = _arguments(argument, pl.lit(value), others)
    deferred = frame.select(gf.answer_contains(**kwargs)).unnest("answer_contains")
    assert_equal_data(deferred, expected)
    built = frame.select(gf.answer_contains(**kwargs, schema=frame.schema))
    assert_equal_data(built.unnest("answer_contains"), expected)


@pytest.mark.parametrize(("argument", "value", "others"), ANSWER_CASES)
def test_answer_contains_literal_equals_the_column_on_every_frame(
    constructor, argument, value, others
) -> None:
    expected = _column_form(argument, value, others)
    kwargs = _arguments(argument, pl.lit(value), others)
    assert_equal_data(constructor(others).grade.answer_contains(**kwargs), expected)
    polars_frame = pl.DataFrame(others)
    assert_equal_data(gf.with_answer_contains(polars_frame.lazy(), **kwargs), expected)


def test_answer_contains_both_inputs_literal_fill_every_row() -> None:
    frame = pl.DataFrame({"model": ["a", "b", "c"]})
    got = frame.select(gf.answer_contains(pl.lit("It is 12,400."), pl.lit("12400")))
    assert got.unnest("answer_contains").get_column("correct").to_list() == [True] * 3


#: Every matcher with the arguments naming columns; the one given as a literal is ``argument``.
MATCHER_CASES: list[tuple[str, dict[str, Any], str, Any, dict[str, list[Any]]]] = [
    ("exact_match", {}, "expected", "paris", {"actual": ["Paris", "paris ", "Lyon", None]}),
    ("exact_match", {}, "actual", "Paris", {"expected": ["Paris", "paris", "Lyon", "x"]}),
    ("includes", {}, "expected", "par", {"actual": ["Paris", "a pair", "Lyon", None]}),
    ("includes", {}, "expected", ["par", "ly"], {"actual": ["Paris", "a", "Lyon", None]}),
    ("includes", {}, "actual", "Paris and Lyon", {"expected": ["paris", "x", "lyon", "on"]}),
    ("within", {"delta": 1}, "expected", 10.0, {"actual": [9.5, "10", 12.0, None]}),
    ("within", {"delta": 1}, "actual", 10.0, {"expected": [9.5, 10.0, 12.0, 11.0]}),
    ("choice", {}, "expected", "B", {"actual": ["B", "(B)", "ANSWER: C", None]}),
    ("choice", {}, "actual", "The answer is B", {"expected": ["B", "C", "A", "B"]}),
    ("f1", {}, "expected", "the black cat", {"actual": ["black cat", "dog", "", None]}),
    ("f1", {}, "actual", "a black cat", {"expected": ["black cat", "dog", "cat", "x"]}),
    ("matches", {}, "pattern_column", "^pa", {"actual": ["paris", "Paris", "lyon", None]}),
    ("matches", {}, "actual", "paris", {"pattern_column": ["^pa", "x", "^P", "s$"]}),
    ("equivalent", {}, "expected", "0.5", {"actual": ["1/2", "0.5", "50%", "2"]}),
    ("equivalent", {}, "actual", "1/2", {"expected": ["0.5", "2", "50%", "1/2"]}),
]


def _matcher_arguments(argument: str, value: Any, others: dict) -> dict[str, Any]:
    return {**{column: column for column in others}, argument: value}


@pytest.mark.parametrize(("name", "options", "argument", "value", "others"), MATCHER_CASES)
def test_matcher_literal_equals_the_column_on_every_surface(
    constructor, name, options, argument, value, others
) -> None:
    frame = pl.DataFrame(others, strict=False)
    columns = pl.DataFrame({**others, argument: [value] * 4}, strict=False)
    with_matcher: Callable[..., Any] = getattr(gf, f"with_{name}")
    expected = to_data(
        with_matcher(columns, **_matcher_arguments(argument, argument, others), **options)
    )
    expected.pop(argument)
    for column in others:
        expected.pop(column)
    kwargs = {**_matcher_arguments(argument, pl.lit(value), others), **options}
    expression = getattr(gf, name)
    assert_equal_data(frame.select(expression(**kwargs)).unnest(name), expected)
    with_schema = frame.select(expression(**kwargs, schema=frame.schema)).unnest(name)
    assert_equal_data(with_schema, expected)
    assert_equal_data(getattr(constructor(others).grade, name)(**kwargs), expected)


def test_expression_form_mixes_with_the_users_own_expressions() -> None:
    frame = pl.DataFrame({"answer": ANSWERS, "refs": REFS, "model": list("ababa")})
    expected = gf.with_answer_contains(frame, "answer", pl.lit("12400"))
    got = frame.with_columns(
        pl.col("model").str.to_uppercase().alias("upper"),
        gf.answer_contains("answer", pl.lit("12400")).struct.field("correct"),
        gf.exact_match("model", pl.lit("a")).struct.field("correct").alias("is_a"),
        pl.len().alias("n"),
    )
    assert got.get_column("correct").to_list() == expected.get_column("correct").to_list()
    assert got.get_column("is_a").to_list() == [True, False, True, False, True]
    assert got.get_column("upper").to_list() == list("ABABA")
    assert got.get_column("n").to_list() == [5] * 5


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_expression_form_in_group_by_agg_grades_each_row_once(lazy) -> None:
    # Inside agg, the literal broadcasts to each group's rows and the rows are graded as in
    # the column form; the aggregate is then the user's.
    frame = pl.DataFrame({"answer": ANSWERS * 2, "model": list("ababaabbab")})
    graded = gf.with_answer_contains(frame, "answer", pl.lit("12400"))
    expected = graded.group_by("model", maintain_order=True).agg(
        pl.col("correct").sum().alias("right"), pl.col("failure_kind").alias("kinds")
    )
    contains = gf.answer_contains("answer", pl.lit("12400"))
    query = (
        (frame.lazy() if lazy else frame)
        .group_by("model", maintain_order=True)
        .agg(
            contains.struct.field("correct").sum().alias("right"),
            contains.struct.field("failure_kind").alias("kinds"),
        )
    )
    got = query.collect() if lazy else query
    assert_frame_equal(got, expected)


def test_the_expression_form_never_calls_a_frame_function(monkeypatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        msg = "a frame function ran inside the expression form"
        raise AssertionError(msg)

    frame = pl.DataFrame({"answer": ANSWERS, "refs": REFS})
    expected = gf.with_answer_contains(frame, "answer", "refs").select(OUTPUTS)
    for module in {answer, sys.modules["gradeframe"]}:
        monkeypatch.setattr(module, "with_answer_contains", refuse)
    got = frame.select(gf.answer_contains("answer", "refs")).unnest("answer_contains")
    assert_frame_equal(got, expected)


def test_every_import_path_gets_the_locked_frame_function() -> None:
    # The lock is applied where each frame function is defined, not name by name on export.
    from gradeframe.report import report

    assert report is gf.report
    assert hasattr(report, "__wrapped__")
    for name in gf.__all__:
        function = getattr(gf, name)
        if not inspect.isfunction(function) or not hasattr(function, "__wrapped__"):
            continue
        home = sys.modules[function.__wrapped__.__module__]
        assert getattr(home, name) is function, f"{home.__name__}.{name} is not the locked one"
