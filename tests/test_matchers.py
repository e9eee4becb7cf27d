"""The four matchers of SPEC.md §3: exact_match, includes, matches, within.

Every case runs on Polars eager, Polars lazy, pandas with object columns and pandas with Arrow
columns (the ``constructor`` fixture); mixed-type pandas object columns have their own tests.
Cases are named after the trap they guard.
"""

from __future__ import annotations

import random
import re
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest
import regex

import gradeframe as gf
from gradeframe import matchers
from tests.utils import assert_equal_data, to_data

EXACT = "exact match"
INCLUDES = "includes expected text"
MATCHES = "matches expected pattern"


def _is_lazy(frame: Any) -> bool:
    return isinstance(frame, pl.LazyFrame)


# --------------------------------------------------------------------------------------------
# exact_match
# --------------------------------------------------------------------------------------------

EXACT_CASES = [
    pytest.param(
        ["  Paris ", "PARIS"], ["paris", " Paris"], {}, [True, True], id="case_and_space_ignored"
    ),
    pytest.param(["Lyon", "Paris"], ["Paris", "Pariss"], {}, [False, False], id="different_text"),
    pytest.param(
        ["Paris", "a"],
        ["paris", "a"],
        {"ignore_case": False},
        [False, True],
        id="ignore_case_false_keeps_case",
    ),
    pytest.param(
        [" a", "a"], ["a", "a"], {"strip": False}, [False, True], id="strip_false_keeps_space"
    ),
    pytest.param(
        ["a b", "ab"], ["a  b", "a b"], {}, [False, False], id="inner_space_is_not_stripped"
    ),
    pytest.param(["12", "12.0"], [12, 12], {}, [False, False], id="number_is_not_text"),
    pytest.param(["true", "True"], [True, True], {}, [False, False], id="boolean_is_not_text"),
    pytest.param([12, 3], [12.0, 4.0], {}, [True, False], id="12_is_12.0"),
    pytest.param([True, False], [1, 0], {}, [False, False], id="true_is_not_1"),
    pytest.param([True, False], [True, True], {}, [True, False], id="booleans_compare_with_eq"),
    pytest.param(["x", None], [None, None], {}, [False, True], id="null_matches_only_null"),
    pytest.param([None, "a"], ["a", "a"], {}, [False, True], id="null_answer_is_not_text"),
]


@pytest.mark.parametrize(("actual", "expected", "kwargs", "correct"), EXACT_CASES)
def test_exact_match(constructor, actual, expected, kwargs, correct) -> None:
    frame = constructor({"actual": actual, "expected": expected})
    result = frame.grade.exact_match("actual", "expected", **kwargs)
    assert_equal_data(
        result,
        {
            "actual": actual,
            "expected": expected,
            "correct": correct,
            "expectation": [EXACT] * len(actual),
        },
    )


def test_exact_match_seed_example_and_label(constructor) -> None:
    frame = constructor({"answer": ["Sheffield ", "York"], "truth": ["sheffield", "Leeds"]})
    result = frame.grade.exact_match("answer", "truth", label="city", prefix="city_")
    assert_equal_data(result, {"city_correct": [True, False], "city_expectation": ["city", "city"]})


def test_exact_match_literal_expected(constructor) -> None:
    frame = constructor({"answer": ["Paris ", "Rome"], "n": [4, 5]})
    assert_equal_data(
        frame.grade.exact_match("answer", pl.lit("paris")), {"correct": [True, False]}
    )
    assert_equal_data(frame.grade.exact_match("n", 4, prefix="n_"), {"n_correct": [True, False]})


def test_exact_match_expression_without_schema() -> None:
    df = pl.DataFrame({"a": [1, 2, None], "b": ["x", "y", None], "e": [1.0, 3.0, None]})
    got = df.select(gf.exact_match("a", "e"), gf.exact_match("b", pl.lit("X"), prefix="b_"))
    assert got.unnest("exact_match")["correct"].to_list() == [True, False, True]
    assert got.unnest("b_exact_match")["b_correct"].to_list() == [True, False, False]


# --------------------------------------------------------------------------------------------
# includes
# --------------------------------------------------------------------------------------------

INCLUDES_CASES = [
    pytest.param(
        ["Revenue rose; costs fell.", "Revenue rose."],
        [["revenue", "Costs"], ["revenue", "costs"]],
        {},
        [True, False],
        [[], ["costs"]],
        id="all_needles_required",
    ),
    pytest.param(
        ["b", "abc"],
        [["c", "a", "b"], ["c", "a"]],
        {},
        [False, True],
        [["c", "a"], []],
        id="missing_keeps_given_order",
    ),
    pytest.param(
        ["anything", "x"], [[], ["x"]], {}, [False, True], [[], []], id="empty_list_never_matches"
    ),
    pytest.param(
        [None, None], [["x"], [""]], {}, [False, True], [["x"], []], id="null_answer_reads_as_empty"
    ),
    pytest.param(
        ["Hello", "Hello"],
        [["hello"], ["Hello"]],
        {"ignore_case": False},
        [False, True],
        [["hello"], []],
        id="ignore_case_false_keeps_case",
    ),
    pytest.param(
        ["abc", "abc"],
        [["X"], ["B"]],
        {},
        [False, True],
        [["X"], []],
        id="missing_shows_needles_as_given",
    ),
]


@pytest.mark.parametrize(("actual", "expected", "kwargs", "correct", "missing"), INCLUDES_CASES)
def test_includes_list_column(constructor, actual, expected, kwargs, correct, missing) -> None:
    frame = constructor({"actual": actual, "expected": expected})
    result = frame.grade.includes("actual", "expected", **kwargs)
    assert_equal_data(
        result,
        {"correct": correct, "expectation": [INCLUDES] * len(actual), "missing": missing},
    )


