"""choice: the option letters a multiple-choice answer chose.

Every case runs on Polars eager, Polars lazy, pandas with object columns and pandas with Arrow
columns (the ``constructor`` fixture). Cases are named after the trap they guard; where a case
comes from a peer's tests or issue thread, the comment says which.
"""

from __future__ import annotations

import polars as pl
import pytest

import gradeframe as gf
from tests.utils import assert_equal_data, to_data

# (answer, letters it chose)
READING_CASES = [
    # The forms SPEC lists: a bare letter or letters, a leading label with its text.
    pytest.param("B", "B", id="bare_letter"),
    pytest.param("b", "B", id="lower_case_letter"),
    pytest.param("(B)", "B", id="letter_in_parentheses"),
    pytest.param("B.", "B", id="letter_and_full_stop"),
    pytest.param("A, C", "AC", id="comma_list"),
    pytest.param("AC", "AC", id="capitals_run_together"),
    pytest.param("A and C", "AC", id="and_list"),
    pytest.param("C, A", "AC", id="chosen_is_sorted"),
    pytest.param("B) Paris", "B", id="label_paren_then_text"),
    pytest.param("(B) Paris", "B", id="label_in_parentheses_then_text"),
    pytest.param("B. Paris", "B", id="label_full_stop_then_text"),
    pytest.param("the answer is (B)", "B", id="answer_is_in_parentheses"),
    # inspect_ai tests/scorer/test_choice.py: test_score_single_letter, _multiple_letters,
    # test_correct_single_answer ("ANSWERS: A").
    pytest.param("ANSWER: A", "A", id="inspect_answer_line"),
    pytest.param("ANSWER: A, B", "AB", id="inspect_answer_line_two_letters"),
    pytest.param("ANSWERS: A", "A", id="inspect_answers_plural"),
    pytest.param("ANSWERS: ", "", id="inspect_answers_none"),
    # inspect_ai issue #2216: every letter of a word was read as a choice.
    pytest.param("ANSWER: None of the above", "", id="inspect_2216_none_of_the_above"),
    pytest.param("ANSWER: Don't know", "", id="inspect_2216_d_inside_dont_know"),
    pytest.param("ANSWER: I don't know", "", id="inspect_2216_pronoun_i_and_dont"),
    pytest.param("Don't know", "", id="d_inside_word_without_marker"),
    # inspect_ai issue #721: chain of thought, then the answer line.
    pytest.param(
        "Let me think. Option A is wrong; B and D too.\nANSWER: C", "C", id="inspect_721_cot"
    ),
    # First vs last: the self-corrected last answer wins.
    pytest.param("ANSWER: A\nWait, that is wrong.\nANSWER: C", "C", id="last_answer_line_wins"),
    pytest.param("The answer is A. No: the answer is B.", "B", id="last_answer_is_wins"),
    # jundot/omlx PR #3668: a distractor named after the answer, and "I" harvested as option I.
    pytest.param(
        "The answer is B. Note that A is a common distractor.", "B", id="omlx_3668_distractor"
    ),
    pytest.param("ANSWER IS D. A is incorrect.", "D", id="omlx_3668_capital_answer_is"),
    pytest.param("The answer is C because I computed the integral.", "C", id="omlx_3668_pronoun_i"),
    # antirez/ds4 issue #321 / PR #319: a leading pronoun graded as option I.
    pytest.param("Answer: I think it is C", "", id="ds4_321_pronoun_is_not_option_i"),
    # IBM/AssetOpsBench PR #477: "the answer is C." mid-sentence, and a reasoning that ends on
    # the letter alone.
    pytest.param(
        "After comparing the options, the answer is C.", "C", id="assetops_477_mid_sentence"
    ),
    pytest.param(
        "The vibration data point to bearing wear.\n\nC", "C", id="assetops_477_letter_at_end"
    ),
    # NVIDIA-NeMo/Skills PR #1526: an explicit "Answer: X" line beats letters elsewhere.
    pytest.param(
        "so $\\langle H\\rangle \\ll \\Delta E$.\n**Answer: D**", "D", id="nemo_1526_bold_line"
    ),
    # EleutherAI/lm-evaluation-harness PR #2502 (bbh few-shot), issue #2905 (a final period)
    # and PR #4188 (generative MMLU): the forms its filters missed.
    pytest.param("Correct answer is (B)", "B", id="lm_eval_2502_correct_answer_is"),
    pytest.param(" (B)\n", "B", id="lm_eval_2502_spaces_and_newline"),
    pytest.param("(C).", "C", id="lm_eval_2905_final_period"),
    pytest.param("B. 4", "B", id="lm_eval_4188_label_then_value"),
    pytest.param("Let me think about this.\nANSWER: B", "B", id="lm_eval_4188_answer_line"),
    # lm-evaluation-harness PR #3879: the last parenthesised letter is a rejected option, not
    # the answer; without a marker nothing is guessed.
    pytest.param(
        "Conclusion: (B). Eliminated: (A), (C), (D).", "", id="lm_eval_3879_no_positional_guess"
    ),
    pytest.param("**Answer:** **B**", "B", id="markdown_bold_marker_and_value"),
    pytest.param("ANSWER: Option B", "B", id="option_word_before_letter"),
    pytest.param("The answer is option C because", "C", id="answer_is_option_letter"),
    pytest.param("Options A and C", "AC", id="option_word_not_read_as_letters"),
    pytest.param("I choose option B", "", id="option_mid_sentence_not_read"),
    pytest.param("B\nBecause Paris is the capital.", "B", id="letter_then_reasons"),
    pytest.param("bad", "", id="lower_case_word_is_not_a_list"),
    pytest.param("A dog barked.", "", id="article_a_is_not_a_choice"),
    pytest.param("I think B", "", id="bare_claim_without_marker_chose_nothing"),
    pytest.param("ANSWER: K", "", id="letter_outside_options"),
    # SPEC v3 §3: a bare run counts only in capitals, distinct, in the order of the letters.
    pytest.param("ABD", "ABD", id="v3_ordered_distinct_run_of_three"),
    pytest.param("BAD", "", id="v3_run_out_of_order_is_the_word_bad"),
    pytest.param("CAFE", "", id="v3_run_cafe_is_a_word"),
    pytest.param("CA", "", id="v3_run_out_of_order"),
    pytest.param("AA", "", id="v3_run_with_a_repeated_letter"),
    pytest.param("ab", "", id="v3_lower_case_run"),
    pytest.param("A or B", "", id="v3_hedging_between_options"),
    pytest.param("Either A or B.", "", id="v3_either_or_hedge"),
    pytest.param("", "", id="empty_answer"),
    pytest.param(None, "", id="null_answer_chose_nothing"),
]


