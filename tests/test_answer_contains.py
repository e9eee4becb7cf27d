"""answer_contains: folding, whole numbers, the unanswerable label and the failure kinds.

Every example of the rules (docs/rules.md) is a case here, named after the trap it guards, with
many more. Each case runs on Polars eager and lazy and on pandas with object and Arrow strings.
"""

from __future__ import annotations

import random
from typing import Any

import polars as pl
import pytest

import gradeframe as gf
from tests import reference
from tests.utils import assert_equal_data, to_data

# --------------------------------------------------------------------------------------------
# §1 folding
# --------------------------------------------------------------------------------------------

FOLD_CASES = [
    ("null_stays_null", None, None),
    ("lower_case", "Sheffield PRODUCED", "sheffield produced"),
    ("sharp_s_is_not_case_folded", "Straße", "straße"),
    ("hyphen_u2010", "a\u2010b", "a-b"),
    ("non_breaking_hyphen_u2011", "a\u2011b", "a-b"),
    ("figure_dash_u2012", "a\u2012b", "a-b"),
    ("en_dash_u2013", "12\u201315", "12-15"),
    ("minus_sign_u2212", "\u221212", "-12"),
    ("em_dash_is_not_folded", "a\u2014b", "a\u2014b"),
    ("comma_thousands", "1,204", "1204"),
    ("no_break_space_thousands", "1\u00a0204", "1204"),
    ("thin_space_thousands", "1\u2009204", "1204"),
    ("figure_space_thousands", "1\u2007204", "1204"),
    ("narrow_no_break_space_thousands", "1\u202f204", "1204"),
    ("chain_of_groups", "1,234,567", "1234567"),
    ("long_chain_of_groups", "1,234,567,890,123", "1234567890123"),
    ("mixed_separators_in_a_chain", "1\u2009234,567", "1234567"),
    ("four_digit_group_keeps_comma", "1,2345", "1,2345"),
    ("list_with_spaces_keeps_commas", "1, 2, 3", "1, 2, 3"),
    ("plain_space_is_not_a_separator", "3 100", "3 100"),
    ("two_digit_group_keeps_comma", "12,34", "12,34"),
    ("separator_needs_a_digit_before", "a,204", "a,204"),
    ("decimal_after_group", "1,204.5", "1204.5"),
    ("separator_then_group_then_letter", "1,204m", "1204m"),
    ("white_space_runs", "a \t\n b", "a b"),
    ("unicode_white_space", "a\u3000\u2003b\u2028c", "a b c"),
    ("ends_trimmed", "\u00a0 a b \n", "a b"),
    ("no_break_space_not_between_digits_is_white_space", "a\u00a0b", "a b"),
    ("control_characters_are_text", "a\x00b\x1fc", "a\x00b\x1fc"),
    ("private_use_characters_are_text", "\ue000S\ue000", "\ue000s\ue000"),
    ("blank_folds_to_empty", "   ", ""),
    # NFC, then lower case
    ("decomposed_e_acute_equals_composed", "Cafe\u0301", "caf\u00e9"),
    ("decomposed_capital_a_ring", "A\u030angstr\u00f6m", "\u00e5ngstr\u00f6m"),
    ("angstrom_sign_is_replaced_by_nfc", "\u212b", "\u00e5"),
    ("kelvin_sign_is_replaced_by_nfc", "5 \u212a", "5 k"),
    ("ohm_sign_is_replaced_by_nfc", "\u2126", "\u03c9"),
    ("hangul_jamo_compose", "\u1100\u1161\u11a8", "\uac01"),
    ("greek_oxia_becomes_tonos", "\u1f71", "\u03ac"),
    ("combining_marks_reordered", "a\u0323\u0302", "\u1ead"),
    ("no_nfkc_superscript_stays", "x\u00b2", "x\u00b2"),
    ("no_nfkc_fraction_stays", "1\u00bd", "1\u00bd"),
    ("no_nfkc_ligature_stays", "\ufb01le", "\ufb01le"),
    ("no_nfkc_fullwidth_digits_stay", "\uff11\uff12", "\uff11\uff12"),
    ("capital_i_with_dot_lowers_to_i_and_dot", "\u0130", "i\u0307"),
    ("final_sigma_as_str_lower_does", "\u039f\u03a3", "\u03bf\u03c2"),
    ("composed_text_unchanged", "S\u00e3o Paulo", "s\u00e3o paulo"),
    ("thin_space_example_1_204", "1\u2009204", "1204"),
    ("no_break_space_example_1_204", "1\u00a0204", "1204"),
    ("plain_space_example_1_204_is_kept", "1 204", "1 204"),
    ("unicode_digits_thousands", "\u0661,\u0662\u0663\u0664", "\u0661\u0662\u0663\u0664"),
    ("separator_before_four_digit_group_kept", "1\u2009204 5", "1204 5"),
    ("separator_then_three_digits_then_digit_kept", "1,2045", "1,2045"),
    ("decomposed_text_with_separator", "e\u0301 1,204", "\u00e9 1204"),
]


@pytest.mark.parametrize(
    ("text", "expected"), [c[1:] for c in FOLD_CASES], ids=[c[0] for c in FOLD_CASES]
)
def test_fold(text: str | None, expected: str | None) -> None:
    assert pl.Series("a", [text], dtype=pl.String).grade.fold().to_list() == [expected]
    assert reference.fold(text) == expected


def test_fold_on_every_surface(frame_type: str) -> None:
    import pandas as pd

    texts = [c[1] for c in FOLD_CASES]
    expected = [c[2] for c in FOLD_CASES]
    frame = pl.DataFrame({"a": texts}, schema={"a": pl.String})
    assert frame.select(gf.fold("a")).to_series().to_list() == expected
    assert frame.select(pl.col("a").grade.fold()).to_series().to_list() == expected
    assert frame.lazy().select(gf.fold(pl.col("a"))).collect().to_series().to_list() == expected
    series = pd.Series(texts, index=list(range(10, 10 + len(texts))), name="a", dtype=object)
    out = series.grade.fold()
    assert list(out.index) == list(series.index)
    assert [None if not isinstance(v, str) else v for v in out.tolist()] == expected


def test_fold_in_group_by_over_and_streaming() -> None:
    # The costly steps run on the rows that need them and are put back by position
    # (gradeframe._subset); that must hold in every context Polars runs an expression in.
    texts = [c[1] for c in FOLD_CASES]
    expected = [c[2] for c in FOLD_CASES]
    groups = [i % 3 for i in range(len(texts))]
    frame = pl.DataFrame({"g": groups, "a": texts}, schema={"g": pl.Int64, "a": pl.String})
    over = frame.with_columns(f=gf.fold("a").over("g"))
    assert over.get_column("f").to_list() == expected
    agg = frame.group_by("g", maintain_order=True).agg(gf.fold("a")).sort("g")
    for group, folded in zip(agg.get_column("g"), agg.get_column("a"), strict=True):
        assert folded.to_list() == [e for e, g in zip(expected, groups, strict=True) if g == group]
    streamed = frame.lazy().select(gf.fold("a")).collect(engine="streaming")
    assert streamed.get_column("a").to_list() == expected
    filtered = frame.lazy().filter(pl.col("g") == 1).select(gf.fold("a")).collect()
    assert filtered.get_column("a").to_list() == [
        e for e, g in zip(expected, groups, strict=True) if g == 1
    ]


