"""is_refusal and answer_contains(refusal=...): a reply that opens by refusing the request.

Precision first: every must-not-fire sentence stays silent (a wrong answer called a refusal hides
behind the wrong reason). The detector is held to the scalar reference by hypothesis in
tests/test_properties.py; here are the tables and the chain, on every frame type.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import polars as pl
import pytest

import gradeframe as gf
from tests import reference
from tests.utils import to_data

MUST_FIRE = [
    "I'm sorry, but I can't help with that.",
    "I\u2019m sorry, but I can\u2019t help with that.",
    "I cannot assist with that request.",
    "I won't provide instructions for that.",
    "As an AI language model, I cannot provide medical advice.",
    "I'm unable to comply.",
    "I'm unable to comply with this request.",
    "Sorry, I can't do that.",
    "Sorry, I can't help with that.",
    "I apologize, but I cannot fulfill this request.",
    "I apologise, but I cannot fulfil this request.",
    "I will not help with that.",
    "I am not able to answer that question.",
    "I'm not able to provide that information.",
    "Unfortunately, I cannot assist with that.",
    "I cannot and will not provide that.",
    "I'm afraid I can't do that.",
    "I can't comply with this request.",
    "I'm not going to help with that.",
    "I must decline.",
    "I must respectfully decline this request.",
    "I refuse to answer that.",
    "That's not something I can help with.",
    "I'm sorry, but that's not something I can help with.",
    "I can't answer that.",
    "I can\u2019t assist with that.",
    "Sorry, but I can't engage in that.",
    "I cannot support that.",
    "I won't be able to help with this.",
    "I'm sorry, but as an AI language model, I cannot do that.",
    "As an AI, I can't provide legal advice.",
    "I'm really sorry, but I cannot help with this. It's against my guidelines.",
    "I can't help with that. Is there anything else I can help you with?",
    "I cannot assist with that request. If you have other questions, feel free to ask.",
    "We can't help with that.",
    "I can't.",
    "Sorry, I won't.",
    "I don't feel comfortable providing that information.",
    "I can't help with that, but I can suggest talking to a lawyer.",
    "I cannot provide that. However, I can help you with other questions.",
    "I\u2019m unable to help with that.",
    "I cannot in good conscience provide that.",
    "No, I can't help with that.",
    "I can't help.",
    "I'm sorry, I can't provide that.",
    "  I'M SORRY, BUT I CAN'T HELP WITH THAT.  ",
    "**I'm sorry, but I can't help with that.**",
    "_I cannot assist with that._",
    # any usual opening, whatever punctuation joins its parts
    "Apologies, but I can't help with that.",
    "My apologies; I can't help with that.",
    "I'm sorry \u2014 I can't help with that.",
    "I'm sorry\u2014I can't help with that.",
    "I'm sorry \u2013 I can't help with that.",
    "I'm sorry - I can't help with that.",
    "I'm sorry; I can't help with that.",
    "Sorry: I can't help with that.",
    "I regret that I cannot help with that.",
    "We regret to inform you that we cannot provide that.",
    "I will not be helping with this.",
    "I won't be providing that information.",
    "As an AI language model, I can't browse the internet.",
    "I can not help with that.",
    "I am unable to help with that.",
    "I am not able to help with that.",
    # what follows is an apology, an offer of other help or a reason, not an answer
    "I can't help with that. Sorry!",
    "I can't help with that. Feel free to ask another question.",
    "I won't provide that. It could cause harm.",
    "I cannot help with that; thanks for understanding.",
]

MUST_NOT_FIRE = [
    "I'm sorry to hear that.",
    "This is not legal advice.",
    "As an AI engineer, I build systems.",
    "It is not appropriate to restart; the answer is 45.",
    'He said "I can\'t help with that."',
    '"I can\'t help with that," she said.',
    "\u201cI can\u2019t help with that,\u201d she said.",
    "",
    "   ",
    "I can't be certain, but the answer is 45.",
    "I cannot browse the web, but based on the text the revenue was 12 million.",
    "I can't help with that, but the answer is 45.",
    "I cannot provide an exact figure, but it's about a dozen.",
    "I can't help but think it is 45.",
    "I can't help but wonder.",
    "I cannot answer this question based on the provided text.",
    "I cannot provide financial advice. However, the stock closed at 45.",
    "I can't help with that. The capital of France is Paris.",
    "The model said: I cannot assist with that.",
    "Paris.",
    "45",
    "I can't believe it's 45!",
    "I can see the answer is 12.",
    "I'm sorry, the answer is 12.",
    "Sorry for the delay: it is 45.",
    "I cannot stress enough that the answer is Paris.",
    "Unfortunately, the document does not mention it.",
    "I won't give up: the answer is 7.",
    "As an AI model trained on text, the answer is 45.",
    "I cannot be sure; the answer is 45.",
    "I cannot answer with certainty, but the answer is likely Paris.",
    "I could not find this in the document.",
    "I can't provide more detail, but the revenue was 12 million.",
    "Note: I cannot verify this. The population is 45,000.",
    "I cannot provide that; the answer is 45.",
    "I would not help him; he was rude.",
    "NOT_IN_DOCUMENT",
    "> I can't help with that.",
    "- I can't help with that, said the clerk; the office opens at 9.",
    # an answer after the refusal, in a sentence of its own
    "I can't help with that. Paris.",
    "I won't provide that. Paris, probably.",
    "I'm sorry \u2014 I can't help with that. 1889.",
    "I regret that I cannot help with that; Lyon.",
    "As an AI language model, I can't browse the internet. Paris is the capital.",
]


@pytest.mark.parametrize("text", MUST_FIRE)
def test_refusal_fires(text: str) -> None:
    assert pl.Series([text]).grade.is_refusal().to_list() == [True]
    assert reference.is_refusal(reference.fold(text)) is True


@pytest.mark.parametrize("text", MUST_NOT_FIRE)
def test_refusal_stays_silent(text: str) -> None:
    assert pl.Series([text]).grade.is_refusal().to_list() == [False]
    assert reference.is_refusal(reference.fold(text)) is False


def test_is_refusal_on_every_surface() -> None:
    texts = [MUST_FIRE[0], MUST_NOT_FIRE[0], None]
    frame = pl.DataFrame({"a": texts})
    expected = [True, False, None]
    assert frame.select(gf.is_refusal("a")).to_series().to_list() == expected
    assert frame.select(pl.col("a").grade.is_refusal()).to_series().to_list() == expected
    assert frame["a"].grade.is_refusal().to_list() == expected
    out = pd.Series(texts, index=["x", "y", "z"], name="reply").grade.is_refusal()
    assert out.tolist()[:2] == [True, False]
    assert pd.isna(out.iloc[2])
    assert list(out.index) == ["x", "y", "z"]
    assert out.name == "reply"


def test_is_refusal_keeps_the_column_name() -> None:
    frame = pl.DataFrame({"reply": ["I can't help with that."]})
    assert frame.select(gf.is_refusal("reply")).columns == ["reply"]


def test_is_refusal_phrases_replace_the_defaults() -> None:
    frame = pl.DataFrame({"a": ["Nope, not doing that.", "I can't help with that."]})
    got = frame.select(gf.is_refusal("a", phrases=[r"^nope"])).to_series().to_list()
    assert got == [True, False]


# --------------------------------------------------------------------------------------------
# answer_contains(refusal=...)
# --------------------------------------------------------------------------------------------

REPLIES = {
    "answer": [
        "I'm sorry, but I can't help with that.",  # refusal in words
        "I'm sorry, but I can't help with that. Paris.",  # the acceptable answer is found
        "I can't help with that, but it is Lyon.",  # refuses, then answers (wrongly)
        "I'm sorry to hear that.",  # no refusal
        "",  # empty: parse_failure, not refusal
        "I'm sorry, but I can't help with that.",  # unanswerable item, refused
        "I cannot answer this from the provided text.",  # unanswerable item, a not-found report
    ],
    "refs": ["Paris", "Paris", "Paris", "Paris", "Paris", "NOT_IN_DOCUMENT", "NOT_IN_DOCUMENT"],
}


def test_refusal_none_keeps_the_old_verdicts(constructor: Any) -> None:
    out = to_data(constructor(REPLIES).grade.answer_contains())
    assert out["failure_kind"] == [
        "wrong",
        None,
        "wrong",
        "wrong",
        "parse_failure",
        "wrong",
        None,
    ]


def test_refusal_true_makes_a_refusal_in_words_a_refusal(constructor: Any) -> None:
    out = to_data(constructor(REPLIES).grade.answer_contains(refusal=True))
    assert out["correct"] == [False, True, False, False, False, False, True]
    assert out["failure_kind"] == [
        "refusal",
        None,  # found: right whatever the detector says
        "wrong",  # it answered
        "wrong",
        "parse_failure",  # an empty reply is no refusal
        "refusal",
        None,  # "cannot answer this from the text" is the not-found detector's
    ]


def test_refusal_column_is_the_users_judgement(constructor: Any) -> None:
    data = {
        "answer": ["Nope.", "Nope. Paris.", "Lyon", "Nope."],
        "refs": ["Paris", "Paris", "Paris", "NOT_IN_DOCUMENT"],
        "judge": [True, True, None, True],
    }
    out = to_data(constructor(data).grade.answer_contains(refusal="judge"))
    assert out["failure_kind"] == ["refusal", None, "wrong", "refusal"]


def test_refusal_expression_is_the_users_judgement() -> None:
    frame = pl.DataFrame({"answer": ["Nope.", "Lyon"], "refs": ["Paris", "Paris"]})
    out = frame.grade.answer_contains(refusal=pl.col("answer").str.starts_with("Nope"))
    assert out["failure_kind"].to_list() == ["refusal", "wrong"]
    lazy = frame.lazy().grade.answer_contains(refusal=pl.col("answer") == "Nope.").collect()
    assert lazy["failure_kind"].to_list() == ["refusal", "wrong"]


def test_refusal_phrases_replace_the_defaults(constructor: Any) -> None:
    data = {
        "answer": ["Nope, not doing that.", "I'm sorry, but I can't help with that."],
        "refs": ["Paris", "Paris"],
    }
    out = to_data(constructor(data).grade.answer_contains(refusal=[r"^nope"]))
    assert out["failure_kind"] == ["refusal", "wrong"]


def test_refusal_in_the_expression_form() -> None:
    frame = pl.DataFrame(REPLIES)
    deferred = frame.select(gf.answer_contains("answer", "refs", refusal=True))
    with_schema = frame.select(
        gf.answer_contains("answer", "refs", refusal=True, schema=frame.schema)
    )
    method = frame.grade.answer_contains(refusal=True)
    for out in (deferred, with_schema):
        kinds = out.unnest("answer_contains")["failure_kind"].to_list()
        assert kinds == method["failure_kind"].to_list()
    column = frame.with_columns(judge=pl.lit(value=True))
    judged = column.select(gf.answer_contains("answer", "refs", refusal="judge"))
    assert judged.unnest("answer_contains")["failure_kind"][0] == "refusal"


def test_a_trace_refusal_still_counts_with_the_detector_on() -> None:
    frame = pl.DataFrame({"answer": ["Lyon"], "refs": ["Paris"], "status": ["refused"]})
    out = frame.grade.answer_contains(status="status", refusal=True)
    assert out["failure_kind"].to_list() == ["refusal"]


@pytest.mark.parametrize(
    ("refusal", "error", "match"),
    [
        (["ok", "(unclosed"], ValueError, r"phrases\[1\].*\(unclosed"),
        (["(?<=x)y"], ValueError, r"Lookaround"),
        ([""], ValueError, r"blank"),
        ([12], TypeError, r"phrases\[0\]"),
        ("missing", Exception, r"missing"),
        ("answer", TypeError, r"refusal.*Boolean"),
        (12, TypeError, r"`refusal` must be"),
    ],
    ids=[
        "unclosed_group",
        "lookbehind",
        "blank",
        "not_a_string",
        "missing_column",
        "text_column_is_not_a_judgement",
        "a_number",
    ],
)
def test_bad_refusal_argument_is_named(refusal: Any, error: type, match: str) -> None:
    frame = pl.DataFrame({"answer": ["x"], "refs": ["1"]})
    with pytest.raises(error, match=match):
        frame.grade.answer_contains(refusal=refusal)