def test_includes_one_needle_per_row(constructor) -> None:
    frame = constructor(
        {"actual": ["The cat sat", "A dog", None, "x"], "needle": ["CAT", "cat", "", None]}
    )
    assert_equal_data(
        frame.grade.includes("actual", "needle"),
        {"correct": [True, False, True, False], "missing": [[], ["cat"], [], []]},
    )


def test_includes_literal_needles_for_every_row(constructor) -> None:
    frame = constructor({"summary": ["Paris and Rome", "Paris only", None]})
    assert_equal_data(
        frame.grade.includes("summary", ["rome", "Paris"]),
        {"correct": [True, False, False], "missing": [[], ["rome"], ["rome", "Paris"]]},
    )
    assert_equal_data(
        frame.grade.includes("summary", []),
        {"correct": [False, False, False], "missing": [[], [], []]},
    )


def test_includes_null_needle_list_never_matches() -> None:
    df = pl.DataFrame({"a": ["x", "x"], "n": [None, ["x"]]})
    assert_equal_data(df.grade.includes("a", "n"), {"correct": [False, True], "missing": [[], []]})


def test_includes_number_answer_read_as_text(constructor) -> None:
    frame = constructor({"a": [1204, 15]})
    assert_equal_data(frame.grade.includes("a", ["120"]), {"correct": [True, False]})


#: About 0.5 MB (issue 38, G6): Polars compiles a literal needle that is one value for the
#: whole column (a literal, a one-row frame, a row's only needle) into a regex, and one this
#: long exceeded its size limit (a raw ComputeError for every row).
LONG_NEEDLE = "A long reference text " * 24_000

LONG_ANSWERS = [f"Quoted: {LONG_NEEDLE} (end)", "short", LONG_NEEDLE[:-3], None]


def _includes_reference(answer: str | None, needles: list[str], *, ignore_case: bool) -> bool:
    """The rule, in Python: every needle occurs in the answer (null reads as "")."""

    def case(text: str) -> str:
        return text.lower() if ignore_case else text

    return bool(needles) and all(case(n) in case(answer or "") for n in needles)


_LONG_LISTS = [[LONG_NEEDLE], ["short", LONG_NEEDLE.upper()], [LONG_NEEDLE + "!"], ["x"]]


@pytest.mark.parametrize(
    ("layout", "needles", "ignore_case"),
    [
        pytest.param("literal", [[LONG_NEEDLE]] * 4, True, id="literal_needle"),
        pytest.param("string", [[LONG_NEEDLE.lower()]], True, id="one_row_needle_column"),
        pytest.param("list", _LONG_LISTS, True, id="needle_lists"),
        pytest.param("list", _LONG_LISTS, False, id="needle_lists_case_kept"),
    ],
)
def test_includes_half_megabyte_needle_is_matched_not_a_regex_error(
    constructor, layout, needles, ignore_case
) -> None:
    answers = LONG_ANSWERS[: len(needles)]
    if layout == "literal":
        frame = constructor({"actual": answers})
        result = frame.grade.includes("actual", needles[0], ignore_case=ignore_case)
    else:
        column = [n[0] for n in needles] if layout == "string" else needles
        frame = constructor({"actual": answers, "needles": column})
        result = frame.grade.includes("actual", "needles", ignore_case=ignore_case)
    expected = [
        _includes_reference(a, n, ignore_case=ignore_case)
        for a, n in zip(answers, needles, strict=True)
    ]
    data = to_data(result)
    assert data["correct"] == expected
    missing = [
        [m for m in n if not _includes_reference(a, [m], ignore_case=ignore_case)]
        for a, n in zip(answers, needles, strict=True)
    ]
    assert data["missing"] == missing


@pytest.mark.parametrize("where", ["pattern", "pattern_column"])
def test_matches_pattern_over_polars_size_limit_raises_naming_it(constructor, where) -> None:
    # Polars rejects it (its regex size limit); the regex module's fallback did not finish in
    # minutes (its search timeout is not checked inside a long literal): a clear error instead.
    frame = constructor({"actual": LONG_ANSWERS[:2], "pattern": [LONG_NEEDLE, "x"]})
    named = "`pattern`" if where == "pattern" else "`pattern_column` row 0"
    options = {"pattern": LONG_NEEDLE} if where == "pattern" else {"pattern_column": "pattern"}
    with pytest.raises(ValueError, match=rf"{re.escape(named)}: .*over Polars' regex size limit"):
        to_data(frame.grade.matches("actual", **options))


# --------------------------------------------------------------------------------------------
# matches
# --------------------------------------------------------------------------------------------

SEED_CODE = r"\A[A-Z]{2}-\d{4}\z"

MATCHES_CASES = [
    pytest.param(
        SEED_CODE,
        ["AB-1234", "ab-1234", "AB-1234\n", "XAB-1234", "AB-12345", None],
        [True, False, False, False, False, False],
        id="seed_code_anchored_at_both_ends",
    ),
    pytest.param(
        r"\A\d+\Z", ["12", "12\n", "a12"], [True, False, False], id="python_Z_is_end_of_text"
    ),
    pytest.param(r"wor", ["Hello world", "WORLD"], [True, False], id="searches_anywhere_case_kept"),
    pytest.param(
        r"(?<![-\d])12\b",
        ["12", "-12", "x 12", "112"],
        [True, False, True, False],
        id="lookbehind_runs_on_regex",
    ),
    pytest.param(r"(\w)\1", ["hello", "helo"], [True, False], id="backreference_runs_on_regex"),
    pytest.param(
        r"(?=.*\d)\A[a-z0-9]+\z",
        ["abc1", "abc", "abc1\n"],
        [True, False, False],
        id="lookahead_with_z_anchor",
    ),
    pytest.param(r"^$", [None, "x", ""], [True, False, True], id="null_answer_reads_as_empty"),
    pytest.param(
        re.compile(r"^abc$", re.I | re.M), ["x\nABC", "abd"], [True, False], id="re_flags_kept"
    ),
    pytest.param(
        re.compile(r"a b  # a comment", re.X), ["ab", "a b"], [True, False], id="verbose_flag_kept"
    ),
    pytest.param(
        regex.compile(r"(?<=a)b", regex.I),
        ["AB", "b"],
        [True, False],
        id="regex_pattern_with_flags",
    ),
]