# --------------------------------------------------------------------------------------------
# §2 containment, numbers whole
# --------------------------------------------------------------------------------------------

CONTAIN_CASES = [
    # seed 000
    ("seed_12400_units", "Sheffield produced 12,400 units.", "12400", True),
    ("seed_thin_space_1204", "It made 1\u2009204 of them", "1,204", True),
    ("seed_no_break_space_1204", "It made 1\u00a0204 of them", "1204", True),
    ("45.2_is_not_in_145.2", "The mast is 145.2 m tall", "45.2", False),
    ("45.2_is_not_in_45.25", "The mast is 45.25 m tall", "45.2", False),
    ("12_is_not_in_decimal_.12", "the rate was .12", "12", False),
    ("12_is_not_in_minus_12", "-12", "12", False),
    ("12_is_not_in_parenthesised_minus_12", "(-12)", "12", False),
    ("12_is_not_in_x_equals_minus_12", "x = -12", "12", False),
    ("12_is_not_in_2012", "in 2012", "12", False),
    ("unit_attached_45.2m", "it is 45.2m", "45.2", True),
    ("unit_attached_5mg", "take 5mg", "5", True),
    ("ordinal_12th", "the 12th of May", "12", True),
    ("sentence_end_12.", "It was 12.", "12", True),
    ("range_12-15_contains_15", "between 12-15 units", "15", True),
    ("range_12-15_contains_12", "between 12-15 units", "12", True),
    ("en_dash_range_contains_15", "between 12\u201315 units", "15", True),
    ("covid-19_contains_19", "COVID-19 cases", "19", True),
    ("29_is_not_in_29.00", "it cost 29.00", "29", False),
    ("temp_minus_12_contains_minus_12", "temp -12", "-12", True),
    ("minus_sign_u2212_contains_minus_12", "temp \u221212 today", "-12", True),
    ("range_5-12_does_not_contain_minus_12", "5-12", "-12", False),
    ("word-12_does_not_contain_minus_12", "ab-12", "-12", False),
    ("dot_minus_12_does_not_contain_minus_12", "x.-12", "-12", False),
    ("minus_12_at_start", "-12 degrees", "-12", True),
    ("minus_12_is_not_in_minus_125", "-125", "-12", False),
    ("dot5_after_space", "about .5 of it", ".5", True),
    ("dot5_is_not_in_0.5", "about 0.5 of it", ".5", False),
    ("dot5_is_not_in_.55", "about .55 of it", ".5", False),
    ("12_before_range_dash", "12-15", "12", True),
    ("12_after_hyphenated_word", "page-12", "12", True),
    ("12_after_double_dash_minus", "a --12", "12", False),
    ("12_after_letter", "v12", "12", True),
    ("12_before_dot_letter", "12.a", "12", True),
    ("12_is_not_before_dot_digit", "12.5", "12", False),
    ("12_after_dot_dot", "1..12", "12", False),
    ("number_at_start_and_end", "12", "12", True),
    ("second_occurrence_is_whole", "2012 and 12", "12", True),
    ("overlapping_occurrence_is_whole", ".1 1 1", "1 1", True),
    ("ref_ending_in_dot_is_plain_substring", "version 12.5", "12.", True),
    ("ref_ending_in_dot_before_letter", "in 12.a", "12.", True),
    ("ref_ending_in_dot_keeps_left_rule", "in 112.5", "12.", False),
    ("ref_with_inner_number", "route 66 north", "route 66", True),
    ("ref_with_inner_number_not_whole", "route 666 north", "route 66", False),
    ("thousands_in_ref_and_answer", "It was 1,234,567 units", "1 234 567", False),
    ("thousands_folded_on_both_sides", "It was 1,234,567 units", "1\u2009234\u2009567", True),
    ("plain_substring_for_words", "concatenate", "cat", True),
    ("case_is_folded", "PARIS is the capital", "paris", True),
    ("white_space_folded_in_ref", "new   york", "New York", True),
    ("unicode_digits_are_digits", "x \u0661\u0662 y", "\u0662", False),
    ("private_use_before_number_is_not_a_digit", "\ue00012", "12", True),
    ("capital_letters_in_answer_are_text", "SEN", "sen", True),
    ("marker_letters_in_ref_fold_to_text", "e-12 q.5 s1e", "S1E", True),
    # word characters: letters, numbers and combining marks ("_" is not one)
    ("hyphen_after_fraction_1half-2_contains_2", "1\u00bd-2 cups", "2", True),
    ("hyphen_after_superscript_contains_number", "x\u00b2-4 = 0", "4", True),
    ("hyphen_after_roman_numeral_contains_number", "\u216b-12", "12", True),
    ("hyphen_after_combining_mark_contains_number", "cafe\u0301-12", "12", True),
    ("hyphen_after_decomposed_letter_is_hyphen_for_minus_ref", "cafe\u0301-12", "-12", False),
    ("dash_after_underscore_is_a_minus_sign", "x_-12", "12", False),
    ("minus_ref_after_underscore", "x_-12", "-12", True),
    ("minus_ref_after_fraction_is_a_hyphen", "1\u00bd-12", "-12", False),
    ("minus_ref_after_superscript_is_a_hyphen", "10\u00b2-12", "-12", False),
    ("dash_after_arabic_digit_is_a_range", "\u0663-12", "12", True),
    ("dash_after_cjk_letter_is_a_hyphen", "\u4e00-12", "12", True),
    ("dash_after_emoji_is_a_minus_sign", "\U0001f600-12", "12", False),
    ("dash_after_percent_is_a_minus_sign", "%-12", "12", False),
    ("dash_after_closing_paren_is_a_minus_sign", ")-12", "12", False),
    ("en_dash_after_fraction_is_a_range", "1\u00bd\u20132 cups", "2", True),
    # "-.5" follows the minus rule, ".5" the dot rule
    ("minus_dot5_after_space", "temp -.5 today", "-.5", True),
    ("minus_dot5_at_start", "-.5", "-.5", True),
    ("minus_dot5_in_parentheses", "(-.5)", "-.5", True),
    ("minus_dot5_after_digit_is_a_range", "3-.5", "-.5", False),
    ("minus_dot5_after_letter_is_a_hyphen", "x-.5", "-.5", False),
    ("minus_dot5_after_dot", "x.-.5", "-.5", False),
    ("minus_dot5_not_in_minus_dot55", "-.55", "-.5", False),
    ("minus_dot5_not_before_dot_digit", "-.5.1", "-.5", False),
    ("minus_dot5_before_unit", "-.5mm", "-.5", True),
    ("minus_sign_u2212_dot5", "t \u2212.5", "-.5", True),
    ("minus_dot5_second_occurrence_whole", "3-.5 and -.5", "-.5", True),
    ("dot5_not_after_arabic_digit", "\u0663.5", ".5", False),
    ("dot5_after_minus_sign", "-.5", ".5", True),
    ("dot5_after_letter", "v.5", ".5", True),
    # Unicode digits are digits
    ("arabic_indic_number_whole", "x \u0661\u0662 y", "\u0661\u0662", True),
    ("arabic_indic_number_not_inside_longer", "\u0661\u0662\u0663", "\u0661\u0662", False),
    ("fullwidth_digits_not_inside_longer", "\uff11\uff12\uff13", "\uff12\uff13", False),
    ("ascii_number_not_after_devanagari_digit", "\u096712", "12", False),
    ("ascii_number_not_before_arabic_digit", "12\u0663", "12", False),
    ("superscript_is_not_a_digit", "12\u00b2", "12", True),
    ("fraction_is_not_a_digit", "\u00bd12", "12", True),
    ("roman_numeral_is_not_a_digit", "12\u216b", "12", True),
    # NFC on both sides
    ("decomposed_answer_contains_composed_ref", "Cafe\u0301 au lait", "caf\u00e9", True),
    ("composed_answer_contains_decomposed_ref", "Caf\u00e9 au lait", "cafe\u0301", True),
    ("decomposed_ref_not_a_prefix_of_a_composed_letter", "caf\u00e9", "cafe", False),
    ("angstrom_sign_equals_a_ring", "10 \u212b", "10 \u00e5", True),
    # separators that are not thousands separators
    ("plain_space_is_kept_so_1_204_is_not_1204", "It made 1 204 units", "1204", False),
    ("thin_space_1_204_is_1204", "It made 1\u2009204 units", "1204", True),
    ("narrow_no_break_space_ref", "It made 1204 units", "1\u202f204", True),
]


