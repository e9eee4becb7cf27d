"""Repeated samples (SPEC §10): pass_at_k, consistency, flaky, held to an exact reference."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gradeframe as gf
from gradeframe.stats import pass_all_k_estimate, pass_at_k_estimate
from tests import reference_samples as ref
from tests.test_cli import run
from tests.utils import FRAME_TYPES, assert_equal_data, make_frame, to_data

LOGS = Path(__file__).parent / "fixtures" / "logs"
TOLERANCE = 1e-12


def _rows(groups: dict[str, list[tuple[int, int]]], seed: int = 0) -> dict[str, list[Any]]:
    """One row per sample: each item's c right samples and n - c wrong ones, shuffled."""
    rows: list[tuple[str, str, bool]] = []
    for group, items in groups.items():
        for i, (n, c) in enumerate(items):
            rows += [(group, f"q{i}", j < c) for j in range(n)]
    random.Random(seed).shuffle(rows)
    return {
        "model": [r[0] for r in rows],
        "question_id": [r[1] for r in rows],
        "correct": [r[2] for r in rows],
    }


def _close(actual: Any, expected: Any, tolerance: float = TOLERANCE) -> bool:
    if expected is None or actual is None:
        return actual is None and expected is None
    return abs(actual - float(expected)) <= tolerance


def _check_pass_at_k(result: Any, groups: dict[str, list[tuple[int, int]]], ks: list[int]) -> None:
    data = to_data(result)
    expected = [
        {"model": g, **ref.pass_at_k_group(groups[g], k)}
        for g in sorted(groups)
        for k in sorted(set(ks))
    ]
    assert list(data) == ["model", *gf.samples.PASS_AT_K_COLUMNS]
    assert len(data["k"]) == len(expected)
    for i, row in enumerate(expected):
        for name in ("model", "k", "n_items", "short_items"):
            assert data[name][i] == row[name], (name, i)
        for name in ("pass_at_k", "pass_all_k"):
            assert _close(data[name][i], row[name]), (name, i, data[name][i], row[name])
        for name in ("ci_low", "ci_high"):  # a float formula on floats: 1e-9
            assert _close(data[name][i], row[name], 1e-9), (name, i, data[name][i], row[name])


# --------------------------------------------------------------------------------------------
# The estimator, item by item, against math.comb and Fraction
# --------------------------------------------------------------------------------------------


def test_estimator_is_exact_for_a_thousand_samples() -> None:
    # Every c for n = 1,000 and k up to n: C(1000, 500) has 300 digits (no float can hold it),
    # and 1 - C(n-c, k)/C(n, k) cancels badly when written with log-gamma differences.
    cases = [(1000, c, k) for c in range(0, 1001, 7) for k in (1, 2, 10, 100, 500, 999, 1000)]
    cases += [(1000, 1000, 1000), (1000, 999, 1), (1000, 1, 1000), (1, 0, 1), (3, 3, 5)]
    frame = pl.DataFrame(cases, schema=["n", "c", "k"], orient="row")
    out = frame.select(
        pass_at_k_estimate("n", "c", "k").alias("p"), pass_all_k_estimate("n", "c", "k").alias("a")
    )
    for (n, c, k), p, a in zip(cases, out["p"], out["a"], strict=True):
        exact = ref.pass_at_k_item(n, c, k)
        assert exact == ref.pass_at_k_product_form(n, c, k)
        assert _close(p, exact), (n, c, k, p, exact)
        assert _close(a, ref.pass_all_k_item(n, c, k)), (n, c, k, a)


def test_estimator_is_one_when_every_draw_holds_a_right_sample() -> None:
    # n - c < k: exactly 1 (the human-eval PR #68 trap is the opposite: 1.0 with nothing right).
    out = pl.DataFrame({"n": [5, 5, 5], "c": [4, 0, 5], "k": [2, 5, 1]}).select(
        pass_at_k_estimate("n", "c", "k")
    )
    assert out.to_series().to_list() == [1.0, 0.0, 1.0]