@pytest.mark.parametrize(("pattern", "actual", "correct"), MATCHES_CASES)
def test_matches_one_pattern(constructor, pattern, actual, correct) -> None:
    frame = constructor({"actual": actual})
    result = frame.grade.matches("actual", pattern)
    assert_equal_data(result, {"correct": correct, "expectation": [MATCHES] * len(actual)})


def test_matches_pattern_column_mixes_engines(constructor) -> None:
    frame = constructor(
        {
            "actual": ["AB-1234", "x1", "abab", None, "AB-12", "x2", "abba"],
            "pattern": [SEED_CODE, r"x(?=1)", r"(ab)\1", r"^$", SEED_CODE, r"x(?=1)", r"(ab)\1"],
        }
    )
    result = frame.grade.matches("actual", pattern_column="pattern", label="code format")
    assert_equal_data(
        result,
        {
            "correct": [True, True, True, True, False, False, False],
            "expectation": ["code format"] * 7,
            "pattern": [SEED_CODE, r"x(?=1)", r"(ab)\1", r"^$", SEED_CODE, r"x(?=1)", r"(ab)\1"],
        },
    )


def test_matches_pattern_column_keeps_row_order_against_regex_oracle() -> None:
    rng = random.Random(4)
    patterns = [r"\d{2}", r"^a", r"(?<=b)c", r"(.)\1", r"z$", r"\Ab", "[xy]+"]
    alphabet = "abcxyz12"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6))) for _ in range(300)]
    rows = [rng.choice(patterns) for _ in texts]
    df = pl.DataFrame({"a": texts, "p": rows})
    got = df.grade.matches("a", pattern_column="p")["correct"].to_list()
    want = [regex.search(p, t) is not None for p, t in zip(rows, texts, strict=True)]
    assert got == want
    bare = df.select(gf.matches("a", pattern_column="p")).unnest("matches")["correct"].to_list()
    assert bare == want


def test_matches_expression_without_schema() -> None:
    df = pl.DataFrame({"a": ["AB-1234", None, "no"]})
    got = df.select(gf.matches("a", SEED_CODE)).unnest("matches")
    assert got["correct"].to_list() == [True, False, False]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        pytest.param({}, ValueError, "exactly one of `pattern`.*given neither", id="neither"),
        pytest.param({"pattern": "a", "pattern_column": "p"}, ValueError, "given both", id="both"),
        pytest.param(
            {"pattern": "("},
            ValueError,
            r"`pattern`: '\(' is not a valid regular expression",
            id="invalid_pattern",
        ),
        pytest.param(
            {"pattern": 12},
            TypeError,
            "`pattern` must be a str, re.Pattern or regex.Pattern",
            id="number_is_not_a_pattern",
        ),
        pytest.param({"pattern": re.compile(b"x")}, TypeError, "bytes pattern", id="bytes_pattern"),
        pytest.param(
            {"pattern_column": "nope"},
            pl.exceptions.ColumnNotFoundError,
            "no column 'nope'",
            id="missing_pattern_column",
        ),
        pytest.param(
            {"pattern": "a", "label": 3},
            TypeError,
            "`label` must be a str or None",
            id="label_not_text",
        ),
    ],
)
def test_matches_argument_errors(constructor, kwargs, error, match) -> None:
    frame = constructor({"actual": ["a"], "p": ["a"]})
    with pytest.raises(error, match=match):
        frame.grade.matches("actual", **kwargs)


def test_matches_invalid_pattern_in_column_names_row(constructor) -> None:
    frame = constructor({"actual": ["a", "b", "c"], "p": ["a", "b", "(x"]})
    with pytest.raises(ValueError, match=r"`pattern_column` row 2: '\(x' is not a valid"):
        to_data(frame.grade.matches("actual", pattern_column="p"))


def test_matches_null_pattern_names_row(constructor) -> None:
    frame = constructor({"actual": ["a", "b"], "p": ["a", None]})
    with pytest.raises(ValueError, match="`pattern_column`: row 1 has no pattern"):
        to_data(frame.grade.matches("actual", pattern_column="p"))


def test_matches_catastrophic_pattern_fails_naming_it(monkeypatch, constructor) -> None:
    monkeypatch.setattr(matchers, "REGEX_TIMEOUT", 0.05)
    frame = constructor({"actual": ["a" * 40 + "b"]})
    with pytest.raises(ValueError, match=r"'\(\?=a\)\(a\|aa\)\+\$' took longer than 0.05 s"):
        to_data(frame.grade.matches("actual", r"(?=a)(a|aa)+$"))


# --------------------------------------------------------------------------------------------
# within
# --------------------------------------------------------------------------------------------

WITHIN_CASES = [
    pytest.param(
        [25, 26, 28, 29],
        [27, 27, 27, 27],
        {"delta": 1},
        [False, True, True, False],
        [2.0, 1.0, 1.0, 2.0],
        [1.0] * 4,
        id="25_is_not_within_1_of_27",
    ),
    pytest.param(
        [101, 102, 99.5],
        [100, 100, 100],
        {"percent": 1},
        [True, False, True],
        [1.0, 2.0, 0.5],
        [1.0] * 3,
        id="percent_of_expected",
    ),
    pytest.param(
        [-99, -98],
        [-100, -100],
        {"percent": 1},
        [True, False],
        [1.0, 2.0],
        [1.0, 1.0],
        id="percent_of_negative_expected_is_positive",
    ),
    pytest.param(
        [0, 0.001],
        [0, 0],
        {"percent": 10},
        [True, False],
        [0.0, 0.001],
        [0.0, 0.0],
        id="zero_expected_admits_only_zero",
    ),
    pytest.param(
        [None, 3],
        [3, 3],
        {"delta": 1},
        [False, True],
        [None, 0.0],
        [1.0, 1.0],
        id="null_answer_fails_its_row",
    ),
]