def _grade(constructor: Any, data: dict[str, list[Any]], **kwargs: Any) -> dict[str, list[Any]]:
    frame = constructor(data)
    return to_data(frame.grade.answer_contains(**kwargs))


@pytest.mark.parametrize(
    ("answer", "ref", "expected"), [c[1:] for c in CONTAIN_CASES], ids=[c[0] for c in CONTAIN_CASES]
)
def test_containment_reference(answer: str, ref: str, expected: bool) -> None:
    assert reference.contains(reference.fold(answer), reference.fold(ref)) is expected


def test_containment_every_case_on_every_frame_type(constructor: Any) -> None:
    answers = [c[1] for c in CONTAIN_CASES]
    refs = [c[2] for c in CONTAIN_CASES]
    expected = [c[3] for c in CONTAIN_CASES]
    out = _grade(constructor, {"answer": answers, "refs": refs})
    wrong = [c[0] for c, got in zip(CONTAIN_CASES, out["correct"], strict=True) if got != c[3]]
    assert not wrong, f"cases that disagree: {wrong}"
    assert out["correct"] == expected


@pytest.mark.parametrize("refs_layout", ["string", "list"])
def test_containment_in_many_batches(refs_layout: str) -> None:
    # 250,000 rows, the cases in a shuffled order: the streaming engine and the frame method run
    # the rare steps (marking, separators) batch by batch and put each result back in place.
    rng = random.Random(7)
    order = [rng.randrange(len(CONTAIN_CASES)) for _ in range(250_000)]
    answers = [CONTAIN_CASES[i][1] for i in order]
    refs: list[Any] = [CONTAIN_CASES[i][2] for i in order]
    if refs_layout == "list":
        refs = [[None, "zzz-no-match", ref][rng.randrange(3) :] for ref in refs]
    expected = [CONTAIN_CASES[i][3] for i in order]
    frame = pl.DataFrame({"answer": answers, "refs": refs})
    assert frame.grade.answer_contains().get_column("correct").to_list() == expected
    streamed = frame.lazy().grade.answer_contains().collect(engine="streaming")
    assert streamed.get_column("correct").to_list() == expected


def test_containment_with_list_refs(constructor: Any) -> None:
    answers = [c[1] for c in CONTAIN_CASES]
    refs = [["zzz-no-match", c[2], None] for c in CONTAIN_CASES]
    out = _grade(constructor, {"answer": answers, "refs": refs})
    assert out["correct"] == [c[3] for c in CONTAIN_CASES]


# --------------------------------------------------------------------------------------------
# Acceptable answers: types, blanks, the unanswerable label
# --------------------------------------------------------------------------------------------


def test_seed_examples(constructor: Any) -> None:
    out = _grade(
        constructor,
        {
            "answer": ["Sheffield produced 12,400 units.", "NOT_IN_DOCUMENT", "NOT_IN_DOCUMENT"],
            "refs": ["12400", "12400", "NOT_IN_DOCUMENT"],
        },
    )
    assert out["correct"] == [True, False, True]
    assert out["failure_kind"] == [None, "not_in_document", None]


def test_integer_label_100000_accepts_100_comma_000(constructor: Any) -> None:
    out = _grade(
        constructor,
        {"answer": ["about 100,000 people", "about 1000000 people"], "refs": [100000, 100000]},
    )
    assert out["correct"] == [True, False]


def test_float_label_in_plain_digits() -> None:
    frame = pl.DataFrame(
        {"answer": ["about 100,000 people", "pi is 3.25 here"], "refs": [1e5, 3.25]}
    )
    assert frame.grade.answer_contains()["correct"].to_list() == [True, True]


def test_integer_list_refs() -> None:
    frame = pl.DataFrame({"answer": ["it was 1,204"], "refs": [[7, 1204]]})
    assert frame.grade.answer_contains()["correct"].to_list() == [True]


@pytest.mark.parametrize(
    "refs",
    [None, [], [""], ["  ", None], "", "   "],
    ids=["null", "empty_list", "blank_item", "blank_and_null_items", "blank_string", "spaces"],
)
def test_no_usable_reference_is_no_reference(refs: Any) -> None:
    dtype = pl.List(pl.String) if isinstance(refs, list) or refs is None else pl.String
    frame = pl.DataFrame(
        {"answer": ["anything 12"], "refs": [refs]}, schema={"answer": pl.String, "refs": dtype}
    )
    out = frame.grade.answer_contains()
    assert out["correct"].to_list() == [False]
    assert out["failure_kind"].to_list() == ["no_reference"]


def test_blank_items_are_ignored_not_fatal(constructor: Any) -> None:
    out = _grade(
        constructor, {"answer": ["it was 12", "it was 12"], "refs": [["", "12"], [" ", None]]}
    )
    assert out["correct"] == [True, False]
    assert out["failure_kind"] == [None, "no_reference"]


def test_label_is_folded(constructor: Any) -> None:
    out = _grade(
        constructor,
        {
            "answer": ["not in document", "The document does not mention it.", "It was 12."],
            "refs": ["not_in_document", " NOT_IN_DOCUMENT ", "Not_In_Document"],
        },
    )
    assert out["correct"] == [True, True, False]
    assert out["failure_kind"] == [None, None, "wrong"]


def test_label_is_not_matched_as_text() -> None:
    # a stopped run that says NOT_IN_DOCUMENT did not "find" the label: it did not look
    frame = pl.DataFrame(
        {
            "answer": ["NOT_IN_DOCUMENT"],
            "refs": ["NOT_IN_DOCUMENT"],
            "partial": [True],
            "notes": ["cost_cap_reached"],
        }
    )
    out = frame.grade.answer_contains(partial="partial", notes="notes")
    assert out["failure_kind"].to_list() == ["budget_stop"]


