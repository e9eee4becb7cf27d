"""Property tests: the vectorized rules agree with the scalar reference (tests/reference.py).

Text is number-heavy and white-space-heavy Unicode: digits in several scripts, every separator
and dash the rules name, the marker letters gradeframe uses inside (E, H, N, Q, S, Z), control
and private-use characters, combining marks and the other characters NFC changes, and word
characters that are not letters or digits ("½", "²", "Ⅻ"). Each example is a small batch of rows,
scored in one call. Numeric acceptable answers and the not-found detector have their own.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
from hypothesis import given
from hypothesis import strategies as st

import gradeframe  # registers .grade
from gradeframe._containment import occurs_but_rejected
from gradeframe._refs import number_text
from tests import reference
from tests.utils import make_frame, to_data

SPECIAL = [
    *"0123456789012345678901234567890.,.,--+ ()=xXaAEHNQSZehnqsz_'",
    "\u00a0",  # no-break space (separator and white space)
    "\u2007",  # figure space
    "\u2009",  # thin space
    "\u202f",  # narrow no-break space
    "\u2010",
    "\u2011",
    "\u2012",
    "\u2013",
    "\u2212",  # minus sign
    "\u2014",  # em dash: not folded
    "\t",
    "\n",
    "\u3000",
    "\u2028",
    "\x85",
    "\x00",
    "\x1f",
    "\ue000",  # private use
    "\u0301",  # combining acute
    "\u0661",  # Arabic-Indic one
    "\u0967",  # Devanagari one
    "\u05d0",  # Hebrew alef (right to left)
    "\U0001f600",  # emoji
    "\u03a3",  # capital sigma (final-sigma lower casing)
    "\u0130",  # capital I with dot
    "\u00df",  # sharp s
    "NOT_IN_DOCUMENT",
    "not in document",
    "12",
    "1,204",
    "{,}",  # LaTeX's thousands separator (v3): "9{,}500" folds to "9500"
    "9{,}500",
    "{",
    "}",
    "45.2",
    "-12",
    ".5",
    "-.5",
    "-.",
    # NFC: combining marks, and characters NFC composes or replaces
    "e\u0301",
    "\u0308",
    "\u0323",
    "\u0302",
    "A\u030a",
    "\u1100",  # Hangul leading jamo
    "\u1161",  # vowel jamo (composes with the one before)
    "\u11a8",  # final jamo
    "\uac00",  # Hangul syllable
    "\u212b",  # Angstrom sign
    "\u212a",  # Kelvin sign
    "\u1f71",  # Greek alpha with oxia
    "\u0958",  # Devanagari qa (composition exclusion)
    "\uf900",  # CJK compatibility ideograph
    # word characters that are not letters or decimal digits, and "_" (not one)
    "\u00bd",  # ½
    "\u00b2",  # ²
    "\u216b",  # Ⅻ
    "\u2153",  # ⅓
    "_",
    # Unicode decimal digits
    "\u0663",  # Arabic-Indic three
    "\u0969",  # Devanagari three
    "\uff13",  # fullwidth three
    "\U0001d7d1",  # mathematical bold three
]

# Assigned characters only: the engines may know newer Unicode than Python 3.11 does.
OTHER = st.characters(exclude_categories=("Cs", "Cn"))
PIECE = st.one_of(st.sampled_from(SPECIAL), OTHER)
TEXT = st.lists(PIECE, max_size=24).map("".join)


@st.composite
def answer_and_refs(draw: st.DrawFn) -> tuple[str | None, list[str | None]]:
    answer = draw(st.one_of(st.none(), TEXT))
    refs: list[str | None] = []
    for _ in range(draw(st.integers(0, 3))):
        if answer and draw(st.booleans()):
            start = draw(st.integers(0, len(answer) - 1))
            end = draw(st.integers(start + 1, len(answer)))
            refs.append(answer[start:end])  # a piece of the answer: containment often true
        else:
            refs.append(draw(st.one_of(st.none(), TEXT)))
    return answer, refs


@given(st.lists(st.one_of(st.none(), TEXT), min_size=1, max_size=8))
def test_fold_agrees_with_reference(texts: list[str | None]) -> None:
    got = pl.Series("a", texts, dtype=pl.String).grade.fold().to_list()
    assert got == [reference.fold(t) for t in texts]


@given(st.lists(answer_and_refs(), min_size=1, max_size=6))
def test_containment_agrees_with_reference(rows: list[tuple[str | None, list[str | None]]]) -> None:
    answers = [a for a, _ in rows]
    refs = [r for _, r in rows]
    frame = pl.DataFrame(
        {"answer": answers, "refs": refs},
        schema={"answer": pl.String, "refs": pl.List(pl.String)},
    )
    out = frame.grade.answer_contains(not_found=pl.lit(value=False))
    expected = [reference.answer_contains(a, r, not_found=False) for a, r in rows]
    assert out["correct"].to_list() == [e["correct"] for e in expected]
    assert out["failure_kind"].to_list() == [e["failure_kind"] for e in expected]
    # one acceptable answer as a String column takes the same path through the rules
    single = pl.DataFrame(
        {"answer": answers, "ref": [r[0] if r else None for r in refs]},
        schema={"answer": pl.String, "ref": pl.String},
    )
    got = single.grade.answer_contains("answer", "ref", not_found=pl.lit(value=False))
    assert got["correct"].to_list() == [
        reference.answer_contains(a, r[0] if r else None, not_found=False)["correct"]
        for a, r in rows
    ]


NOTES = st.one_of(
    st.none(),
    st.lists(
        st.sampled_from(["cost_cap_reached", "call_cap_reached", "limit_refused", "ok"]), max_size=2
    ),
)
TRACE = st.one_of(
    st.none(),
    st.lists(
        st.fixed_dictionaries(
            {"finish_reason": st.sampled_from(["stop", "length", "refusal", "content_filter"])}
        ),
        max_size=3,
    ),
)
NOT_FOUND_TEXT = st.sampled_from(
    [
        "NOT_IN_DOCUMENT",
        "The document does not mention it.",
        "It is not stated in the text.",
        "The statue was not found until 1920.",
    ]
)


@st.composite
def records(draw: st.DrawFn) -> tuple[dict[str, Any], list[str | None]]:
    answer, refs = draw(answer_and_refs())
    if draw(st.integers(0, 4)) == 0:
        answer = draw(NOT_FOUND_TEXT)
    if draw(st.integers(0, 4)) == 0:
        refs = [*refs, "NOT_IN_DOCUMENT"]
    record = {
        "answer": answer,
        "text": draw(st.one_of(st.none(), TEXT)),
        "partial": draw(st.one_of(st.none(), st.booleans())),
        "notes": draw(NOTES),
        "trace": draw(TRACE),
        "status": draw(
            st.sampled_from(
                [
                    *(None, "ok", "error", "refused", " Error ", "TIMEOUT", "length"),
                    *("max_tokens", "failed", "exception", "content_filter", "refusal"),
                    *("end_turn", ""),
                ]
            )
        ),
        "failure_kind": draw(st.sampled_from([None, None, None, "timeout", " "])),
    }
    return record, refs


OUTPUT_SCHEMA = {
    "output": pl.Struct(
        {
            "answer": pl.String,
            "text": pl.String,
            "partial": pl.Boolean,
            "notes": pl.List(pl.String),
            "trace": pl.List(pl.Struct({"finish_reason": pl.String})),
            "status": pl.String,
            "failure_kind": pl.String,
        }
    ),
    "refs": pl.List(pl.String),
}


@given(st.lists(records(), min_size=1, max_size=6))
def test_whole_chain_agrees_with_reference(
    rows: list[tuple[dict[str, Any], list[str | None]]],
) -> None:
    frame = pl.DataFrame(
        {"output": [r for r, _ in rows], "refs": [refs for _, refs in rows]}, schema=OUTPUT_SCHEMA
    )
    out = frame.grade.answer_contains("output", "refs")
    expected = [reference.answer_contains(r, refs) for r, refs in rows]
    assert out.select("correct", "failure_kind", "outcome").to_dicts() == expected


def _frame_data(rows: list[tuple[dict[str, Any], list[str | None]]]) -> dict[str, list[Any]]:
    return {
        "id": list(range(len(rows))),
        "output": [r for r, _ in rows],
        "refs": [refs for _, refs in rows],
    }


FRAME_SCHEMA = {"id": pl.Int64, **OUTPUT_SCHEMA}


@given(st.lists(records(), min_size=1, max_size=5))
def test_lazy_equals_eager(rows: list[tuple[dict[str, Any], list[str | None]]]) -> None:
    source = pl.DataFrame(_frame_data(rows), schema=FRAME_SCHEMA)
    eager = source.grade.answer_contains("output", "refs")
    lazy = source.lazy().grade.answer_contains("output", "refs").collect()
    assert lazy.equals(eager)
    assert eager.select(source.columns).equals(source)  # every row, in order, columns untouched
    expected = [reference.answer_contains(r, refs) for r, refs in rows]
    assert eager.select("correct", "failure_kind", "outcome").to_dicts() == expected


@given(st.lists(records(), min_size=1, max_size=5))
def test_pandas_equals_polars(rows: list[tuple[dict[str, Any], list[str | None]]]) -> None:
    data = _frame_data(rows)
    eager = pl.DataFrame(data, schema=FRAME_SCHEMA).grade.answer_contains("output", "refs")
    expected = to_data(eager.select("id", "correct", "failure_kind", "outcome"))
    for kind in ("pandas_object", "pandas_arrow"):
        frame = make_frame(kind, data, schema=FRAME_SCHEMA)
        if kind == "pandas_object":
            frame.index = pd.Index([f"r{i}" for i in range(len(rows))])
        before = frame.copy(deep=True)
        result = frame.grade.answer_contains("output", "refs")
        assert list(result.index) == list(frame.index)
        pd.testing.assert_frame_equal(frame, before)  # the caller's frame is unchanged
        pd.testing.assert_frame_equal(result[list(frame.columns)], before)
        got = to_data(result[["id", "correct", "failure_kind", "outcome"]])
        assert got == expected, kind


# --------------------------------------------------------------------------------------------
# Numeric acceptable answers
# --------------------------------------------------------------------------------------------

FLOATS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e15, 1e16, 1e-7, 12400.0, 2.5, -0.0, 0.1, 5e-324, 1.7976931348623157e308]),
    st.integers(-(10**20), 10**20).map(float),
    st.integers(-30, 30).map(lambda e: 10.0**e),
)


@given(st.lists(FLOATS, min_size=1, max_size=8))
def test_float64_refs_are_written_as_the_reference_writes_them(values: list[float]) -> None:
    expected = [reference.number_text(v) for v in values]
    frame = pl.DataFrame({"x": values}, schema={"x": pl.Float64})
    got = frame.select(number_text(pl.col("x"), pl.Float64)).to_series().to_list()
    assert got == expected
    # and the answer holding that text (or "nan") is right exactly when there is one
    answers = [
        f"it is {t} here" if t is not None else f"it is {v} here"
        for t, v in zip(expected, values, strict=True)
    ]
    graded = pl.DataFrame({"answer": answers, "refs": values}).grade.answer_contains()
    assert graded["correct"].to_list() == [t is not None for t in expected]


@given(st.lists(st.floats(width=32), min_size=1, max_size=8))
def test_float32_refs_are_written_as_the_reference_writes_them(values: list[float]) -> None:
    expected = [reference.number_text(np.float32(v)) for v in values]
    frame = pl.DataFrame({"x": values}, schema={"x": pl.Float32})
    got = frame.select(number_text(pl.col("x"), pl.Float32)).to_series().to_list()
    assert got == expected


@given(st.lists(st.one_of(FLOATS, st.integers(-(10**12), 10**12), TEXT), min_size=1, max_size=6))
def test_pandas_mixed_refs_equal_polars(values: list[Any]) -> None:
    # a pandas object column mixing numbers and text: each number is written on its own
    answers = ["it is " + (reference.ref_text(v) or "none") for v in values]
    frame = pd.DataFrame({"answer": answers, "refs": pd.Series(values, dtype=object)})
    got = frame.grade.answer_contains()
    expected = [reference.answer_contains(a, [v]) for a, v in zip(answers, values, strict=True)]
    assert got["correct"].tolist() == [e["correct"] for e in expected]
    kinds = [None if isinstance(k, float) else k for k in got["failure_kind"].tolist()]
    assert kinds == [e["failure_kind"] for e in expected]


# --------------------------------------------------------------------------------------------
# The not-found detector: the keyword gate and the answer-anyway rule change nothing
# --------------------------------------------------------------------------------------------

FRAGMENTS = st.sampled_from(
    [
        "the document",
        "The text",
        "does not",
        "doesn\u2019t",
        "mention",
        "just",
        "state",
        "is not",
        "stated",
        "in the",
        "passage",
        "there is no",
        "information",
        "about",
        "Mr. Smith",
        "3.5",
        "cannot be",
        "determined",
        "from",
        "unable to",
        "find",
        "I couldn't",
        "not mentioned",
        "Not stated.",
        "NOT_IN_DOCUMENT",
        "centre",
        "desk",
        "; revenue was 12 million",
        ", but it says 1921",
        "but it does not",
        "given",
        "the information provided",
        ".",
        ",",
        "!",
        "answer:",
        "it is",
        "no answer",
        "unknown from the text",
        "silent on",
        "makes no mention of",
        "x" * 60,
    ]
)
SENTENCE = st.lists(FRAGMENTS, min_size=1, max_size=10).map(" ".join)


@given(st.lists(st.one_of(st.none(), SENTENCE), min_size=1, max_size=8))
def test_not_found_agrees_with_reference(texts: list[str | None]) -> None:
    got = pl.Series("a", texts, dtype=pl.String).grade.is_not_found().to_list()
    expected = [reference.is_not_found(reference.fold(t)) for t in texts]
    assert got == expected


# JSON-list acceptable answers: JSON text of strings and numbers (some cut, some padded, some
# holding what a list may not hold), and plain text that starts with "[".
JSON_ITEM = st.one_of(
    TEXT,
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([None, True, {"a": 1}, [1]]),
)


@st.composite
def json_cell(draw: st.DrawFn, answer: str | None) -> str | None:
    items = draw(st.lists(JSON_ITEM, max_size=3))
    if answer and draw(st.booleans()):
        start = draw(st.integers(0, len(answer) - 1))
        items.append(answer[start : draw(st.integers(start + 1, len(answer)))])
    text = json.dumps(items, ensure_ascii=draw(st.booleans()))
    text = draw(
        st.sampled_from(
            [
                text,
                f" {text}\n",
                f"\u3000{text}\u2028",  # Unicode white space is trimmed
                f"{text}\x1f",  # \x1f is no white space (though str.strip takes it): not a list
                text[:-1],  # cut: not a list
                "[" + text,  # not a list
                text.replace(", ", ","),
                text.replace("e+", "E"),
            ]
        )
    )
    return draw(st.one_of(st.just(text), st.none(), TEXT.map(lambda t: "[" + t)))


@st.composite
def json_rows(draw: st.DrawFn) -> tuple[str | None, str | None]:
    answer = draw(st.one_of(st.none(), TEXT))
    return answer, draw(json_cell(answer))


@given(st.lists(json_rows(), min_size=1, max_size=6))
def test_json_list_refs_and_explanations_agree_with_reference(
    rows: list[tuple[str | None, str | None]],
) -> None:
    frame = pl.DataFrame(
        {"answer": [a for a, _ in rows], "refs": [r for _, r in rows]},
        schema={"answer": pl.String, "refs": pl.String},
    )
    expected = [reference.answer_contains(a, r, not_found=False, explained=True) for a, r in rows]
    for graded in (
        frame.grade.answer_contains(not_found=pl.lit(value=False), explain=True),
        frame.lazy().grade.answer_contains(not_found=pl.lit(value=False), explain=True).collect(),
    ):
        for column in ("correct", "failure_kind", "matched", "near_miss"):
            assert graded[column].to_list() == [e[column] for e in expected], column


@given(st.lists(answer_and_refs(), min_size=1, max_size=6))
def test_explanations_of_list_refs_agree_with_reference(
    rows: list[tuple[str | None, list[str | None]]],
) -> None:
    frame = pl.DataFrame(
        {"answer": [a for a, _ in rows], "refs": [r for _, r in rows]},
        schema={"answer": pl.String, "refs": pl.List(pl.String)},
    )
    expected = [reference.explain(reference.fold(a), r) for a, r in rows]
    for graded in (
        frame.grade.answer_contains(explain=True),
        frame.lazy().grade.answer_contains(explain=True).collect(),
    ):
        assert to_data(graded.select("matched", "near_miss")) == {
            "matched": [e["matched"] for e in expected],
            "near_miss": [e["near_miss"] for e in expected],
        }


# --------------------------------------------------------------------------------------------
# Whole words
# --------------------------------------------------------------------------------------------

# Word-heavy text: short words that hide in longer ones, apostrophes, "_" (no word character),
# digits next to letters, combining marks (on letters and alone), letters that lower-case to a
# letter and a mark ("İ"), a title-case letter, marks of Indic scripts, and the marker letters.
WORD_SPECIAL = [
    "uk",
    "UK",
    "ukraine",
    "no",
    "No",
    "know",
    "everest",
    "'s",
    "\u2019s",
    "a",
    "b",
    "ab",
    " ",
    " ",
    " ",
    "-",
    ".",
    "_",
    "'",
    "x1",
    "1x",
    "12th",
    "5mg",
    "covid-19",
    "\u00e9",  # é
    "e\u0301",  # é decomposed
    "q\u0301",  # no composed form: a letter and a mark
    "\u0301",
    "\u0130",  # İ: lower-cases to "i" and a combining dot
    "\u01c5",  # ǅ title case
    "\u0939\u093f\u0928\u094d\u0926\u0940",  # हिन्दी: ends with a vowel sign (a mark)
    "\u0940",
    "\u00bd",  # ½: a number, a word character
    "\u00b2",
    "\u0661",
    "W",
    "Y",
    "wy",
    "\u00df",
]
WORD_PIECE = st.one_of(st.sampled_from(WORD_SPECIAL), st.sampled_from(SPECIAL), OTHER)
WORD_TEXT = st.lists(WORD_PIECE, max_size=16).map("".join)


@st.composite
def word_answer_and_refs(draw: st.DrawFn) -> tuple[str | None, list[str | None]]:
    answer = draw(st.one_of(st.none(), WORD_TEXT))
    refs: list[str | None] = []
    for _ in range(draw(st.integers(0, 3))):
        if answer and draw(st.integers(0, 2)):
            start = draw(st.integers(0, len(answer) - 1))
            end = draw(st.integers(start + 1, len(answer)))
            refs.append(answer[start:end])  # a piece of the answer: often a piece of a word
        else:
            refs.append(draw(st.one_of(st.none(), WORD_TEXT, st.sampled_from(WORD_SPECIAL))))
    return answer, refs


@given(st.lists(word_answer_and_refs(), min_size=1, max_size=6))
def test_whole_words_agree_with_reference(
    rows: list[tuple[str | None, list[str | None]]],
) -> None:
    answers = [a for a, _ in rows]
    refs = [r for _, r in rows]
    frame = pl.DataFrame(
        {"answer": answers, "refs": refs},
        schema={"answer": pl.String, "refs": pl.List(pl.String)},
    )
    expected = [
        reference.answer_contains(a, r, not_found=False, whole_words=True)["correct"]
        for a, r in rows
    ]
    never = pl.lit(value=False)
    out = frame.grade.answer_contains(not_found=never, whole_words=True)
    assert out["correct"].to_list() == expected
    # a LazyFrame matches short lists row by row (unrolled): the same answers
    lazy = frame.lazy().grade.answer_contains(not_found=never, whole_words=True).collect()
    assert lazy["correct"].to_list() == expected
    # one acceptable answer as a String column takes the same path through the rules
    single = pl.DataFrame(
        {"answer": answers, "ref": [r[0] if r else None for r in refs]},
        schema={"answer": pl.String, "ref": pl.String},
    )
    got = single.grade.answer_contains("answer", "ref", not_found=never, whole_words=True)
    assert got["correct"].to_list() == [
        reference.answer_contains(a, r[:1], not_found=False, whole_words=True)["correct"]
        for a, r in rows
    ]


@given(st.lists(word_answer_and_refs(), min_size=1, max_size=6))
def test_occurs_but_rejected_is_plain_occurrence_less_the_rules(
    rows: list[tuple[str | None, list[str | None]]],
) -> None:

    pairs = [(a, r[0] if r else None) for a, r in rows]
    frame = pl.DataFrame(
        {"answer": [a for a, _ in pairs], "ref": [r for _, r in pairs]},
        schema={"answer": pl.String, "ref": pl.String},
    )
    got = frame.select(occurs_but_rejected(gradeframe.fold("answer"), "ref", whole_words=True))
    expected = []
    for answer, ref in pairs:
        outcome, folded = reference.fold(answer), reference.fold(ref)
        if outcome is None:
            expected.append(None)
        elif not folded or folded == reference.LABEL:
            expected.append(False)
        else:
            plain = folded in outcome
            expected.append(plain and not reference.contains(outcome, folded, whole_words=True))
    assert got.to_series().to_list() == expected


# --------------------------------------------------------------------------------------------
# The refusal detector
# --------------------------------------------------------------------------------------------

REFUSAL_FRAGMENTS = st.sampled_from(
    [
        "I'm sorry,",
        "I\u2019m sorry",
        "I'm sorry \u2014",
        "Sorry;",
        "Apologies,",
        "I regret that",
        "-",
        ":",
        "can not",
        "be helping",
        "browse the internet",
        "Paris, probably",
        "feel free to ask",
        "thanks",
        "Sorry,",
        "I apologize,",
        "but",
        "as an AI language model,",
        "As an AI engineer,",
        "I can't",
        "I can\u2019t",
        "I cannot",
        "I won't",
        "I will not",
        "I'm unable to",
        "I am not able to",
        "I must decline",
        "and will not",
        "help",
        "help with that",
        "help but",
        "assist with",
        "provide",
        "comply",
        "do that",
        "answer",
        "that's not something I can help with",
        "to hear that",
        "the answer is 45",
        "it is",
        "Paris",
        "12",
        "however,",
        "that said",
        ";",
        ".",
        ",",
        "?",
        '"',
        "my guidelines",
        "you",
        "from the provided text",
        "the document does not mention it",
        "browse the web",
        "be certain",
        "\u0301",
        "\u00e9",
    ]
)
REFUSAL_SENTENCE = st.lists(REFUSAL_FRAGMENTS, min_size=1, max_size=10).map(" ".join)


@given(st.lists(st.one_of(st.none(), st.just(""), REFUSAL_SENTENCE), min_size=1, max_size=8))
def test_refusal_agrees_with_reference(texts: list[str | None]) -> None:
    got = pl.Series("a", texts, dtype=pl.String).grade.is_refusal().to_list()
    expected = [reference.is_refusal(reference.fold(t)) for t in texts]
    assert got == expected


@st.composite
def refusal_records(draw: st.DrawFn) -> tuple[dict[str, Any], list[str | None]]:
    answer = draw(st.one_of(st.none(), REFUSAL_SENTENCE, TEXT))
    refs = draw(
        st.lists(st.one_of(st.none(), REFUSAL_FRAGMENTS, st.just("NOT_IN_DOCUMENT")), max_size=3)
    )
    record = {
        "answer": answer,
        "status": draw(st.sampled_from([None, "ok", "refused"])),
        "trace": draw(TRACE),
    }
    return record, refs


REFUSAL_SCHEMA = {
    "output": pl.Struct(
        {
            "answer": pl.String,
            "status": pl.String,
            "trace": pl.List(pl.Struct({"finish_reason": pl.String})),
        }
    ),
    "refs": pl.List(pl.String),
}


@given(st.lists(refusal_records(), min_size=1, max_size=6))
def test_chain_with_refusal_detector_agrees_with_reference(
    rows: list[tuple[dict[str, Any], list[str | None]]],
) -> None:
    frame = pl.DataFrame(
        {"output": [r for r, _ in rows], "refs": [refs for _, refs in rows]},
        schema=REFUSAL_SCHEMA,
    )
    out = frame.grade.answer_contains("output", "refs", refusal=True)
    expected = [reference.answer_contains(r, refs, refusal=True) for r, refs in rows]
    assert out.select("correct", "failure_kind", "outcome").to_dicts() == expected