@pytest.mark.parametrize(
    ("actual", "expected", "kwargs", "correct", "difference", "tolerance"), WITHIN_CASES
)
def test_within_numbers(
    constructor, actual, expected, kwargs, correct, difference, tolerance
) -> None:
    frame = constructor({"actual": actual, "expected": expected})
    result = frame.grade.within("actual", "expected", **kwargs)
    assert_equal_data(
        result, {"correct": correct, "difference": difference, "tolerance": tolerance}
    )


TEXT_ANSWERS = [
    pytest.param("1,204", True, 0.0, id="thousands_separator_folded"),
    pytest.param(" 1204 ", True, 0.0, id="surrounding_space_folded"),
    pytest.param("1\u00a0204", True, 0.0, id="no_break_space_separator_folded"),
    pytest.param("1204.0", True, 0.0, id="decimal_text"),
    pytest.param("1.204e3", True, 0.0, id="exponent_text"),
    pytest.param("\u22121204", False, 2408.0, id="unicode_minus_folded"),
    pytest.param("about forty", False, None, id="words_fail_their_row"),
    pytest.param("1204 apples", False, None, id="number_with_words_fails_its_row"),
    pytest.param("1204 1205", False, None, id="two_numbers_fail_their_row"),
    pytest.param("", False, None, id="empty_text_fails_its_row"),
    pytest.param("nan", False, None, id="nan_text_is_not_a_number"),
]


@pytest.mark.parametrize(("answer", "correct", "difference"), TEXT_ANSWERS)
def test_within_text_answers(constructor, answer, correct, difference) -> None:
    frame = constructor({"actual": [answer], "expected": [1204]})
    assert_equal_data(
        frame.grade.within("actual", "expected", delta=0),
        {"correct": [correct], "difference": [difference], "tolerance": [0.0]},
    )


def test_within_negative_text() -> None:
    df = pl.DataFrame({"a": ["-3.5", "3.5"]})
    assert_equal_data(df.grade.within("a", -3.5, delta=0.1), {"correct": [True, False]})


@pytest.mark.parametrize(
    ("kwargs", "description"),
    [
        pytest.param({"delta": 0.5}, "within 0.5 of expected", id="delta_half"),
        pytest.param({"delta": 1}, "within 1 of expected", id="delta_int_has_no_point_zero"),
        pytest.param({"percent": 2.5}, "within 2.5% of expected", id="percent"),
        pytest.param({"percent": 1, "label": "total"}, "total", id="label_replaces_description"),
    ],
)
def test_within_description(constructor, kwargs, description) -> None:
    frame = constructor({"actual": [1.0, None]})
    assert_equal_data(frame.grade.within("actual", 1, **kwargs), {"expectation": [description] * 2})


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        pytest.param(
            {},
            ValueError,
            "exactly one of `delta` and `percent`, and was given neither",
            id="neither",
        ),
        pytest.param({"delta": 1, "percent": 1}, ValueError, "was given both", id="both"),
        pytest.param(
            {"delta": -1}, ValueError, "`delta` must be a finite number >= 0", id="negative_delta"
        ),
        pytest.param(
            {"percent": float("nan")},
            ValueError,
            "`percent` must be a finite number",
            id="nan_percent",
        ),
        pytest.param({"delta": "1"}, TypeError, "`delta` must be a number", id="text_delta"),
        pytest.param({"delta": True}, TypeError, "`delta` must be a number", id="boolean_delta"),
    ],
)
def test_within_argument_errors(constructor, kwargs, error, match) -> None:
    frame = constructor({"actual": [1], "expected": [1]})
    with pytest.raises(error, match=match):
        frame.grade.within("actual", "expected", **kwargs)


def test_within_null_expected_names_row(constructor) -> None:
    frame = constructor({"actual": [1.0, 2.0, 3.0], "expected": [1.0, None, 3.0]})
    with pytest.raises(ValueError, match="expected value in row 1 is null"):
        to_data(frame.grade.within("actual", "expected", delta=1))


def test_within_nan_expected_names_row() -> None:
    df = pl.DataFrame({"actual": [1.0, 2.0], "expected": [1.0, float("nan")]})
    with pytest.raises(ValueError, match="expected value in row 1 is null"):
        df.grade.within("actual", "expected", delta=1)


def test_within_text_expected_raises(constructor) -> None:
    frame = constructor({"actual": [1.0], "expected": ["27"]})
    with pytest.raises(TypeError, match="`expected`: column 'expected' has dtype String"):
        frame.grade.within("actual", "expected", delta=1)


def test_within_boolean_answer_fails_its_row(constructor) -> None:
    frame = constructor({"actual": [True, False]})
    assert_equal_data(
        frame.grade.within("actual", 1, delta=5),
        {"correct": [False, False], "difference": [None, None]},
    )


def test_within_expression_without_schema() -> None:
    df = pl.DataFrame({"a": ["27", "1,300", "x"], "e": [27, 1200, 5]})
    got = df.select(gf.within("a", "e", percent=10)).unnest("within")
    assert got["correct"].to_list() == [True, True, False]
    assert got["tolerance"].to_list() == [pytest.approx(2.7), 120.0, 0.5]


# --------------------------------------------------------------------------------------------
# Shared behaviour: prefix, clashes, missing columns, laziness, argument checks
# --------------------------------------------------------------------------------------------