def test_unanswerable_and_answerable_refs_together() -> None:
    frame = pl.DataFrame(
        {
            "answer": ["It was 12", "Not in the document.", "It was 13"],
            "refs": [["12", "NOT_IN_DOCUMENT"]] * 3,
        }
    )
    out = frame.grade.answer_contains()
    assert out["correct"].to_list() == [True, True, False]
    assert out["failure_kind"].to_list() == [None, None, "wrong"]


# --------------------------------------------------------------------------------------------
# The failure kinds and their precedence
# --------------------------------------------------------------------------------------------

BUDGET = {"partial": True, "notes": ["cost_cap_reached"]}
REFUSED_TRACE = [{"finish_reason": "stop"}, {"finish_reason": "refusal"}]

# (id, output record, refs, correct, failure_kind)
CHAIN_CASES = [
    ("right", {"answer": "It was 12."}, ["12"], True, None),
    ("no_reference_first", {"answer": "It was 12.", "status": "error"}, [], False, "no_reference"),
    (
        "carried_kind_is_kept",
        {"answer": "It was 12.", "failure_kind": "timeout"},
        ["12"],
        False,
        "timeout",
    ),
    (
        "carried_kind_before_error",
        {"answer": None, "status": "error", "failure_kind": "timeout"},
        ["12"],
        False,
        "timeout",
    ),
    ("error_is_never_right", {"answer": "It was 12.", "status": "error"}, ["12"], False, "error"),
    ("error_before_parse_failure", {"answer": None, "status": "error"}, ["12"], False, "error"),
    ("null_answer_is_parse_failure", {"answer": None}, ["12"], False, "parse_failure"),
    ("blank_answer_is_parse_failure", {"answer": " \n "}, ["12"], False, "parse_failure"),
    ("text_used_when_answer_null", {"answer": None, "text": "It was 12."}, ["12"], True, None),
    (
        "empty_answer_from_a_stopped_run_is_budget_stop_not_parse_failure",
        {"answer": "", **BUDGET},
        ["12"],
        False,
        "budget_stop",
    ),
    (
        "null_answer_from_a_stopped_run_is_budget_stop_not_parse_failure",
        {"answer": None, **BUDGET},
        ["12"],
        False,
        "budget_stop",
    ),
    (
        "empty_reply_from_a_content_filter_is_refusal_not_parse_failure",
        {"answer": "", "trace": [{"finish_reason": "content_filter"}]},
        ["12"],
        False,
        "refusal",
    ),
    (
        "null_answer_with_refused_status_is_refusal_not_parse_failure",
        {"answer": None, "status": "refused"},
        ["12"],
        False,
        "refusal",
    ),
    (
        "blank_answer_from_a_stopped_and_refused_run_is_budget_stop",
        {"answer": "  ", **BUDGET, "status": "refused"},
        ["12"],
        False,
        "budget_stop",
    ),
    (
        "empty_answer_error_still_before_budget_stop",
        {"answer": "", **BUDGET, "status": "error"},
        ["12"],
        False,
        "error",
    ),
    (
        "empty_answer_no_reference_still_first",
        {"answer": "", **BUDGET},
        [],
        False,
        "no_reference",
    ),
    (
        "upper_case_budget_note_counts",
        {"answer": "It was 13.", "partial": True, "notes": ["COST_CAP_REACHED"]},
        ["12"],
        False,
        "budget_stop",
    ),
    (
        "budget_note_inside_a_sentence_counts",
        {"answer": "It was 13.", "partial": True, "notes": ["stopped: Call_Cap_Reached."]},
        ["12"],
        False,
        "budget_stop",
    ),
    (
        "budget_note_inside_a_longer_word_does_not_count",
        {"answer": "It was 13.", "partial": True, "notes": ["no_cost_cap_reached"]},
        ["12"],
        False,
        "wrong",
    ),
    (
        "budget_note_with_a_suffix_does_not_count",
        {"answer": "It was 13.", "partial": True, "notes": ["limit_refused_twice"]},
        ["12"],
        False,
        "wrong",
    ),
    ("budget_stop", {"answer": "It was 13.", **BUDGET}, ["12"], False, "budget_stop"),
    (
        "call_cap_reached",
        {"answer": "It was 13.", "partial": True, "notes": ["x", "call_cap_reached"]},
        ["12"],
        False,
        "budget_stop",
    ),
    (
        "limit_refused",
        {"answer": "It was 13.", "partial": True, "notes": ["limit_refused"]},
        ["12"],
        False,
        "budget_stop",
    ),
    (
        "budget_note_without_partial_is_wrong",
        {"answer": "It was 13.", "partial": False, "notes": ["cost_cap_reached"]},
        ["12"],
        False,
        "wrong",
    ),
    (
        "partial_without_budget_note_is_wrong",
        {"answer": "It was 13.", "partial": True, "notes": ["other"]},
        ["12"],
        False,
        "wrong",
    ),
    (
        "stopped_run_that_found_the_answer_is_right",
        {"answer": "It was 12.", **BUDGET},
        ["12"],
        True,
        None,
    ),
    (
        "budget_before_refusal",
        {"answer": "It was 13.", **BUDGET, "trace": REFUSED_TRACE},
        ["12"],
        False,
        "budget_stop",
    ),
    (
        "refusal_in_trace",
        {"answer": "I can't help.", "trace": REFUSED_TRACE},
        ["12"],
        False,
        "refusal",
    ),
    (
        "content_filter_in_trace",
        {"answer": "...", "trace": [{"finish_reason": "content_filter"}]},
        ["12"],
        False,
        "refusal",
    ),
    ("refused_status", {"answer": "I won't.", "status": "refused"}, ["12"], False, "refusal"),
    (
        "refused_run_that_found_the_answer_is_right",
        {"answer": "It was 12.", "status": "refused"},
        ["12"],
        True,
        None,
    ),
    (
        "refusal_before_not_in_document",
        {"answer": "Not in the document.", "status": "refused"},
        ["12"],
        False,
        "refusal",
    ),
    (
        "not_in_document_when_an_answer_was_expected",
        {"answer": "The text does not say."},
        ["12"],
        False,
        "not_in_document",
    ),
    (
        "not_found_on_unanswerable_is_right",
        {"answer": "The text does not say."},
        ["NOT_IN_DOCUMENT"],
        True,
        None,
    ),
    (
        "not_found_from_stopped_run_on_unanswerable_is_budget_stop",
        {"answer": "NOT_IN_DOCUMENT", **BUDGET},
        ["NOT_IN_DOCUMENT"],
        False,
        "budget_stop",
    ),
    (
        "not_found_from_refused_run_on_unanswerable_is_refusal",
        {"answer": "NOT_IN_DOCUMENT", "status": "refused"},
        ["NOT_IN_DOCUMENT"],
        False,
        "refusal",
    ),
    (
        "any_answer_to_unanswerable_is_wrong",
        {"answer": "It was 12."},
        ["NOT_IN_DOCUMENT"],
        False,
        "wrong",
    ),
    (
        "ordinary_sentence_is_not_a_not_found_report",
        {"answer": "The statue was not found until 1920."},
        ["12"],
        False,
        "wrong",
    ),
]