@given(
    n=st.integers(1, 1000),
    data=st.data(),
)
def test_estimator_matches_the_reference(n: int, data: st.DataObject) -> None:
    c = data.draw(st.integers(0, n))
    k = data.draw(st.integers(1, n + 3))  # n < k included: null
    out = pl.DataFrame({"n": [n], "c": [c], "k": [k]}).select(
        pass_at_k_estimate("n", "c", "k").alias("p"), pass_all_k_estimate("n", "c", "k").alias("a")
    )
    assert _close(out["p"][0], ref.pass_at_k_item(n, c, k))
    assert _close(out["a"][0], ref.pass_all_k_item(n, c, k))


# --------------------------------------------------------------------------------------------
# pass_at_k on every frame type
# --------------------------------------------------------------------------------------------

ITEMS = st.lists(
    st.integers(1, 12).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
    min_size=1,
    max_size=6,
)


@pytest.mark.parametrize("kind", FRAME_TYPES)
@given(
    groups=st.dictionaries(st.sampled_from(["a", "b", "c"]), ITEMS, min_size=1, max_size=3),
    ks=st.lists(st.integers(1, 14), min_size=1, max_size=4),
)
def test_pass_at_k_matches_the_reference(
    kind: str, groups: dict[str, list[tuple[int, int]]], ks: list[int]
) -> None:
    frame = make_frame(kind, _rows(groups))
    _check_pass_at_k(gf.pass_at_k(frame, ks), groups, ks)


def test_pass_at_k_with_a_thousand_samples_per_item(constructor: Any) -> None:
    groups = {"a": [(1000, 0), (1000, 1), (1000, 500), (1000, 999)], "b": [(1000, 1000)]}
    ks = [1, 10, 100, 1000]
    _check_pass_at_k(gf.pass_at_k(constructor(_rows(groups)), ks), groups, ks)


def test_short_items_make_the_statistics_null(constructor: Any) -> None:
    # q1 has 2 samples: pass@4 is not defined for it, so the group's row says so.
    groups = {"a": [(4, 1), (2, 1), (4, 4)]}
    result = gf.pass_at_k(constructor(_rows(groups)), [1, 4])
    assert_equal_data(
        result.select("k", "n_items", "short_items")
        if not isinstance(result, pd.DataFrame)
        else result[["k", "n_items", "short_items"]],
        {"k": [1, 4], "n_items": [3, 3], "short_items": [0, 1]},
    )
    data = to_data(result)
    assert data["pass_at_k"][1] is None
    assert data["ci_low"][1] is None
    assert data["pass_all_k"][1] is None
    _check_pass_at_k(result, groups, [1, 4])


def test_null_correct_is_a_sample_that_is_not_right(constructor: Any) -> None:
    frame = constructor({"question_id": ["q"] * 4, "correct": [True, None, False, None]})
    data = to_data(gf.pass_at_k(frame, 2))
    assert _close(data["pass_at_k"][0], ref.pass_at_k_item(4, 1, 2))


def test_lazy_in_lazy_out() -> None:
    lazy = pl.DataFrame(_rows({"a": [(3, 1)]})).lazy()
    assert isinstance(gf.pass_at_k(lazy), pl.LazyFrame)
    assert isinstance(lazy.grade.consistency(answer=None), pl.LazyFrame)
    assert isinstance(lazy.grade.flaky(), pl.LazyFrame)


def test_by_defaults_to_model_only_when_present() -> None:
    with_model = pl.DataFrame(_rows({"a": [(2, 1)], "b": [(2, 2)]}))
    assert gf.pass_at_k(with_model)["model"].to_list() == ["a", "b"]
    without = with_model.drop("model")
    assert gf.pass_at_k(without).columns == list(gf.samples.PASS_AT_K_COLUMNS)
    assert gf.pass_at_k(with_model, by=None)["n_items"].to_list() == [1]  # q0 of a and b: one item


def test_empty_frame_gives_a_row_per_k_without_groups() -> None:
    empty = pl.DataFrame(schema={"question_id": pl.String, "correct": pl.Boolean})
    out = gf.pass_at_k(empty, [1, 2])
    assert out["k"].to_list() == [1, 2]
    assert out["n_items"].to_list() == [0, 0]
    assert out["pass_at_k"].to_list() == [None, None]