CALLS = {
    "exact_match": lambda f, **kw: f.grade.exact_match("actual", "expected", **kw),
    "includes": lambda f, **kw: f.grade.includes("actual", ["a"], **kw),
    "matches": lambda f, **kw: f.grade.matches("actual", "a", **kw),
    "within": lambda f, **kw: f.grade.within("number", "expected_number", delta=1, **kw),
}
COLUMNS = {
    "exact_match": gf.matchers.EXACT_MATCH_COLUMNS,
    "includes": gf.matchers.INCLUDES_COLUMNS,
    "matches": gf.matchers.MATCHES_COLUMNS,
    "within": gf.matchers.WITHIN_COLUMNS,
}


def _frame(constructor):
    return constructor(
        {
            "actual": ["a", None],
            "expected": ["A", "b"],
            "number": [1, 5],
            "expected_number": [1, 1],
        }
    )


@pytest.mark.parametrize("matcher", CALLS)
def test_prefix_names_every_column_and_rows_kept(constructor, matcher) -> None:
    frame = _frame(constructor)
    result = CALLS[matcher](frame, prefix="m_")
    assert _is_lazy(result) == _is_lazy(frame)
    data = to_data(result)
    assert list(data) == [*to_data(frame), *("m_" + c for c in COLUMNS[matcher])]
    assert data["actual"] == ["a", None]
    assert data["m_correct"] == [True, False]


@pytest.mark.parametrize("matcher", CALLS)
def test_output_clash_raises(constructor, matcher) -> None:
    frame = constructor(
        {
            "actual": ["a"],
            "expected": ["a"],
            "number": [1],
            "expected_number": [1],
            "correct": [True],
        }
    )
    with pytest.raises(ValueError, match=r"already has column.*'correct'"):
        CALLS[matcher](frame)


@pytest.mark.parametrize("matcher", CALLS)
def test_prefix_must_be_text(constructor, matcher) -> None:
    with pytest.raises(TypeError, match="`prefix` must be a str"):
        CALLS[matcher](_frame(constructor), prefix=1)


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        pytest.param(
            lambda f: f.grade.exact_match("nope", "expected"),
            pl.exceptions.ColumnNotFoundError,
            r"`actual='nope'`: the frame has no column 'nope'",
            id="missing_actual",
        ),
        pytest.param(
            lambda f: f.grade.includes("actual", "nope"),
            pl.exceptions.ColumnNotFoundError,
            r"`expected='nope'`",
            id="missing_expected",
        ),
        pytest.param(
            lambda f: f.grade.exact_match("actual", "expected", ignore_case="yes"),
            TypeError,
            "`ignore_case` must be True or False",
            id="flag_not_boolean",
        ),
        pytest.param(
            lambda f: f.grade.exact_match("actual", "expected", strip=None),
            TypeError,
            "`strip` must be True or False",
            id="strip_not_boolean",
        ),
        pytest.param(
            lambda f: f.grade.exact_match("actual", ["a", 1]),
            TypeError,
            r"`expected\[1\]` must be a str \(an acceptable answer\)",
            id="acceptable_answer_not_text",
        ),
        pytest.param(
            lambda f: f.grade.includes("actual", ["a", 1]),
            TypeError,
            r"`expected\[1\]` must be a str",
            id="needle_not_text",
        ),
        pytest.param(
            lambda f: f.grade.includes("actual", "number_float"),
            TypeError,
            "`expected`: column 'number_float' has dtype Float64; expected String or List",
            id="float_needles",
        ),
        pytest.param(
            lambda f: f.grade.within("actual", True, delta=1),
            TypeError,
            "`expected` must be numeric",
            id="boolean_expected",
        ),
    ],
)
def test_argument_errors_raise_at_call_time(constructor, call, error, match) -> None:
    frame = constructor({"actual": ["a"], "expected": ["a"], "number_float": [1.5]})
    with pytest.raises(error, match=match):
        call(frame)  # no collect: a LazyFrame raises here too


def test_within_date_answer_raises() -> None:
    import datetime as dt

    df = pl.DataFrame({"a": [dt.date(2024, 1, 1)]})
    with pytest.raises(
        TypeError, match="`actual`: column 'a' has dtype Date; expected numbers or text"
    ):
        df.grade.within("a", 1, delta=1)


def test_expression_arguments_are_checked_now() -> None:
    lf = pl.LazyFrame({"a": ["x"]})
    with pytest.raises(TypeError, match="`expected`: the expression has dtype String"):
        lf.grade.within("a", pl.col("a").str.to_uppercase(), delta=1)


def test_max_metadata_length_is_exported() -> None:
    assert gf.MAX_METADATA_LENGTH == 500
    assert matchers.MAX_METADATA_LENGTH == 500
    from gradeframe.matchers import MAX_METADATA_LENGTH

    assert MAX_METADATA_LENGTH == 500


def test_max_metadata_length_set_at_run_time_shows_in_matchers(monkeypatch) -> None:
    monkeypatch.setattr(gf, "MAX_METADATA_LENGTH", 80)
    assert matchers.MAX_METADATA_LENGTH == 80


# --------------------------------------------------------------------------------------------
# pandas object columns that mix kinds of value
# --------------------------------------------------------------------------------------------


def _objects(**columns: list[Any]) -> pd.DataFrame:
    return pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in columns.items()})


def test_pandas_mixed_exact_match_keeps_kinds_apart() -> None:
    frame = _objects(
        actual=["12", 12, True, 1.5, None, " X", 7],
        expected=[12, 12, 1, 1.5, None, "x", "7"],
    )
    result = frame.grade.exact_match("actual", "expected")
    assert result["correct"].tolist() == [False, True, False, True, True, True, False]
    pd.testing.assert_frame_equal(result[["actual", "expected"]], frame)