def test_failure_kind_chain(constructor: Any) -> None:
    records = [c[1] for c in CHAIN_CASES]
    full = [
        {
            "answer": r.get("answer"),
            "text": r.get("text"),
            "partial": r.get("partial"),
            "notes": r.get("notes"),
            "trace": r.get("trace"),
            "status": r.get("status"),
            "failure_kind": r.get("failure_kind"),
        }
        for r in records
    ]
    out = _grade(
        constructor, {"output": full, "refs": [c[2] for c in CHAIN_CASES]}, answer="output"
    )
    got = list(zip(out["correct"], out["failure_kind"], strict=True))
    expected = [(c[3], c[4]) for c in CHAIN_CASES]
    disagree = [c[0] for c, g, e in zip(CHAIN_CASES, got, expected, strict=True) if g != e]
    assert not disagree, f"cases that disagree: {disagree}"
    for case, record in zip(CHAIN_CASES, full, strict=True):
        ref = reference.answer_contains(record, case[2])
        assert (ref["correct"], ref["failure_kind"]) == (case[3], case[4]), case[0]


def test_flat_columns_win_over_struct_fields(constructor: Any) -> None:
    data = {
        "output": [
            {"answer": "It was 13.", "partial": False, "notes": None, "status": "ok"},
            {
                "answer": "It was 13.",
                "partial": True,
                "notes": ["cost_cap_reached"],
                "status": "ok",
            },
        ],
        "refs": ["12", "12"],
        "st": ["refused", None],
        "part": [False, False],
    }
    out = _grade(constructor, data, answer="output", status="st", partial="part")
    assert out["failure_kind"] == ["refusal", "wrong"]


def test_flat_keyword_columns(constructor: Any) -> None:
    data = {
        "answer": ["It was 13.", "It was 13.", "It was 12.", "x", "y"],
        "refs": ["12"] * 5,
        "partial": [True, False, True, None, None],
        "notes": ["cost_cap_reached", "cost_cap_reached", "cost_cap_reached", None, None],
        "trace": [None, None, None, "refusal", None],
        "status": [None, None, None, None, "ERROR "],
        "kind": [None, None, None, None, None],
    }
    out = _grade(
        constructor,
        data,
        partial="partial",
        notes="notes",
        trace="trace",
        status="status",
        failure_kind="kind",
    )
    assert out["failure_kind"] == ["budget_stop", "wrong", None, "refusal", "error"]


@pytest.mark.parametrize(
    ("trace", "refused"),
    [
        (["stop", "refusal"], True),
        (["stop", "length"], False),
        (["content_filter"], True),
        ([], False),
        (None, False),
    ],
    ids=[
        "list_of_strings_refusal",
        "list_of_strings_no_refusal",
        "content_filter",
        "empty",
        "null",
    ],
)
def test_trace_as_list_of_strings(trace: Any, refused: bool) -> None:
    frame = pl.DataFrame(
        {"answer": ["nope"], "refs": ["12"], "trace": [trace]},
        schema={"answer": pl.String, "refs": pl.String, "trace": pl.List(pl.String)},
    )
    out = frame.grade.answer_contains(trace="trace")
    assert out["failure_kind"].to_list() == ["refusal" if refused else "wrong"]


def test_answer_column_of_numbers_raises_instead_of_parse_failure_on_every_row() -> None:
    # SPEC v3 "Numbers as answers": every row would be a parse_failure, a silently wrong score.
    frame = pl.DataFrame({"answer": [12, None], "refs": ["12", "12"]})
    with pytest.raises(TypeError, match="column 'answer' has dtype Int64, not text"):
        frame.grade.answer_contains()


def test_struct_answer_field_that_is_not_a_string_is_parse_failure() -> None:
    frame = pl.DataFrame(
        {
            "output": [{"answer": 12, "text": "12"}, {"answer": None, "text": "12"}],
            "refs": ["12", "12"],
        }
    )
    out = frame.grade.answer_contains("output")
    assert out["failure_kind"].to_list() == ["parse_failure", None]


def test_struct_without_answer_or_text_raises_naming_its_fields(constructor: Any) -> None:
    frame = constructor({"output": [{"content": "It was 12", "role": "assistant"}], "refs": ["12"]})
    with pytest.raises(ValueError, match=r"'content'.*'role'") as error:
        to_data(frame.grade.answer_contains("output"))
    message = str(error.value)
    assert """pl.col('output').struct.field('content')""" in message
    assert "--answer output.content" in message


def test_struct_without_answer_or_text_raises_in_the_expression_form() -> None:
    frame = pl.DataFrame({"output": [{"content": "It was 12"}], "refs": ["12"]})
    with pytest.raises(ValueError, match=r"neither an 'answer' nor a 'text' field"):
        frame.select(gf.answer_contains("output", "refs", schema=frame.schema))
    picked = frame.select(gf.answer_contains(pl.col("output").struct.field("content"), "refs"))
    assert picked.unnest("answer_contains")["correct"].to_list() == [True]


# --------------------------------------------------------------------------------------------
# not_found overrides
# --------------------------------------------------------------------------------------------

NOT_FOUND_REPORTS = [
    "NOT_IN_DOCUMENT",
    "not in document",
    "The document does not contain this information.",
    "The text doesn't mention it.",
    "The passage does not specify the year.",
    "The context cannot provide that.",
    "The figure is not stated in the report.",
    "This is not mentioned in the article.",
    "There is no information about exports in the document.",
    "The answer cannot be determined from the passage.",
    "It cannot be answered from the text.",
    "I am unable to determine the value from the document.",
    "The provided context does not say.",
]

ORDINARY = [
    "The statue was not found until 1920.",
    "The document was signed in 1920.",
    "The report lists 12 sites.",
    "There is no doubt it was 12.",
    "It was not available in stores.",
]


@pytest.mark.parametrize("text", NOT_FOUND_REPORTS)
def test_default_detector_recognises(text: str) -> None:
    assert pl.Series([text]).grade.is_not_found().to_list() == [True]


@pytest.mark.parametrize("text", ORDINARY)
def test_default_detector_ignores_ordinary_sentences(text: str) -> None:
    assert pl.Series([text]).grade.is_not_found().to_list() == [False]


def test_is_not_found_expression_and_pandas() -> None:
    import pandas as pd

    frame = pl.DataFrame({"a": [NOT_FOUND_REPORTS[2], ORDINARY[0], None]})
    assert frame.select(pl.col("a").grade.is_not_found()).to_series().to_list() == [
        True,
        False,
        None,
    ]
    assert frame.select(gf.is_not_found("a")).to_series().to_list() == [True, False, None]
    out = pd.Series([NOT_FOUND_REPORTS[2], ORDINARY[0]], index=["x", "y"]).grade.is_not_found()
    assert out.tolist() == [True, False]
    assert list(out.index) == ["x", "y"]


def test_not_found_boolean_column(constructor: Any) -> None:
    data = {
        "answer": ["I have no idea", "I have no idea", "The text does not say."],
        "refs": ["NOT_IN_DOCUMENT", "12", "NOT_IN_DOCUMENT"],
        "judge": [True, True, False],
    }
    out = _grade(constructor, data, not_found="judge")
    assert out["correct"] == [True, False, False]
    assert out["failure_kind"] == [None, "not_in_document", "wrong"]


def test_not_found_expression() -> None:
    frame = pl.DataFrame(
        {"answer": ["dunno", "12"], "refs": ["NOT_IN_DOCUMENT", "NOT_IN_DOCUMENT"]}
    )
    out = frame.grade.answer_contains(not_found=pl.col("answer") == "dunno")
    assert out["correct"].to_list() == [True, False]