@pytest.mark.parametrize(("answer", "letters"), READING_CASES)
def test_choice_reads(constructor, answer, letters) -> None:
    frame = constructor({"answer": [answer], "key": [letters]})
    assert_equal_data(
        frame.grade.choice("answer", "key"),
        {"chosen": [list(letters)], "correct": [True], "expectation": ["choice"]},
    )


def test_choice_set_equality(constructor) -> None:
    # inspect_ai tests/scorer/test_choice.py: a false positive or a missed letter is wrong.
    frame = constructor(
        {
            "answer": ["ANSWER: A, B", "ANSWER: A", "ANSWER: B, A", "ANSWER: A"],
            "key": ["A", "AB", "A, B", "a"],
        }
    )
    assert_equal_data(frame.grade.choice("answer", "key"), {"correct": [False, False, True, True]})


def test_choice_expected_list_column() -> None:
    df = pl.DataFrame({"answer": ["A and C", "C"], "key": [["C", "A"], ["C", "D"]]})
    assert_equal_data(df.grade.choice("answer", "key"), {"correct": [True, False]})
    lazy = df.lazy().grade.choice("answer", "key", prefix="mc_")
    assert_equal_data(lazy, {"mc_correct": [True, False], "mc_chosen": [["A", "C"], ["C"]]})


def test_choice_literal_expected_for_every_row(constructor) -> None:
    frame = constructor({"answer": ["B", "C", None]})
    assert_equal_data(frame.grade.choice("answer", ["B"]), {"correct": [True, False, False]})
    assert_equal_data(frame.grade.choice("answer", pl.lit("c")), {"correct": [False, True, False]})


@pytest.mark.parametrize(
    ("answer", "chosen"),
    [
        pytest.param("A, E", [], id="a_letter_outside_letters_voids_the_list"),
        pytest.param("AE", [], id="a_run_with_a_letter_outside_letters"),
        pytest.param("E", [], id="a_bare_letter_outside_letters"),
        pytest.param("A, D", ["A", "D"], id="letters_inside_are_read"),
    ],
)
def test_choice_letters_outside_the_options_choose_nothing(constructor, answer, chosen) -> None:
    frame = constructor({"answer": [answer], "key": ["A"]})
    assert_equal_data(frame.grade.choice("answer", "key", letters="ABCD"), {"chosen": [chosen]})


def test_choice_letters_and_label(constructor) -> None:
    frame = constructor({"answer": ["ANSWER: 2", "(e)"], "key": ["2", "3"]})
    result = frame.grade.choice("answer", "key", letters="1234", label="mcq")
    assert_equal_data(
        result, {"correct": [True, False], "chosen": [["2"], []], "expectation": ["mcq", "mcq"]}
    )
    lower = constructor({"answer": ["(b)", "A"], "key": ["b", "b"]})
    assert_equal_data(
        lower.grade.choice("answer", "key", letters="abcd"),
        {"correct": [True, False], "chosen": [["b"], ["a"]]},
    )


