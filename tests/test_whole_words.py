"""answer_contains(whole_words=True): short words, names and abbreviations matched whole.

Each case is named after the trap it guards and runs on every frame type (the scalar reference
agrees on every one, and hypothesis holds the two together on word-heavy text:
tests/test_properties.py).
"""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import gradeframe as gf
from gradeframe._containment import occurs_but_rejected
from tests import reference
from tests.utils import to_data

# (name, answer, acceptable answer, found with whole_words=True)
WORD_CASES = [
    ("uk_is_not_in_ukraine", "I live in Ukraine.", "UK", False),
    ("uk_is_in_the_uk", "The UK.", "UK", True),
    ("no_is_not_in_i_know", "I know it", "No", False),
    ("no_is_a_word_of_its_own", "No, it is not.", "No", True),
    ("yes_is_not_in_eyes", "Close your eyes", "yes", False),
    ("everest_is_in_everests", "Everest's peak", "Everest", True),
    ("curly_apostrophe_ends_a_word", "Everest\u2019s peak", "Everest", True),
    ("a_later_whole_occurrence_counts", "Ukraine and the UK", "UK", True),
    ("overlapping_later_occurrence", "nono no", "no", True),
    ("underscore_is_no_word_character", "the_uk_office", "UK", True),
    ("digit_after_a_letter_is_a_word_character", "UK2 is a team", "UK", False),
    ("digit_before_a_letter_is_a_word_character", "2UK", "UK", False),
    ("hyphen_ends_a_word", "UK-based", "UK", True),
    ("full_stop_ends_a_word", "in the U.K.", "U.K", True),
    ("accented_letter_is_a_word_character", "Noé", "No", False),
    ("decomposed_accent_is_a_word_character", "q\u0301x q", "q", True),
    ("combining_mark_after_the_word", "q\u0301", "q", False),
    ("half_is_a_word_character", "\u00bdno", "no", False),
    (
        "ref_ending_in_a_mark_is_matched_whole",
        "\u0939\u093f\u0928\u094d\u0926\u0940\u092d",
        "\u0939\u093f\u0928\u094d\u0926\u0940",
        False,
    ),
    (
        "ref_ending_in_a_mark_alone",
        "\u0939\u093f\u0928\u094d\u0926\u0940 \u092d",
        "\u0939\u093f\u0928\u094d\u0926\u0940",
        True,
    ),
    ("phrase_of_words", "He lives in New York City", "new york", True),
    ("phrase_inside_a_longer_word", "Newyorker", "new york", False),
    ("ref_ending_in_punctuation_has_no_rule_there", "(UK)s", "(UK)", True),
    # numbers keep their own rules at a digit end, whole words at a letter end
    ("number_then_letters_ends_as_a_word", "5mgs", "5mg", False),
    ("number_then_letters_whole", "take 5mg daily", "5mg", True),
    ("number_end_keeps_number_rule", "COVID-19s", "COVID-19", True),
    ("number_end_rejects_more_digits", "COVID-190", "COVID-19", False),
    ("number_start_keeps_number_rule", "x12th", "12th", True),
    ("number_start_rejects_a_digit_before", "112th", "12th", False),
    ("ordinal_is_a_word", "the 12th", "12th", True),
    ("decimal_rule_unchanged", "145.2 m", "45.2", False),
]


@pytest.mark.parametrize(
    ("answer", "ref", "expected"), [c[1:] for c in WORD_CASES], ids=[c[0] for c in WORD_CASES]
)
def test_whole_words_reference(answer: str, ref: str, expected: bool) -> None:
    got = reference.contains(reference.fold(answer), reference.fold(ref), whole_words=True)
    assert got is expected


def test_whole_words_every_case_on_every_frame_type(constructor: Any) -> None:
    data = {"answer": [c[1] for c in WORD_CASES], "refs": [c[2] for c in WORD_CASES]}
    out = to_data(constructor(data).grade.answer_contains(whole_words=True))
    assert out["correct"] == [c[3] for c in WORD_CASES]
    assert out["failure_kind"] == [None if c[3] else "wrong" for c in WORD_CASES]


def test_whole_words_off_is_containment_as_before(constructor: Any) -> None:
    data = {"answer": ["I live in Ukraine.", "I know it", "145.2 m"], "refs": ["UK", "No", "45.2"]}
    out = to_data(constructor(data).grade.answer_contains())
    assert out["correct"] == [True, True, False]


def test_whole_words_in_a_list_of_refs_any_whole_one_counts(constructor: Any) -> None:
    data = {
        "answer": ["I live in Ukraine.", "I live in Ukraine.", "Sure, no."],
        "refs": [["UK", "United Kingdom"], ["UK", "Ukraine"], ["yes", "no"]],
    }
    schema = {"answer": pl.String, "refs": pl.List(pl.String)}
    out = to_data(constructor(data, schema=schema).grade.answer_contains(whole_words=True))
    assert out["correct"] == [False, True, True]


def test_whole_words_on_a_long_list_of_refs_in_a_lazy_frame() -> None:
    # more than MAX_UNROLLED_REFS: the exploded path
    refs = [f"word{i}" for i in range(20)] + ["UK"]
    frame = pl.LazyFrame({"answer": ["Ukraine", "the UK"], "refs": [refs, refs]})
    out = frame.grade.answer_contains(whole_words=True).collect()
    assert out["correct"].to_list() == [False, True]


def test_whole_words_in_the_expression_form() -> None:
    frame = pl.DataFrame({"answer": ["Ukraine", "the UK"], "refs": ["UK", "UK"]})
    out = frame.select(gf.answer_contains("answer", "refs", whole_words=True))
    assert out.unnest("answer_contains")["correct"].to_list() == [False, True]
    schema = frame.select(
        gf.answer_contains("answer", "refs", whole_words=True, schema=frame.schema)
    )
    assert schema.unnest("answer_contains")["correct"].to_list() == [False, True]


def test_whole_words_must_be_a_bool() -> None:
    frame = pl.DataFrame({"answer": ["x"], "refs": ["x"]})
    with pytest.raises(TypeError, match="whole_words"):
        frame.grade.answer_contains(whole_words="yes")  # type: ignore[arg-type]


def test_near_miss_hook_reports_a_word_rejection() -> None:
    frame = pl.DataFrame(
        {
            "answer": ["I live in Ukraine", "The UK", "It is 145.2 m.", "Nothing", None],
            "refs": ["UK", "UK", "45.2", "UK", "UK"],
        }
    )
    near = occurs_but_rejected(gf.fold("answer"), "refs", whole_words=True)
    assert frame.select(near).to_series().to_list() == [True, False, True, False, None]
    numbers_only = occurs_but_rejected(gf.fold("answer"), "refs")
    assert frame.select(numbers_only).to_series().to_list() == [False, False, True, False, None]