def test_not_found_phrases_replace_the_defaults(constructor: Any) -> None:
    data = {
        "answer": ["No idea, sorry.", "NOT_IN_DOCUMENT"],
        "refs": ["NOT_IN_DOCUMENT", "NOT_IN_DOCUMENT"],
    }
    out = _grade(constructor, data, not_found=[r"no idea"])
    assert out["correct"] == [True, False]


@pytest.mark.parametrize(
    ("phrases", "error", "match"),
    [
        (["ok", "(unclosed"], ValueError, r"phrases\[1\].*\(unclosed"),
        (["(?<=x)y"], ValueError, r"Lookaround"),
        ([""], ValueError, r"blank"),
        ([12], TypeError, r"phrases\[0\]"),
    ],
    ids=["unclosed_group", "lookbehind", "blank", "not_a_string"],
)
def test_bad_not_found_phrase_is_named(phrases: list[Any], error: type, match: str) -> None:
    frame = pl.DataFrame({"answer": ["x"], "refs": ["1"]})
    with pytest.raises(error, match=match):
        frame.grade.answer_contains(not_found=phrases)


# --------------------------------------------------------------------------------------------
# The frame contract: rows, order, columns, lazy, prefix, expression form
# --------------------------------------------------------------------------------------------


def test_output_columns_and_dtypes() -> None:
    frame = pl.DataFrame({"answer": ["It was 12", None], "refs": ["12", "12"], "x": [1, 2]})
    out = frame.grade.answer_contains()
    assert out.columns == ["answer", "refs", "x", "correct", "failure_kind", "outcome"]
    assert out.schema["correct"] == pl.Boolean
    assert out.schema["failure_kind"] == pl.String
    assert out.schema["outcome"] == pl.String
    assert out["correct"].null_count() == 0
    assert out.select(frame.columns).equals(frame)


def test_prefix(constructor: Any) -> None:
    out = _grade(constructor, {"answer": ["It was 12"], "refs": ["12"]}, prefix="g_")
    assert_equal_data(
        out, {"g_correct": [True], "g_failure_kind": [None], "g_outcome": ["it was 12"]}
    )


def test_lazy_in_lazy_out() -> None:
    lazy = pl.LazyFrame({"answer": ["It was 12"], "refs": ["12"]})
    out = lazy.grade.answer_contains()
    assert isinstance(out, pl.LazyFrame)
    assert out.collect().equals(lazy.collect().grade.answer_contains())


def test_expression_form_returns_a_struct() -> None:
    frame = pl.DataFrame({"answer": ["It was 12", "145.2"], "refs": [["12"], ["45.2"]]})
    out = frame.select(gf.answer_contains("answer", "refs")).unnest("answer_contains")
    assert out["correct"].to_list() == [True, False]
    flat = frame.select(gf.answer_contains("answer", pl.col("refs").list.first()))
    assert flat.unnest("answer_contains")["correct"].to_list() == [True, False]


def test_rows_are_not_dropped_or_reordered() -> None:
    frame = pl.DataFrame(
        {
            "id": list(range(6)),
            "answer": ["12", None, "", "x 12", "12", "no"],
            "refs": [["12"], [], None, ["12", "NOT_IN_DOCUMENT"], [None], ["12"]],
        }
    )
    out = frame.grade.answer_contains()
    assert out["id"].to_list() == list(range(6))
    assert out["correct"].to_list() == [True, False, False, True, False, False]
    assert out["failure_kind"].to_list() == [
        None,
        "no_reference",
        "no_reference",
        None,
        "no_reference",
        "wrong",
    ]


def test_zero_rows(constructor: Any) -> None:
    frame = constructor({"answer": ["x"], "refs": ["x"]})
    frame = frame.head(0) if not hasattr(frame, "iloc") else frame.iloc[:0]
    out = to_data(frame.grade.answer_contains())
    assert out["correct"] == []


def test_fold_and_is_not_found_keep_the_column_name() -> None:
    frame = pl.DataFrame({"reply": ["1,204", None]})
    assert frame.select(gf.fold("reply"), gf.is_not_found("reply").alias("nf")).columns == [
        "reply",
        "nf",
    ]
    assert frame.select(pl.col("reply").grade.fold()).columns == ["reply"]
    assert frame.select(pl.col("reply").grade.is_not_found()).columns == ["reply"]


def test_expression_form_reads_struct_records_and_numbers() -> None:
    frame = pl.DataFrame(
        {
            "output": [
                {"answer": "It was 12,400", "status": "ok"},
                {"answer": None, "status": "error"},
            ],
            "refs": [12400, 7],
        }
    )
    expected = frame.grade.answer_contains("output", "refs").select(
        "correct", "failure_kind", "outcome"
    )
    out = frame.select(gf.answer_contains("output", "refs")).unnest("answer_contains")
    assert out.equals(expected)
    lazy = frame.lazy().select(gf.answer_contains("output", "refs", prefix="g_")).collect()
    assert lazy.unnest("g_answer_contains").columns == ["g_correct", "g_failure_kind", "g_outcome"]
    with_schema = frame.select(gf.answer_contains("output", "refs", schema=frame.schema))
    assert with_schema.unnest("answer_contains").equals(expected)


# --------------------------------------------------------------------------------------------
# Numeric acceptable answers: plain positional digits, whatever the size
# --------------------------------------------------------------------------------------------

# (id, number, answer that holds it in plain digits, answer that must not match)
NUMBER_CASES = [
    ("1e15_in_plain_digits", 1e15, "It is 1,000,000,000,000,000.", "It is 1e15."),
    ("1e16_in_plain_digits", 1e16, "It is 10000000000000000.", "It is 1e+16."),
    ("1e-7_in_plain_digits", 1e-7, "a dose of 0.0000001 g", "a dose of 1e-7 g"),
    ("1.5e-5_in_plain_digits", 1.5e-5, "about 0.000015 m", "about 1.5e-05 m"),
    ("12400.0_is_12400", 12400.0, "made 12,400 units", "made 12400.0 units"),
    ("2.50_is_2.5", 2.50, "costs 2.5 dollars", "costs 2.51 dollars"),
    ("negative_float", -12.0, "it fell to -12 degrees", "it fell 12 degrees"),
    ("negative_small", -0.0015, "drift of -0.0015 units", "drift of 0.0015 units"),
    ("1.23e22_in_plain_digits", 1.23e22, "12300000000000000000000 stars", "1.23e+22 stars"),
    ("shortest_digits_0.1", 0.1, "about 0.1 of it", "about 0.10000000000000001 of it"),
    ("negative_zero_is_0", -0.0, "exactly 0 left", "exactly -0 left"),
    ("large_integer_in_float", 123456789012.0, "123,456,789,012 people", "123456789012.0"),
]


def test_numeric_refs_in_plain_digits(constructor: Any) -> None:
    answers = [c[2] for c in NUMBER_CASES] + [c[3] for c in NUMBER_CASES]
    refs = [c[1] for c in NUMBER_CASES] * 2
    out = _grade(constructor, {"answer": answers, "refs": refs})
    expected = [True] * len(NUMBER_CASES) + [False] * len(NUMBER_CASES)
    wrong = [
        (c[0], a)
        for c, a, got, e in zip(NUMBER_CASES * 2, answers, out["correct"], expected, strict=True)
        if got != e
    ]
    assert not wrong