def test_on_defaults_to_task_and_sample_id() -> None:
    # Log frames: sample ids repeat across tasks, so an item is (task, sample_id).
    frame = pl.DataFrame(
        {
            "task": ["t1", "t1", "t2", "t2"],
            "sample_id": ["1", "1", "1", "1"],
            "correct": [True, True, False, False],
        }
    )
    out = gf.consistency(frame)
    assert out["n_items"].to_list() == [2]
    assert out["always_right"].to_list() == [1]


@pytest.mark.parametrize(
    ("k", "error", "match"),
    [
        (0, ValueError, "at least 1"),
        ([1, -2], ValueError, "at least 1"),
        ([], TypeError, "non-empty"),
        (True, TypeError, "`k`"),
        ("4", TypeError, "`k`"),
        (1.5, TypeError, "`k`"),
        # G17: beyond Int64, a ValueError naming k (not Polars' TypeError building a Series)
        (2**63, ValueError, r"`k` must be at most 2\*\*63 - 1"),
        ([1, 2**64], ValueError, "got 18446744073709551616"),
        (10**30, ValueError, "`k` must be at most"),
    ],
)
def test_bad_k_is_refused(k: Any, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        gf.pass_at_k(pl.DataFrame(_rows({"a": [(2, 1)]})), k)


def test_the_largest_int64_k_is_handled_as_too_few_samples(constructor: Any) -> None:
    out = to_data(gf.pass_at_k(constructor(_rows({"a": [(2, 1)]})), k=[1, 2**63 - 1]))
    assert out["k"] == [1, 2**63 - 1]
    assert out["short_items"] == [0, 1]
    assert out["pass_at_k"] == [0.5, None]


def test_k_from_a_range_or_an_array() -> None:
    frame = pl.DataFrame(_rows({"a": [(4, 1)]}))
    assert gf.pass_at_k(frame, range(1, 4))["k"].to_list() == [1, 2, 3]
    assert gf.pass_at_k(frame, pl.Series([4, 2, 2]))["k"].to_list() == [2, 4]


def test_bad_columns_are_named(constructor: Any) -> None:
    frame = constructor(_rows({"a": [(2, 1)]}))
    with pytest.raises((pl.exceptions.ColumnNotFoundError, KeyError), match="on"):
        gf.pass_at_k(frame, on="item")
    with pytest.raises((pl.exceptions.ColumnNotFoundError, KeyError), match="by"):
        gf.consistency(frame, by="modle")
    with pytest.raises(ValueError, match="every item column"):
        gf.flaky(frame, by="question_id", on="question_id")


def test_a_group_column_that_is_also_an_item_column_splits_the_items() -> None:
    # The command line groups logs by task; the items of a log frame are task + sample_id.
    frame = pl.DataFrame(
        {
            "task": ["t1", "t1", "t2", "t2"],
            "sample_id": ["1", "1", "1", "1"],
            "correct": [True, False, False, False],
        }
    )
    out = gf.flaky(frame, by="task")
    assert out.columns == ["task", "sample_id", "n", "n_correct", "accuracy"]
    assert out["task"].to_list() == ["t1"]
    assert gf.consistency(frame, by="task")["n_items"].to_list() == [1, 1]


def test_no_item_column_says_which_to_pass() -> None:
    with pytest.raises(ValueError, match="question_id"):
        gf.pass_at_k(pl.DataFrame({"item": ["a"], "correct": [True]}))


def test_correct_must_be_boolean() -> None:
    with pytest.raises(TypeError, match="correct"):
        gf.pass_at_k(pl.DataFrame({"question_id": ["a"], "correct": [1]}))


def test_a_group_column_named_like_a_result_column_is_refused() -> None:
    frame = pl.DataFrame({"k": ["x"], "question_id": ["a"], "correct": [True]})
    with pytest.raises(ValueError, match="share a name"):
        gf.pass_at_k(frame, by="k")


# --------------------------------------------------------------------------------------------
# consistency
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", FRAME_TYPES)
@given(groups=st.dictionaries(st.sampled_from(["a", "b"]), ITEMS, min_size=1, max_size=2))
def test_consistency_matches_the_reference(
    kind: str, groups: dict[str, list[tuple[int, int]]]
) -> None:
    data = to_data(gf.consistency(make_frame(kind, _rows(groups))))
    assert list(data) == ["model", *gf.samples.CONSISTENCY_COLUMNS]
    for i, group in enumerate(sorted(groups)):
        expected = ref.consistency_group(groups[group])
        for name, value in expected.items():
            if isinstance(value, Fraction):
                assert _close(data[name][i], value), (name, data[name][i], value)
            else:
                assert data[name][i] == value, name


# Spellings that fold to one answer (and one that does not: a plain space in "3 100" stays).
SPELLINGS = {
    "1000": ["1000", "1,000", " 1000 ", "1\u202f000"],
    "paris": ["Paris", "paris", "PARIS", "  paris\n"],
    "3 100": ["3 100"],
    "-12": ["-12", "\u221212", "\u201312"],
}
ANSWER = st.one_of(
    st.none(), st.just(""), st.sampled_from([(k, v) for k, vs in SPELLINGS.items() for v in vs])
)


@pytest.mark.parametrize("kind", FRAME_TYPES)
@given(
    items=st.lists(
        st.lists(st.tuples(ANSWER, st.booleans()), min_size=1, max_size=7),
        min_size=1,
        max_size=5,
    )
)
def test_majority_votes_match_the_reference(kind: str, items: list[list[tuple[Any, bool]]]) -> None:
    qid, answers, correct, votes = [], [], [], []
    for i, samples in enumerate(items):
        item_votes = []
        for answer, ok in samples:
            qid.append(f"q{i}")
            correct.append(ok)
            if answer is None or answer == "":
                answers.append(answer)
                item_votes.append((None, ok))
            else:
                answers.append(answer[1])
                item_votes.append((answer[0], ok))
        votes.append(item_votes)
    frame = make_frame(kind, {"question_id": qid, "answer": answers, "correct": correct})
    data = to_data(gf.consistency(frame, answer="answer"))
    verdicts = [ref.majority_item(v) for v in votes]
    assert _close(data["majority"][0], Fraction(sum(r for r, _ in verdicts), len(verdicts)))
    assert data["ties"][0] == sum(t for _, t in verdicts)


def test_folded_answers_are_one_vote_and_a_tie_is_no_majority(constructor: Any) -> None:
    # lm-eval's majority_vote counts "1,000" and "1000" apart and lets the first seen win a tie.
    frame = constructor(
        {
            "question_id": ["q1"] * 3 + ["q2"] * 4 + ["q3"] * 3,
            "answer": ["1,000", "1000", "999", "a", "b", "a", "b", None, None, "7"],
            "correct": [True, True, False, True, False, True, False, False, False, True],
        }
    )
    data = to_data(gf.consistency(frame, answer="answer"))
    # q1: "1000" wins 2-1 and is right; q2: a tie (not right); q3: the one vote is "7", right.
    assert data["ties"] == [1]
    assert _close(data["majority"][0], Fraction(2, 3))


VALUE_VOTES = {
    "question_id": ["q1"] * 5 + ["q2"] * 4,
    # q1: \frac12, 0.5 and 1/2 are one value (3 right votes) against two "3"; folded, "3" wins
    "answer": ["\\frac12", "0.5", "1/2", "3", "3", "x", "X", "y", "y"],
    "correct": [True, True, True, False, False, True, True, False, False],
}


@pytest.mark.parametrize(("vote", "majority", "ties"), [("fold", 0.0, 1), ("equivalent", 0.5, 1)])
def test_equal_values_are_one_vote_with_vote_equivalent(constructor: Any, vote: str,
                                                        majority: float, ties: int) -> None:  # fmt: skip
    data = to_data(gf.consistency(constructor(VALUE_VOTES), answer="answer", vote=vote))
    assert data["majority"] == [majority]
    assert data["ties"] == [ties]  # a count: q2's "x" and "y" tie either way


def test_vote_follows_a_method_column(constructor: Any) -> None:
    # a frame graded by equivalent has a method column: its votes are on values
    frame = constructor({**VALUE_VOTES, "method": ["literal"] * 9})
    assert to_data(gf.consistency(frame, answer="answer"))["majority"] == [0.5]
    plain = constructor(VALUE_VOTES)
    assert to_data(gf.consistency(plain, answer="answer"))["majority"] == [0.0]


def test_flaky_lists_each_value_once_shown_by_its_most_common_text(constructor: Any) -> None:
    frame = constructor(
        {
            "question_id": ["q"] * 6,
            "answer": ["0.5", "1/2", "0.5", "\\frac{1}{2}", "3", "3.0"],
            "correct": [True, True, True, True, False, False],
        }
    )
    data = to_data(gf.flaky(frame, answer="answer", vote="equivalent"))
    assert data["answers"] == [
        [{"answer": "0.5", "n": 4, "correct": True}, {"answer": "3", "n": 2, "correct": False}]
    ]


def test_an_unknown_vote_raises_naming_the_argument(constructor: Any) -> None:
    with pytest.raises(ValueError, match="`vote`"):
        gf.consistency(constructor(VALUE_VOTES), answer="answer", vote="exact")


def test_majority_answer_right_needs_more_than_half_its_rows(constructor: Any) -> None:
    # "12" has two rows, one right (different refs could do that): not "most", so not right.
    frame = constructor(
        {"question_id": ["q"] * 3, "answer": ["12", "12", "9"], "correct": [True, False, False]}
    )
    assert to_data(gf.consistency(frame, answer="answer"))["majority"] == [0.0]


def test_numeric_answers_are_refused_with_a_cast_to_suggest() -> None:
    frame = pl.DataFrame({"question_id": ["q"], "answer": [12], "correct": [True]})
    with pytest.raises(TypeError, match=r"cast\(pl.String\)"):
        gf.consistency(frame, answer="answer")


def test_votes_read_an_output_record_like_answer_contains() -> None:
    frame = pl.DataFrame(
        {
            "question_id": ["q", "q", "q"],
            "output": [
                {"answer": "Paris", "text": "It is Paris."},
                {"answer": None, "text": "paris"},
                {"answer": "Lyon", "text": None},
            ],
            "correct": [True, True, False],
        }
    )
    out = gf.flaky(frame, answer="output")
    assert out["answers"].to_list() == [
        [{"answer": "paris", "n": 2, "correct": True}, {"answer": "lyon", "n": 1, "correct": False}]
    ]
    with pytest.raises(ValueError, match=r"struct\.field"):
        gf.flaky(frame.with_columns(output=pl.struct(content=pl.lit("x"))), answer="output")


def test_votes_on_extracted_answers() -> None:
    frame = pl.DataFrame(
        {
            "question_id": ["q"] * 3,
            "response": [r"so \boxed{1,000}", r"\boxed{1000}", r"\boxed{12}"],
            "correct": [True, True, False],
        }
    )
    out = gf.consistency(frame, answer=pl.col("response").grade.extract_boxed())
    assert out["majority"].to_list() == [1.0]


# --------------------------------------------------------------------------------------------
# flaky
# --------------------------------------------------------------------------------------------


def test_flaky_lists_the_most_unstable_first(constructor: Any) -> None:
    frame = constructor(
        {
            "model": ["m"] * 13,
            "question_id": ["q3"] * 3 + ["q1"] * 3 + ["q2"] * 4 + ["q4"] * 3,
            "answer": ["9", "8", "9", "A", "a", "B", "x", "x", "y", "y", "s", "s", "s"],
            "correct": [
                *(True, False, True),  # q3: 2 of 3
                *(False, False, True),  # q1: 1 of 3
                *(True, True, False, False),  # q2: 2 of 4
                *(True, True, True),  # q4: always right
            ],
        }
    )
    result = gf.flaky(frame, answer="answer")
    assert_equal_data(
        result.drop("answers")
        if not isinstance(result, pd.DataFrame)
        else result.drop(columns="answers"),
        {
            "model": ["m", "m", "m"],
            "question_id": ["q2", "q1", "q3"],  # 2/4 first; 1/3 and 2/3 equally unstable: by id
            "n": [4, 3, 3],
            "n_correct": [2, 1, 2],
            "accuracy": [0.5, 1 / 3, 2 / 3],
        },
    )
    answers = to_data(result)["answers"]
    assert answers[0] == [
        {"answer": "x", "n": 2, "correct": True},
        {"answer": "y", "n": 2, "correct": False},
    ]
    assert answers[1] == [
        {"answer": "a", "n": 2, "correct": False},
        {"answer": "b", "n": 1, "correct": True},
    ]


def test_flaky_without_answer_has_no_answers_column(constructor: Any) -> None:
    frame = constructor(_rows({"a": [(3, 1), (3, 3), (2, 1)]}))
    data = to_data(gf.flaky(frame))
    assert list(data) == ["model", "question_id", "n", "n_correct", "accuracy"]
    assert data["question_id"] == ["q2", "q0"]


def test_flaky_item_whose_answers_are_all_null_has_an_empty_list() -> None:
    frame = pl.DataFrame(
        {"question_id": ["q", "q"], "answer": [None, None], "correct": [True, False]},
        schema={"question_id": pl.String, "answer": pl.String, "correct": pl.Boolean},
    )
    assert gf.flaky(frame, answer="answer")["answers"].to_list() == [[]]


# --------------------------------------------------------------------------------------------
# Namespaces and real logs
# --------------------------------------------------------------------------------------------


def test_namespace_methods_give_the_function_results(frame_type: str) -> None:
    frame = make_frame(frame_type, _rows({"a": [(3, 1), (4, 4)], "b": [(3, 0), (4, 2)]}))
    assert to_data(frame.grade.pass_at_k([1, 2])) == to_data(gf.pass_at_k(frame, [1, 2]))
    assert to_data(frame.grade.consistency()) == to_data(gf.consistency(frame))
    assert to_data(frame.grade.flaky(by=None)) == to_data(gf.flaky(frame, by=None))


def test_pandas_input_is_not_changed() -> None:
    frame = pd.DataFrame(_rows({"a": [(3, 1)]}), index=[10, 11, 12])
    before = frame.copy()
    frame.grade.flaky()
    pd.testing.assert_frame_equal(frame, before)


@pytest.mark.parametrize(
    "log",
    [
        "inspect/2026-11-30T20-32-04-00-00_gf-qa_hH4q6vpC7RtD79gw4cKxLP.eval",
        "lm_eval/demo-org__scripted-a",
        "promptfoo",
    ],
)
def test_real_logs_with_several_samples(log: str) -> None:
    graded = gf.read_log(LOGS / log).grade.answer_contains("output", "refs")
    per_item = graded.group_by("model", "task", "sample_id").agg(
        pl.len().alias("n"), pl.col("correct").sum().alias("c")
    )
    assert per_item["n"].max() > 1  # several epochs or repeats
    out = graded.grade.pass_at_k([1, 2])
    # The reference on the log's own counts, per model.
    groups: dict[str, list[tuple[int, int]]] = {}
    for row in per_item.sort("task", "sample_id").iter_rows(named=True):
        groups.setdefault(row["model"], []).append((row["n"], row["c"]))
    for row in out.iter_rows(named=True):
        expected = ref.pass_at_k_group(groups[row["model"]], row["k"])
        assert row["n_items"] == expected["n_items"]
        assert row["short_items"] == expected["short_items"]
        assert _close(row["pass_at_k"], expected["pass_at_k"])
    summary = graded.grade.consistency(answer="output")
    assert summary["n_samples"].sum() == graded.height
    listed = graded.grade.flaky(answer="output")
    assert set(listed.columns) >= {"task", "sample_id", "answers"}


def test_inspect_epochs_have_one_item_per_sample_id() -> None:
    graded = gf.read_log(
        LOGS / "inspect/2026-11-30T20-32-04-00-00_gf-qa_hH4q6vpC7RtD79gw4cKxLP.eval"
    ).grade.answer_contains("output", "refs")
    out = graded.grade.consistency()
    assert out["n_samples"].to_list() == [2 * out["n_items"][0]]  # --epochs 2
    assert math.isclose(out["mean_accuracy"][0], graded["correct"].mean())  # 2 per item


# --------------------------------------------------------------------------------------------
# The command line: gradeframe score FILE --samples 1,2,4
# --------------------------------------------------------------------------------------------


def _tables(stdout: str) -> list[list[dict[str, str]]]:
    """Every printed Markdown table, as a list of rows {column: cell}."""
    tables, lines = [], stdout.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("|"):
            block = []
            while i < len(lines) and lines[i].startswith("|"):
                block.append([c.strip() for c in lines[i].strip("|").split("|")])
                i += 1
            tables.append([dict(zip(block[0], row, strict=True)) for row in block[2:]])
        else:
            i += 1
    return tables


def test_cli_samples_prints_pass_at_k_and_consistency_after_the_report() -> None:
    log = LOGS / "inspect/2026-11-30T20-32-04-00-00_gf-qa_hH4q6vpC7RtD79gw4cKxLP.eval"
    result = run("score", str(log), "--samples", "1,2,4", "-q")
    assert result.returncode == 0, result.stderr
    report, passes, summary = _tables(result.stdout)[:3]
    assert "accuracy" in report[0]
    assert [row["k"] for row in passes] == ["1", "2", "4"]
    # The same numbers as the function on the same graded frame.
    graded = gf.read_log(log).grade.answer_contains("output", "refs")
    expected = gf.pass_at_k(graded, [1, 2, 4], by=["tool", "model", "task"])
    assert [row["pass_at_k"] for row in passes] == [
        "null" if v is None else f"{v:.3f}" for v in expected["pass_at_k"]
    ]
    assert passes[2]["short_items"] == "11"  # --epochs 2: pass@4 is not defined
    assert "fewer than k samples" in result.stdout
    assert summary[0]["n_samples"] == "22"
    assert summary[0]["flaky"] == str(gf.consistency(graded)["flaky"][0])
    assert "majority" in summary[0]


def test_cli_samples_says_when_every_item_has_one_row() -> None:
    result = run("score", "--example", "--samples", "1,4")
    assert result.returncode == 0, result.stderr
    assert "every item (question_id) has one row" in result.stdout
    assert "pass_at_k" not in result.stdout


@pytest.mark.parametrize("value", ["0", "1,x", "", "1,99999999999999999999"])
def test_cli_samples_refuses_bad_k(value: str) -> None:
    result = run("score", "--example", "--samples", value)
    assert result.returncode == 2
    assert "--samples" in result.stderr


def test_cli_samples_names_the_item_columns_it_lacks(tmp_path: Path) -> None:
    path = tmp_path / "answers.csv"
    pl.DataFrame({"item": ["a", "a"], "answer": ["1", "2"], "refs": ["1", "1"]}).write_csv(path)
    result = run("score", str(path), "--samples", "1")
    assert result.returncode == 2
    assert "question_id" in result.stderr
    ok = run("score", str(path), "--samples", "1,2", "--on", "item", "-q")
    assert ok.returncode == 0, ok.stderr
    assert _tables(ok.stdout)[1][1]["pass_at_k"] == "1.000"


# --------------------------------------------------------------------------------------------
# The chart
# --------------------------------------------------------------------------------------------


def test_pass_at_k_chart_draws_the_table(frame_type: str) -> None:
    pytest.importorskip("altair")
    groups = {"a": [(4, 1), (6, 3)], "b": [(4, 4), (6, 0)]}
    frame = make_frame(frame_type, _rows(groups))
    spec = frame.grade.pass_at_k_chart(title="pass@k").to_dict()
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["rule", "line", "point"]
    values = spec["data"]["values"]
    # k defaults to 1, 2, 4 (the fewest samples an item has is 4).
    assert [(v["group"], v["k"]) for v in values] == [(g, k) for g in "ab" for k in (1, 2, 4)]
    table = to_data(gf.pass_at_k(frame, [1, 2, 4]))
    assert [v["pass_at_k"] for v in values] == table["pass_at_k"]
    assert spec["title"] == "pass@k"


def test_pass_at_1_is_the_accuracy_to_the_last_bit() -> None:
    # 1 - (n - c)/n is 0.33333333333333337 for 1 of 3; c/n is the float the report shows.
    frame = pl.DataFrame(_rows({"a": [(3, 1), (7, 3), (1000, 1)]}))
    out = gf.pass_at_k(frame, 1)
    assert out["pass_at_k"][0] == gf.consistency(frame)["mean_accuracy"][0]
    assert out["pass_all_k"][0] == out["pass_at_k"][0]


def test_pass_at_k_chart_without_groups_and_with_k() -> None:
    pytest.importorskip("altair")
    frame = pl.DataFrame(_rows({"a": [(3, 1)]})).drop("model")
    spec = gf.pass_at_k_chart(frame, [1, 3]).to_dict()
    values = spec["data"]["values"]
    assert [(v["group"], v["k"]) for v in values] == [("all", 1), ("all", 3)]


def test_a_huge_k_on_short_items_builds_nothing_large() -> None:
    # Both branches of a when/then run on every row: the factor lists are capped at n.
    frame = pl.DataFrame({"question_id": ["a", "a"], "correct": [True, False]})
    out = gf.pass_at_k(frame, [1, 10**9])
    assert out["short_items"].to_list() == [0, 1]
    assert out["pass_at_k"].to_list() == [0.5, None]


def test_cli_samples_without_an_item_column_says_on_before_scoring(tmp_path: Path) -> None:
    path = tmp_path / "no_items.csv"
    pl.DataFrame({"model": ["a", "a"], "answer": ["1", "2"], "refs": ["1", "1"]}).write_csv(path)
    out = tmp_path / "graded.csv"
    result = run("score", str(path), "--samples", "2", "-o", str(out))
    assert result.returncode == 2
    assert "--samples needs the column(s) naming an item" in result.stderr
    assert "--on COL" in result.stderr
    assert "on=" not in result.stderr  # the command line's words
    assert not out.exists()  # refused before any work
    assert "accuracy" not in result.stdout
    named = run("score", str(path), "--samples", "2", "--on", "model", "-q")
    assert named.returncode == 0, named.stderr


# --------------------------------------------------------------------------------------------
# G16: identical calls give identical bits (Polars' float sums depend on threads and chunks)
# --------------------------------------------------------------------------------------------


def _many_floats(seed: int) -> tuple[dict[str, list[Any]], dict[str, list[int]]]:
    """Many groups and items whose accuracies (c of 7) are not sums of halves; and the c's."""
    rng = random.Random(seed)
    rights = {m: [rng.randint(0, 7) for _ in range(150)] for m in "abcdef"}
    return _rows({m: [(7, c) for c in cs] for m, cs in rights.items()}, seed=seed), rights


@pytest.mark.parametrize(
    "summary",
    [
        lambda f: gf.pass_at_k(f, k=[1, 3]),
        lambda f: gf.consistency(f),
        lambda f: gf.compare(f, adjust=None),
    ],
    ids=["pass_at_k", "consistency", "compare"],
)
def test_identical_calls_give_identical_bits_on_every_frame_type(summary: Any) -> None:
    data, rights = _many_floats(16)
    frames = [make_frame(kind, data) for kind in FRAME_TYPES]
    first = to_data(summary(frames[0]))
    for frame in [frames[0]] * 4 + frames[1:]:
        again = to_data(summary(frame))
        for name, values in first.items():
            # Bits, not a tolerance: the repr of a float is its exact value.
            assert [repr(v) for v in again[name]] == [repr(v) for v in values], name
    if "mean_accuracy" in first:  # and the shared value is the exact mean, to rounding
        exact = [float(sum(Fraction(c, 7) for c in rights[m]) / 150) for m in sorted(rights)]
        assert first["mean_accuracy"] == pytest.approx(exact, rel=1e-15, abs=0)