def test_pandas_true_is_not_1_in_a_numeric_object_column() -> None:
    # Arrow alone would read [1.5, True] as [1.5, 1.0].
    frame = _objects(actual=[1.5, True], expected=[1.5, 1.0])
    assert frame.grade.exact_match("actual", "expected")["correct"].tolist() == [True, False]


def test_pandas_mixed_includes_reads_numbers_as_text() -> None:
    frame = _objects(actual=[1204, "ab 12", True, None])
    result = frame.grade.includes("actual", ["12"])
    assert result["correct"].tolist() == [True, True, False, False]


def test_pandas_mixed_matches() -> None:
    frame = _objects(actual=[1204, "AB-1234", False])
    result = frame.grade.matches("actual", r"^\d+$|\A[A-Z]{2}-\d{4}\z")
    assert result["correct"].tolist() == [True, True, False]


def test_pandas_mixed_within_answers() -> None:
    frame = _objects(actual=["1,204", 1204, True, "about", np.nan, 1204.4])
    result = frame.grade.within("actual", 1204, delta=0.5)
    assert result["correct"].tolist() == [True, True, False, False, False, True]
    assert to_data(result)["difference"] == [0.0, 0.0, None, None, None, pytest.approx(0.4)]


def test_pandas_mixed_expected_text_names_row() -> None:
    frame = _objects(actual=[27, 27], expected=[27, "27"])
    with pytest.raises(ValueError, match="expected value in row 1 is '27'"):
        frame.grade.within("actual", "expected", delta=1)


def test_pandas_index_kept_and_frame_unchanged() -> None:
    frame = pd.DataFrame(
        {"answer": ["a", "b", "c"], "truth": ["A", "x", "c"]}, index=["r1", "r2", "r2"]
    )
    before = frame.copy()
    result = frame.grade.exact_match("answer", "truth")
    assert list(result.index) == ["r1", "r2", "r2"]
    assert result["correct"].tolist() == [True, False, True]
    pd.testing.assert_frame_equal(frame, before)


# --------------------------------------------------------------------------------------------
# Contract v2: the same answers on both regex engines, rounding, lists and folding
# --------------------------------------------------------------------------------------------

DOLLAR_CASES = [
    # Rust's "$" is the very end of the text; Python's also matches before a final newline.
    pytest.param(r"x$", "polars", id="dollar_on_polars"),
    pytest.param(r"(?=x)x$", "regex", id="dollar_on_regex_fallback"),
    pytest.param(r"(?<!y)x$", "regex", id="dollar_after_lookbehind"),
    pytest.param(r"(x)(?!y)\1?$", "regex", id="dollar_with_backreference"),
]


@pytest.mark.parametrize(("pattern", "engine"), DOLLAR_CASES)
def test_matches_dollar_is_end_of_text_on_both_engines(constructor, pattern, engine) -> None:
    frame = constructor({"actual": ["x\n", "x", "yx\n", "x\nx"]})
    assert_equal_data(
        frame.grade.matches("actual", pattern), {"correct": [False, True, False, True]}
    )


@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param(r"(?m)(?=x)x$", id="global_multiline"),
        pytest.param(re.compile(r"(?=x)x$", re.M), id="compiled_multiline"),
        pytest.param(r"(?m:(?=x)x$)", id="scoped_multiline"),
    ],
)
def test_matches_multiline_dollar_before_newline_on_both_engines(constructor, pattern) -> None:
    frame = constructor({"actual": ["x\n", "x\ny", "xy"]})
    polars_answer = frame.grade.matches("actual", r"(?m)x$")
    fallback_answer = frame.grade.matches("actual", pattern)
    assert to_data(fallback_answer)["correct"] == to_data(polars_answer)["correct"]
    assert to_data(fallback_answer)["correct"] == [True, True, False]


@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param(r"(?=a)a[$]", id="dollar_in_class_is_literal"),
        pytest.param(r"(?=a)a\$", id="escaped_dollar_is_literal"),
    ],
)
def test_matches_literal_dollar_untouched(constructor, pattern) -> None:
    frame = constructor({"actual": ["a$", "a", "a\n"]})
    assert_equal_data(frame.grade.matches("actual", pattern), {"correct": [True, False, False]})


def test_matches_pattern_column_fallback_dollar() -> None:
    df = pl.DataFrame({"a": ["x\n", "x", "x\n"], "p": [r"(?=x)x$", r"(?=x)x$", r"x$"]})
    assert df.grade.matches("a", pattern_column="p")["correct"].to_list() == [False, True, False]


ROUNDING_CASES = [
    pytest.param(1.1, 1.0, {"delta": 0.1}, True, 0.1, id="1.1_within_0.1_of_1.0"),
    pytest.param(0.1 + 0.2, 0.3, {"delta": 0}, True, 0.0, id="0.1_plus_0.2_within_0_of_0.3"),
    pytest.param(1.2, 1.0, {"delta": 0.1}, False, 0.2, id="1.2_not_within_0.1_of_1.0"),
    pytest.param(110.00000000001, 100.0, {"percent": 10}, True, 10.0, id="percent_noise"),
    pytest.param(
        1.0000000001, 1.0, {"delta": 0}, False, pytest.approx(1e-10), id="real_difference_kept"
    ),
]


@pytest.mark.parametrize(("actual", "expected", "kwargs", "correct", "difference"), ROUNDING_CASES)
def test_within_rounds_to_12_significant_digits(
    constructor, actual, expected, kwargs, correct, difference
) -> None:
    frame = constructor({"actual": [actual], "expected": [expected]})
    data = to_data(frame.grade.within("actual", "expected", **kwargs))
    assert data["correct"] == [correct]
    assert data["difference"] == [difference]