@pytest.mark.parametrize(
    "value", [float("nan"), float("inf"), float("-inf")], ids=["nan", "inf", "minus_inf"]
)
def test_nan_and_infinite_refs_are_no_reference(constructor: Any, value: float) -> None:
    # "Financial results" must not contain the NaN acceptable answer "nan"
    out = _grade(
        constructor,
        {"answer": ["Financial results nan inf", "It was 12."], "refs": [value, 12.0]},
    )
    assert out["correct"] == [False, True]
    assert out["failure_kind"] == ["no_reference", None]


def test_nan_in_a_list_of_refs_is_ignored() -> None:
    frame = pl.DataFrame({"answer": ["nan 12", "nan"], "refs": [[float("nan"), 12.0]] * 2})
    out = frame.grade.answer_contains()
    assert out["correct"].to_list() == [True, False]
    assert out["failure_kind"].to_list() == [None, "wrong"]


def test_float32_refs_use_float32_shortest_digits() -> None:
    values = [0.1, 16777216.0, 1e-7, 3.4e38, 2.5]
    answers = [
        "about 0.1 of it",
        "16,777,216 bytes",
        "0.0000001 g",
        "340000000000000000000000000000000000000 units",
        "2.5 kg",
    ]
    frame = pl.DataFrame(
        {"answer": answers, "refs": values}, schema={"answer": pl.String, "refs": pl.Float32}
    )
    assert frame.grade.answer_contains()["correct"].to_list() == [True] * 5
    assert frame.lazy().grade.answer_contains().collect()["correct"].to_list() == [True] * 5


def test_decimal_refs_keep_their_scale(constructor: Any) -> None:
    # SPEC v3 §2: a Decimal value keeps its scale, Decimal(4, 2) 2.50 is "2.50" (v2 wrote "2.5")
    import decimal

    frame = constructor(
        {
            "answer": ["costs 2.5 dollars", "costs 2.50 dollars", "100.00 units", "-0.05 change"],
            "refs": [decimal.Decimal(v) for v in ("2.50", "2.50", "100.00", "-0.05")],
        },
        schema={"answer": pl.String, "refs": pl.Decimal(6, 2)},
    )
    assert_equal_data(
        frame.grade.answer_contains(),
        {"correct": [False, True, True, True], "failure_kind": ["wrong", None, None, None]},
    )


def test_integer_refs_of_every_width() -> None:
    for dtype in (pl.Int8, pl.Int32, pl.UInt64, pl.Int64):
        frame = pl.DataFrame(
            {"answer": ["It is 12.", "It is -12."], "refs": [12, 12]},
            schema={"answer": pl.String, "refs": dtype},
        )
        assert frame.grade.answer_contains()["correct"].to_list() == [True, False], dtype


def test_list_of_numeric_refs_in_plain_digits(constructor: Any) -> None:
    out = _grade(
        constructor,
        {
            "answer": ["It is 1,000,000,000,000,000.", "a dose of 0.0000001 g", "it is 1e15"],
            "refs": [[7.0, 1e15], [1e-7], [1e15, 7.5]],
        },
    )
    assert out["correct"] == [True, True, False]


def test_pandas_text_of_a_number_does_not_depend_on_the_column() -> None:
    import pandas as pd

    numbers = [1e-05, 1e15, 12400.0, 2.5, float("nan"), -0.0, 7]
    answers = ["0.00001", "1000000000000000", "12400", "2.5", "nan", "0", "7"]
    alone = pd.DataFrame({"answer": answers, "refs": pd.Series(numbers, dtype=object)})
    mixed = pd.DataFrame(
        {"answer": [*answers, "abc"], "refs": pd.Series([*numbers, "abc"], dtype=object)}
    )
    listed = pd.DataFrame(
        {"answer": answers, "refs": pd.Series([[n, "zzz"] for n in numbers], dtype=object)}
    )
    expected = [True, True, True, True, False, True, True]
    assert alone.grade.answer_contains()["correct"].tolist() == expected
    assert mixed.grade.answer_contains()["correct"].tolist() == [*expected, True]
    assert listed.grade.answer_contains()["correct"].tolist() == expected
    kinds = mixed.grade.answer_contains()["failure_kind"].tolist()
    assert kinds[4] == "no_reference"
    polars = pl.DataFrame({"answer": answers, "refs": [float(n) for n in numbers]})
    assert polars.grade.answer_contains()["correct"].to_list() == expected


# --------------------------------------------------------------------------------------------
# The not-found detector: what must fire and what must not
# --------------------------------------------------------------------------------------------

MUST_FIRE = [
    # the label and whole answers
    "NOT_IN_DOCUMENT",
    "not_in_document",
    "not in document",
    "Not in the text.",
    "Not mentioned.",
    "not mentioned",
    "Not stated.",
    "Not specified",
    "Not given.",
    "Not provided!",
    "Not available.",
    "Unknown from the text.",
    "No answer.",
    "Answer: Not mentioned.",
    "It is not stated.",
    # "<the document> does not <verb>"
    "The document does not contain this information.",
    "The text doesn't mention it.",
    "The text doesn\u2019t mention it.",
    "The passage does not specify the year.",
    "The context cannot provide that.",
    "The provided context does not say.",
    "The article did not list the members.",
    "The source does not indicate who won.",
    "The documents do not state the cause.",
    "The report never mentions the budget.",
    "The text does not explicitly state the year.",
    "The given information does not include the date.",
    "The information given does not include the date.",
    "The information provided doesn't say when it closed.",
    # "... is not <stated> in the <document>"
    "The figure is not stated in the report.",
    "This is not mentioned in the article.",
    "It isn't stated in the text.",
    "It isn\u2019t stated in the text.",
    "The year was not mentioned anywhere in the passage.",
    "Her age is not specified in the provided context.",
    "That has not been provided in the excerpt.",
    "The cause of the fire is not given in the text above.",
    # "the answer is not in the <document>", "I could not find ..."
    "The answer is not in the text.",
    "The answer isn't in the document.",
    "I couldn't find this in the document.",
    "I could not find it in the passage.",
    "I can't find the answer in the text.",
    "I did not find any mention of the treaty in the source.",
    "I was unable to find his birthplace in the document.",
    # "there is no information about ... in the <document>"
    "There is no information about exports in the document.",
    "There is no information about Mr. Smith in the document.",
    "There is no information on the 3.5 km route in the text.",
    "There's no mention of the treaty in the passage.",
    "There is no data on St. Louis in the report.",
    "There are no details about the U.S. branch in the given information.",
    # "cannot be determined from", "unable to determine ... from"
    "The answer cannot be determined from the passage.",
    "It cannot be answered from the text.",
    "This can't be determined based on the document.",
    "The exact figure could not be established from the article.",
    "I am unable to determine the value from the document.",
    "Unable to determine Dr. Lee's age from the text.",
    "It is not possible to determine the cost of the No. 5 line from the passage.",
    # more ways to say it
    "The text makes no mention of his wife.",
    "The document contains no information about the price.",
    "No information about his age is given in the text.",
    "The context is silent on this point.",
    "Nothing in the text says when it opened.",
    "The document does not mention the date, so the answer is NOT_IN_DOCUMENT.",
    "Sorry, but the document does not mention his age.",
    "The text does not mention it; I cannot answer.",
    "The document does not mention the year, but it does not say anything else either.",
    # framed by the source first
    "Based on the given context, the answer cannot be determined.",
    "Based on the provided text, it is not possible to determine the age.",
    "According to the document, there is no information about X.",
    "In the text, the year is not mentioned.",
    "From the passage alone, it is unclear who won.",
    "The document doesn't provide information about the author's age.",
    "I don't see any mention of it in the passage.",
    "No information is provided in the document about the date.",
    "There isn't any information about X in the text.",
    "There aren't enough details in the passage.",
    # a later clause that does not give the answer does not cancel the report
    "NOT_IN_DOCUMENT The earlier draft gave a different number, but the final version is clear.",
    "This is not stated in the passage. The draft differed, but the final version is clear.",
    "The text does not mention it. It says a lot about 1921, though.",
    "The passage does not state the year; sorry.",
    # v3: final "?" and "…" are ignored on a whole answer, as "." and "!" are
    "Not stated?",
    "Not given?!",
    "No answer…",
    # v3 (issue 21 item 9): a parenthesis after the document noun does not continue the noun
    "The answer: not in document (see above)",
    "not in document (see above)",
    "The context does not specify a unit: see the table.",
]

