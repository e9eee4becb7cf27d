"""Every public expression function works wherever a Polars expression goes.

Each expression form runs through ``select``, ``with_columns``, ``filter``, ``group_by().agg()``,
``over()`` and ``when/then``, on a DataFrame, on a LazyFrame and on the streaming engine, and gives
the values of its frame method (or Series method) row for row; group means equal the means of the frame method's
``correct``. The expressions are built without a schema, as a user writes them, so the ones that
read dtypes when the data arrives (``answer_contains``, the matchers) are held here too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal, assert_series_equal

import gradeframe as gf


def _frame() -> pl.DataFrame:
    """The bundled example, with flat String answers and refs and replies to extract from."""
    example = gf.example()
    row = pl.int_range(pl.len())
    text = pl.col("answer").struct.field("answer")
    return example.with_columns(
        text=text,
        ref=pl.col("refs").list.first(),
        reply=pl.when(row % 3 == 0)
        .then(pl.concat_str(pl.lit("Let me see.\n**Answer:** "), text))
        .when(row % 3 == 1)
        .then(pl.concat_str(pl.lit(r"So it is $\boxed{"), text, pl.lit("}$")))
        .otherwise(text),
        # a multiple-choice reply and its key: the letter of the answer's first character
        letter=pl.concat_str(pl.lit("ANSWER: "), text.str.slice(0, 1).str.to_uppercase()),
        key=pl.when(row % 2 == 0).then(pl.lit("I")).otherwise(pl.lit("A")),
        truth=pl.col("refs")
        .list.first()
        .str.replace_all(",", "")
        .cast(pl.Float64, strict=False)
        .fill_null(0.0),
    )


FRAME = _frame()


@dataclass(frozen=True)
class Case:
    name: str
    expr: Callable[[], pl.Expr]  # the expression form: one value per row
    method: Callable[[pl.DataFrame], pl.Series]  # the same values from the frame or Series method


def _correct(method: str, *args: Any, **kwargs: Any) -> Callable[[pl.DataFrame], pl.Series]:
    def run(frame: pl.DataFrame) -> pl.Series:
        return getattr(frame.grade, method)(*args, **kwargs).get_column("correct")

    return run


def _series(method: str, column: str, *args: Any, **kwargs: Any) -> Callable[..., pl.Series]:
    def run(frame: pl.DataFrame) -> pl.Series:
        return getattr(frame.get_column(column).grade, method)(*args, **kwargs)

    return run


def _field(expr: pl.Expr) -> pl.Expr:
    return expr.struct.field("correct")


CASES = [
    Case(
        "answer_contains struct record, list refs",
        lambda: _field(gf.answer_contains("answer", "refs")),
        _correct("answer_contains", "answer", "refs"),
    ),
    Case(
        "answer_contains struct record, String ref",
        lambda: _field(gf.answer_contains("answer", "ref")),
        _correct("answer_contains", "answer", "ref"),
    ),
    Case(
        "answer_contains String answer, list refs",
        lambda: _field(gf.answer_contains("text", "refs")),
        _correct("answer_contains", "text", "refs"),
    ),
    Case(
        "answer_contains String answer, String ref",
        lambda: _field(gf.answer_contains("text", "ref")),
        _correct("answer_contains", "text", "ref"),
    ),
    Case(
        "answer_contains failure_kind",
        lambda: gf.answer_contains("answer", "refs").struct.field("failure_kind"),
        lambda frame: frame.grade.answer_contains("answer", "refs").get_column("failure_kind"),
    ),
    Case(
        "answer_contains on an expression",
        lambda: _field(gf.answer_contains(gf.extract_answer("reply"), "refs")),
        _correct("answer_contains", gf.extract_answer("reply"), "refs"),
    ),
    Case(
        "exact_match",
        lambda: _field(gf.exact_match("text", "ref")),
        _correct("exact_match", "text", "ref"),
    ),
    Case(
        "includes",
        lambda: _field(gf.includes("text", "ref")),
        _correct("includes", "text", "ref"),
    ),
    Case(
        "matches (Polars pattern)",
        lambda: _field(gf.matches("text", r"\d{4}")),
        _correct("matches", "text", r"\d{4}"),
    ),
    Case(
        "matches (regex fallback)",
        lambda: _field(gf.matches("text", r"(?<=in )\d")),
        _correct("matches", "text", r"(?<=in )\d"),
    ),
    Case(
        "within",
        lambda: _field(gf.within(gf.extract_number("text"), "truth", percent=1)),
        _correct("within", gf.extract_number("text"), "truth", percent=1),
    ),
    Case(
        "choice",
        lambda: _field(gf.choice("letter", "key")),
        _correct("choice", "letter", "key"),
    ),
    Case(
        "f1",
        lambda: gf.f1("text", pl.col("ref").fill_null("none")).struct.field("f1"),
        lambda frame: frame.grade.f1("text", pl.col("ref").fill_null("none")).get_column("f1"),
    ),
    Case("fold", lambda: gf.fold("text"), _series("fold", "text")),
    Case("is_not_found", lambda: gf.is_not_found("text"), _series("is_not_found", "text")),
    Case(
        "extract_answer",
        lambda: gf.extract_answer("reply"),
        _series("extract_answer", "reply"),
    ),
    Case(
        "extract (Polars pattern, last)",
        lambda: gf.extract("reply", r"(\d+)"),
        _series("extract", "reply", r"(\d+)"),
    ),
    Case(
        "extract (regex fallback)",
        lambda: gf.extract("reply", r"(?<=in )(\d+)", which="first"),
        _series("extract", "reply", r"(?<=in )(\d+)", which="first"),
    ),
    Case("extract_number", lambda: gf.extract_number("reply"), _series("extract_number", "reply")),
    Case("extract_boxed", lambda: gf.extract_boxed("reply"), _series("extract_boxed", "reply")),
]


def _as_mask(values: pl.Series) -> pl.Series:
    """A Boolean of the values: themselves when Boolean, else whether they are present."""
    return values.fill_null(value=False) if values.dtype == pl.Boolean else values.is_not_null()


def _expr_mask(expr: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    return expr.fill_null(value=False) if dtype == pl.Boolean else expr.is_not_null()


ENGINES = ("eager", "lazy", "streaming")


def _run(engine: str, query: Callable[[Any], Any]) -> pl.DataFrame:
    """Run a query on the frame as a DataFrame, or lazily with the default or streaming engine."""
    if engine == "eager":
        return query(FRAME)
    lazy = query(FRAME.lazy())
    return lazy.collect(engine="streaming") if engine == "streaming" else lazy.collect()


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_expression_works_in_every_context(case: Case, engine: str) -> None:
    expected = case.method(FRAME).alias("out")
    assert expected.len() == FRAME.height
    with_expected = FRAME.with_columns(expected)
    out = case.expr().alias("out")

    def run(query: Callable[[Any], Any]) -> pl.DataFrame:
        return _run(engine, query)

    # select and with_columns
    assert_series_equal(run(lambda f: f.select(out)).to_series(), expected)
    assert_series_equal(run(lambda f: f.with_columns(out)).get_column("out"), expected)

    # filter
    expr_mask = _expr_mask(case.expr(), expected.dtype)
    assert_frame_equal(run(lambda f: f.filter(expr_mask)), FRAME.filter(_as_mask(expected)))

    # group_by().agg(): the same values per group, in row order
    want = with_expected.group_by("model", maintain_order=True).agg(pl.col("out"))
    got = run(lambda f: f.group_by("model", maintain_order=True).agg(out))
    assert_frame_equal(got, want)
    if expected.dtype in (pl.Boolean, pl.Float64):
        # group means equal the means of the frame method's values
        means = with_expected.group_by("model").agg(pl.col("out").mean()).sort("model")
        mean = case.expr().mean().alias("out")
        assert_frame_equal(run(lambda f: f.group_by("model").agg(mean).sort("model")), means)

    # over(): elementwise, and an aggregate broadcast to the rows
    assert_series_equal(run(lambda f: f.select(out.over("model"))).to_series(), expected)
    counted = case.expr().null_count().over("model").alias("out")
    want_counted = with_expected.select(pl.col("out").null_count().over("model")).to_series()
    assert_series_equal(run(lambda f: f.select(counted)).to_series(), want_counted)
    if expected.dtype in (pl.Boolean, pl.Float64):
        averaged = case.expr().mean().over("model").alias("out")
        want_mean = with_expected.select(pl.col("out").mean().over("model")).to_series()
        assert_series_equal(run(lambda f: f.select(averaged)).to_series(), want_mean)

    # when/then
    first_model = pl.col("model") == "atlas-large"
    chosen = pl.when(first_model).then(case.expr()).alias("out")
    want_chosen = with_expected.select(pl.when(first_model).then(pl.col("out"))).to_series()
    assert_series_equal(run(lambda f: f.select(chosen)).to_series(), want_chosen)


def test_group_by_idiom_from_the_issue() -> None:
    # issue 17: accuracy per model straight from the expression
    per_model = (
        FRAME.group_by("model")
        .agg(gf.answer_contains("answer", "refs").struct.field("correct").mean())
        .sort("model")
    )
    graded = FRAME.grade.answer_contains("answer", "refs")
    want = graded.group_by("model").agg(pl.col("correct").mean()).sort("model")
    assert_frame_equal(per_model, want)
    assert per_model.get_column("correct").n_unique() > 1  # the groups really differ