def test_choice_expression_form() -> None:
    df = pl.DataFrame({"answer": ["ANSWER: B", "x"], "key": ["B", "B"]})
    got = df.select(gf.choice("answer", "key")).unnest("choice")
    assert got["correct"].to_list() == [True, False]
    assert got["chosen"].to_list() == [["B"], []]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        pytest.param({"letters": ""}, ValueError, "`letters` must be one or more", id="no_letters"),
        pytest.param(
            {"letters": "ABA"}, ValueError, "`letters` must not repeat", id="repeated_letter"
        ),
        pytest.param({"letters": "Aa"}, ValueError, "must not repeat", id="repeated_in_any_case"),
        pytest.param({"letters": "A-C"}, ValueError, "letters or digits", id="dash_in_letters"),
        pytest.param({"letters": 4}, TypeError, "`letters` must be a str", id="letters_not_text"),
        pytest.param({"label": 1}, TypeError, "`label` must be a str or None", id="label"),
        pytest.param({"prefix": 1}, TypeError, "`prefix` must be a str", id="prefix"),
    ],
)
def test_choice_argument_errors_raise_before_scoring(constructor, kwargs, error, match) -> None:
    frame = constructor({"answer": ["A"], "key": ["A"]})
    with pytest.raises(error, match=match):
        frame.grade.choice("answer", "key", **kwargs)  # no collect: lazy raises here too


def test_choice_missing_column_named(constructor) -> None:
    frame = constructor({"answer": ["A"], "key": ["A"]})
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="`expected='kee'`"):
        frame.grade.choice("answer", "kee")


def test_choice_numeric_expected_column_raises() -> None:
    df = pl.DataFrame({"answer": ["A"], "key": [1]})
    with pytest.raises(TypeError, match="`expected`: column 'key' has dtype Int64"):
        df.grade.choice("answer", "key")


@pytest.mark.parametrize(
    ("key", "match"),
    [
        pytest.param(
            ["A", None, "B"], "`choice`: the expected value in row 1 is null", id="null_expected"
        ),
        pytest.param(
            ["A", "B", "Z"],
            "row 2 is 'Z': 'Z' is not one of the option letters 'ABCDEFGHIJ'",
            id="letter_outside_options",
        ),
        pytest.param(["A", "Paris", "B"], "row 1 is 'Paris'", id="text_instead_of_letters"),
    ],
)
def test_choice_bad_expected_names_row(constructor, key, match) -> None:
    frame = constructor({"answer": ["A", "B", "C"], "key": key})
    with pytest.raises(ValueError, match=match):
        to_data(frame.grade.choice("answer", "key"))


def test_choice_output_clash_raises(constructor) -> None:
    frame = constructor({"answer": ["A"], "key": ["A"], "chosen": [1]})
    with pytest.raises(ValueError, match="already has column"):
        frame.grade.choice("answer", "key")


def test_choice_pandas_index_kept() -> None:
    import pandas as pd

    frame = pd.DataFrame({"answer": ["B", "ANSWER: C"], "key": ["B", "D"]}, index=[10, 3])
    result = frame.grade.choice("answer", "key")
    assert list(result.index) == [10, 3]
    assert result["correct"].tolist() == [True, False]


@pytest.mark.parametrize("engine", ["eager", "lazy", "streaming"])
def test_choice_repeated_replies_read_once_each_same_result(engine) -> None:
    # Repeating replies are read once per distinct reply (each case 8 times: at most a fifth
    # of the rows distinct), distinct ones row by row; both give what each case reads alone.
    cases = [(p.values[0], p.values[1]) for p in READING_CASES]
    repeated = [cases[(i * 7) % len(cases)] for i in range(8 * len(cases))]
    for rows in (repeated, cases):
        df = pl.DataFrame(
            {"answer": [a for a, _ in rows], "key": [k for _, k in rows]},
            schema={"answer": pl.String, "key": pl.String},
        )
        frame = df if engine == "eager" else df.lazy()
        result = frame.grade.choice("answer", "key")
        if engine != "eager":
            result = result.collect(engine="streaming" if engine == "streaming" else "auto")
        assert result["chosen"].to_list() == [list(k) for _, k in rows]
        assert result["correct"].all()


# One option letter: there is no run of two letters to read, and the pattern for "no run" must
# be one Polars' regex engine accepts (it has no lookaround).
ONE_LETTER = {
    "answer": ["A", "(a)", "The answer is A.", "ANSWER: A", "B", "AA", None, "Reasoning.\nA"],
    "key": ["A", "A", "A", "", "A", "A", "A", "A"],
}
ONE_LETTER_GRADED = {
    "correct": [True, True, True, False, False, False, False, True],
    "chosen": [["A"], ["A"], ["A"], ["A"], [], [], [], ["A"]],
}


def test_choice_one_option_letter_does_not_crash(constructor) -> None:
    result = constructor(ONE_LETTER).grade.choice("answer", "key", letters="A")
    assert_equal_data(result, ONE_LETTER_GRADED)


def test_choice_one_option_letter_in_the_expression_form() -> None:
    frame = pl.DataFrame(ONE_LETTER)
    got = frame.select(gf.choice("answer", "key", letters="A")).unnest("choice")
    assert got.select("correct", "chosen").to_dict(as_series=False) == ONE_LETTER_GRADED
    lower = frame.select(gf.choice("answer", "key", letters="a")).unnest("choice")
    assert lower["chosen"].to_list()[0] == ["a"]