MUST_NOT_FIRE = [
    "The statue was not found until 1920.",
    "The stolen painting could not be found until 1950.",
    "The wreck cannot be found without sonar.",
    "The statue cannot be found in the museum today.",
    "There is no information desk in the document centre.",
    "The document does not just mention the fire; it says the mill closed in 1921.",
    "The report does not include errors; revenue was 12 million.",
    "The document does not mention the date, but it says 1921.",
    "The text doesn't state it directly, but it says the mill closed in 1921.",
    "The passage does not give the figure; however, it notes that revenue was 12 million.",
    "The document was signed in 1920.",
    "The report lists 12 sites.",
    "There is no doubt it was 12.",
    "It was not available in stores.",
    "It was 12.",
    "Not mentioned in the 1920 census, he moved to Paris.",
    "He sent a text message that was not answered.",
    "The answer is 12, which is stated in the document.",
    "The document mentions 12 sites.",
    "The text says the mill closed in 1921.",
    "Nothing was found at the site.",
    "No one could determine the cause at the time.",
    "Unknown soldiers were buried here.",
    "The treaty was never signed.",
    "The context window is 8,000 tokens.",
    "The documents were not signed until 1921.",
    "The document does not mention the date. However, it says 1921.",
    "According to the report, the company said revenue was 12 million.",
    "Based on the text, the answer is 12.",
    "According to the document, the statue was not found until 1920.",
    "No information desk in the document centre.",
    "No one in the report was named.",
    "There was no rain in 1920 according to records.",
    "The text doesn't give the name; however, the answer is Paris.",
    "I could not find it in the document, but the report states 45 units.",
    # v3 (issue 21 item 9): an answer that follows a ":" gives the answer anyway
    "The context does not specify a unit: the reading was 45.2.",
    "Not stated? It was 12.",
]


@pytest.mark.parametrize("text", MUST_FIRE)
def test_default_detector_fires_on_reports(text: str) -> None:
    assert pl.Series([text]).grade.is_not_found().to_list() == [True]
    assert reference.is_not_found(reference.fold(text)) is True


@pytest.mark.parametrize("text", MUST_NOT_FIRE)
def test_default_detector_does_not_fire_on_ordinary_sentences(text: str) -> None:
    assert pl.Series([text]).grade.is_not_found().to_list() == [False]
    assert not reference.is_not_found(reference.fold(text))


def test_not_found_reports_on_every_frame_type(constructor: Any) -> None:
    # an unanswerable item answered with a not-found report is right; an ordinary sentence that
    # uses the same words is not (it used to score correct)
    answers = MUST_FIRE + MUST_NOT_FIRE
    out = _grade(constructor, {"answer": answers, "refs": ["NOT_IN_DOCUMENT"] * len(answers)})
    expected = [True] * len(MUST_FIRE) + [False] * len(MUST_NOT_FIRE)
    wrong = [a for a, got, e in zip(answers, out["correct"], expected, strict=True) if got != e]
    assert not wrong
    answered = _grade(constructor, {"answer": answers, "refs": ["42"] * len(answers)})
    kinds = ["not_in_document"] * len(MUST_FIRE) + ["wrong"] * len(MUST_NOT_FIRE)
    assert answered["failure_kind"] == kinds


def test_not_found_gap_is_at_most_about_200_characters() -> None:
    near = "There is no information about " + "x" * 150 + " in the document."
    far = "There is no information about " + "x " * 200 + " in the document."
    assert pl.Series([near, far]).grade.is_not_found().to_list() == [True, False]


def test_not_found_phrase_in_a_long_answer() -> None:
    text = "Filler sentence 12.5. " * 2000 + "The document does not mention the date."
    assert pl.Series([text, text + " But it says 1921."]).grade.is_not_found().to_list() == [
        True,
        False,
    ]


def test_default_phrases_are_listed() -> None:
    assert len(gf.DEFAULT_NOT_FOUND_PHRASES) >= 10
    assert all(isinstance(p, str) for p in gf.DEFAULT_NOT_FOUND_PHRASES)
    import gradeframe.answer
    import gradeframe.not_found

    assert gradeframe.answer.is_not_found is gradeframe.not_found.is_not_found
    assert gf.is_not_found is gradeframe.not_found.is_not_found


def test_not_found_phrases_replace_the_defaults_on_every_frame_type(constructor: Any) -> None:
    data = {
        "answer": ["No idea, sorry.", "The document does not mention it.", "NO IDEA"],
        "refs": ["NOT_IN_DOCUMENT"] * 3,
    }
    out = _grade(constructor, data, not_found=[r"\bno idea\b"])
    assert out["correct"] == [True, False, True]
    assert _grade(constructor, data, not_found=[])["correct"] == [False, False, False]


# --------------------------------------------------------------------------------------------
# Odd sizes
# --------------------------------------------------------------------------------------------


def test_acceptable_answer_of_400_kb_scores(constructor: Any) -> None:
    big = "word 12 " * 50_000  # 400 KB
    data = {
        "answer": ["x " + big + " y", "nope", "word 12 " * 50_001],
        "refs": [big, big, big + "3"],
    }
    out = _grade(constructor, data)
    assert out["correct"] == [True, False, False]
    single = _grade(constructor, {"answer": ["x " + big + " y"], "refs": [big]})
    assert single["correct"] == [True]


def test_acceptable_answer_of_400_kb_whole_number_rules() -> None:
    big = "7 " + "word " * 80_000 + "12"
    frame = pl.DataFrame({"answer": [big + ".5", big + "th", "1" + big], "refs": [big] * 3})
    assert frame.grade.answer_contains()["correct"].to_list() == [False, True, False]
    lazy = frame.lazy().grade.answer_contains().collect(engine="streaming")
    assert lazy["correct"].to_list() == [False, True, False]