def test_within_text_answer_rounds_too(constructor) -> None:
    frame = constructor({"actual": ["1.1", "0.30000000000000004"], "expected": [1.0, 0.3]})
    assert_equal_data(
        frame.grade.within("actual", "expected", delta=0.1), {"correct": [True, True]}
    )


def test_exact_match_list_expected_is_any_of_them(constructor) -> None:
    frame = constructor({"actual": [" Paris", "Lyon", None, "nice"]})
    result = frame.grade.exact_match("actual", ["paris", "Nice"])
    assert_equal_data(result, {"correct": [True, False, False, True]})


def test_exact_match_list_column_is_any_of_them() -> None:
    df = pl.DataFrame(
        {"actual": ["Paris", "Rome", "x", None], "expected": [["Lyon", "PARIS"], ["x"], [], ["a"]]}
    )
    assert df.grade.exact_match("actual", "expected")["correct"].to_list() == [
        True,
        False,
        False,
        False,
    ]


def test_exact_match_two_lists_compare_with_eq() -> None:
    df = pl.DataFrame({"actual": [["a", "b"], ["a", "b"]], "expected": [["a", "b"], ["b", "a"]]})
    assert df.grade.exact_match("actual", "expected")["correct"].to_list() == [True, False]


FOLD_EXACT_CASES = [
    pytest.param("3,000", "3000", True, id="thousands_separator"),
    pytest.param("1\u2009204", "1204", True, id="thin_space_separator"),
    pytest.param("12\u201315", "12-15", True, id="en_dash"),
    pytest.param("  New   York ", "new york", True, id="white_space_collapsed"),
    pytest.param("3 100", "3100", False, id="plain_space_is_not_a_separator"),
    pytest.param("about 3000", "3000", False, id="still_exact"),
]


@pytest.mark.parametrize(("actual", "expected", "correct"), FOLD_EXACT_CASES)
def test_exact_match_fold(constructor, actual, expected, correct) -> None:
    frame = constructor({"actual": [actual], "expected": [expected]})
    assert_equal_data(
        frame.grade.exact_match("actual", "expected", fold=True), {"correct": [correct]}
    )
    plain = frame.grade.exact_match("actual", "expected")
    assert to_data(plain)["correct"] == [actual.strip().lower() == expected.lower()]


FOLD_INCLUDES_CASES = [
    pytest.param("Sold 12,400 units", "12400", True, id="12,400_includes_12400"),
    pytest.param("It fell to -12 degrees", "12", False, id="minus_12_does_not_include_12"),
    pytest.param("In 2012 it rose", "12", False, id="2012_does_not_include_12"),
    pytest.param("COVID-19 cases", "19", True, id="hyphen_is_not_a_minus"),
    pytest.param("It was 12.", "12", True, id="final_full_stop"),
    pytest.param("45.25 m", "45.2", False, id="decimal_continues"),
    pytest.param("temp -12 today", "-12", True, id="negative_needle"),
    pytest.param("PARIS, France", "paris", True, id="case_folded"),
]


@pytest.mark.parametrize(("actual", "needle", "found"), FOLD_INCLUDES_CASES)
def test_includes_fold_numbers_whole(constructor, actual, needle, found) -> None:
    frame = constructor({"actual": [actual], "needle": [needle], "needles": [[needle, "x"]]})
    assert_equal_data(
        frame.grade.includes("actual", "needle", fold=True),
        {"correct": [found], "missing": [[] if found else [needle]]},
    )
    assert_equal_data(
        frame.grade.includes("actual", [needle], fold=True),
        {"correct": [found], "missing": [[] if found else [needle]]},
    )
    listed = frame.grade.includes("actual", "needles", fold=True)
    assert to_data(listed)["missing"] == [["x"] if found else [needle, "x"]]


def test_includes_fold_agrees_with_answer_contains(constructor) -> None:
    answers = ["Sold 12,400 units", "-12", "x = 12", "COVID-19", "1\u00bd-2 cups", "3-.5"]
    needles = ["12400", "12", "12", "19", "2", "-.5"]
    frame = constructor({"answer": answers, "refs": needles})
    contains = to_data(frame.grade.answer_contains("answer", "refs"))["correct"]
    includes = to_data(frame.grade.includes("answer", "refs", fold=True))["correct"]
    assert includes == contains


@pytest.mark.parametrize(
    ("call", "match"),
    [
        pytest.param(
            lambda f: f.grade.exact_match("a", "a", fold=True, ignore_case=False),
            "cannot be combined with ignore_case=False",
            id="exact_fold_keeps_case",
        ),
        pytest.param(
            lambda f: f.grade.exact_match("a", "a", fold=True, strip=False),
            "cannot be combined with strip=False",
            id="exact_fold_keeps_space",
        ),
        pytest.param(
            lambda f: f.grade.includes("a", ["x"], fold=True, ignore_case=False),
            "cannot be combined with ignore_case=False",
            id="includes_fold_keeps_case",
        ),
    ],
)
def test_fold_contradictions_raise(constructor, call, match) -> None:
    with pytest.raises(ValueError, match=match):
        call(constructor({"a": ["x"]}))


def test_fold_flag_must_be_boolean(constructor) -> None:
    with pytest.raises(TypeError, match="`fold` must be True or False"):
        constructor({"a": ["x"]}).grade.includes("a", ["x"], fold="yes")


def test_matchers_module_attributes_and_modules() -> None:
    import sys

    assert matchers.REGEX_TIMEOUT == 1.0
    assert matchers.matches is gf.matches  # the function, not its module
    assert sys.modules["gradeframe.matchers.matches"].matches is gf.matches
    assert set(gf.matchers.CHOICE_COLUMNS) == {"correct", "expectation", "chosen"}
    assert gf.matchers.F1_COLUMNS == ("correct", "expectation", "f1")


EMPTY_CALLS = {
    "exact_match": lambda f: f.grade.exact_match("a", "k"),
    "includes": lambda f: f.grade.includes("a", "l"),
    "includes_fold": lambda f: f.grade.includes("a", "l", fold=True),
    "matches": lambda f: f.grade.matches("a", r"(?=x)x$"),
    "matches_column": lambda f: f.grade.matches("a", pattern_column="k"),
    "within": lambda f: f.grade.within("n", "n", delta=1),
    "choice": lambda f: f.grade.choice("a", "k"),
    "f1": lambda f: f.grade.f1("a", "l"),
}


@pytest.mark.parametrize("matcher", EMPTY_CALLS)
def test_empty_frame_gives_the_output_schema(matcher) -> None:
    # Dask and Spark build their metadata by grading an empty frame.
    schema = {"a": pl.String, "k": pl.String, "n": pl.Float64, "l": pl.List(pl.String)}
    empty = pl.DataFrame(schema=schema)
    eager = EMPTY_CALLS[matcher](empty)
    lazy = EMPTY_CALLS[matcher](empty.lazy()).collect()
    pandas = EMPTY_CALLS[matcher](empty.to_pandas())
    assert eager.height == 0
    assert lazy.schema == eager.schema
    assert list(pandas.columns) == eager.columns
    assert eager.schema["correct"] == pl.Boolean


# --------------------------------------------------------------------------------------------
# The expression form in group_by().agg(), over() and when/then
# --------------------------------------------------------------------------------------------

EXPRESSIONS = {
    "exact_match": lambda: gf.exact_match("text", "ref"),
    "includes": lambda: gf.includes("text", "ref"),
    "matches": lambda: gf.matches("text", "ref"),
    "within": lambda: gf.within("number", "truth", delta=1),
    "choice": lambda: gf.choice("text", "ref"),
    "f1": lambda: gf.f1("text", "ref"),
}


def _groups_frame(groups: int) -> pl.DataFrame:
    rows = 3 * groups
    return pl.DataFrame(
        {
            "group": [i % groups for i in range(rows)],
            "text": ["B", "answer A", "c"] * groups,
            "ref": ["B", "A", "D"] * groups,
            "number": [float(i % 7) for i in range(rows)],
            "truth": [float(i % 5) for i in range(rows)],
        }
    )


@pytest.mark.parametrize("engine", ["eager", "lazy", "streaming"])
@pytest.mark.parametrize("name", list(EXPRESSIONS))
def test_thousand_groups_grade_in_one_call_not_one_per_group(monkeypatch, name, engine) -> None:
    # 1,000 groups: graded once over all rows (a call per group took 51 s for choice)
    calls = []
    expression = matchers._base.expression

    def counted(*args: Any, **kwargs: Any) -> pl.Expr:
        if kwargs.get("schema") is not None:
            calls.append(1)  # the deferred form grading a batch
        return expression(*args, **kwargs)

    monkeypatch.setattr(matchers._base, "expression", counted)
    frame = _groups_frame(1000)
    want = frame.with_columns(EXPRESSIONS[name]().struct.field("correct").alias("out"))
    correct = EXPRESSIONS[name]().struct.field("correct")
    queries = [
        lambda f: f.group_by("group", maintain_order=True).agg(correct.alias("out")),
        lambda f: f.select(correct.mean().over("group").alias("out")),
    ]
    wants = [
        want.group_by("group", maintain_order=True).agg("out"),
        want.select(pl.col("out").mean().over("group")),
    ]
    for query, expected in zip(queries, wants, strict=True):
        calls.clear()
        if engine == "eager":
            got = query(frame)
        else:
            got = query(frame.lazy()).collect(
                engine="streaming" if engine == "streaming" else "auto"
            )
        assert_equal_data(got, to_data(expected))
        assert 1 <= len(calls) <= 4, f"{len(calls)} calls for 1,000 groups"


@pytest.mark.parametrize("engine", ["lazy", "streaming"])
@pytest.mark.parametrize(
    ("name", "expr", "bad"),
    [
        ("within", lambda: gf.within("number", "truth", delta=1), {"truth": None}),
        ("choice", lambda: gf.choice("text", "ref"), {"ref": None}),
        ("f1", lambda: gf.f1("text", "ref"), {"ref": None}),
    ],
)
def test_when_then_masked_rows_are_not_checked_but_chosen_ones_are(name, expr, bad, engine) -> None:
    # Polars hands the rows a when/then leaves out to the matcher as nulls: they must not raise,
    # while a null expected value in a chosen row still raises naming it.
    frame = _groups_frame(2).with_columns(
        **{
            column: pl.when(pl.col("group") == 1).then(None).otherwise(pl.col(column))
            for column in bad
        }
    )
    chosen = pl.when(pl.col("group") == 0).then(expr().struct.field("correct")).alias("out")
    collect = {"engine": "streaming" if engine == "streaming" else "auto"}
    got = frame.lazy().select(chosen).collect(**collect).to_series()
    want = frame.filter(pl.col("group") == 0).pipe(
        lambda f: getattr(f.grade, name)(*_ARGS[name], **_KWARGS.get(name, {}))
    )
    assert got.gather_every(2).to_list() == want.get_column("correct").to_list()
    assert got.gather_every(2, offset=1).null_count() == 3
    everywhere = pl.when(pl.col("group") >= 0).then(expr().struct.field("correct"))
    # (the lazy engines hand over batches: the row is counted within its batch)
    with pytest.raises(ValueError, match=f"`{name}`: the expected value in row \\d+ "):
        frame.lazy().select(everywhere).collect(**collect)
    with pytest.raises(ValueError, match=f"`{name}`: the expected value in row 1"):
        getattr(frame.grade, name)(*_ARGS[name], **_KWARGS.get(name, {}))


_ARGS = {"within": ("number", "truth"), "choice": ("text", "ref"), "f1": ("text", "ref")}
_KWARGS = {"within": {"delta": 1}}
