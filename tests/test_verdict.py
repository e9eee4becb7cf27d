"""read_verdict (SPEC §13): a table of judge texts per scheme, every surface, the reference."""

from __future__ import annotations

import pandas as pd
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gradeframe as gf
from tests import reference_verdict as ref

FW = {c: chr(ord(c) + 0xFEE0) for c in "GRADEC:YESyes"}
ZW = "\u200b"

# (text, expected verdict, score, grader_failure), with the options each table uses.
GRADE_CASES = [
    ("The answer names Paris.\nGRADE: C", "C", 1.0, None),
    ("**GRADE:** C", "C", 1.0, None),
    ("GRADE: [C]", "C", 1.0, None),
    ('GRADE: "P"', "P", 0.5, None),
    ("GRADE: (I)", "I", 0.0, None),
    ("**GRADE**: I", "I", 0.0, None),
    ("_GRADE_: C", "C", 1.0, None),
    ("`GRADE`: `C`", "C", 1.0, None),
    ("ＧＲＡＤＥ：Ｃ", "C", 1.0, None),
    (f"G{ZW}RADE: C{ZW}", "C", 1.0, None),
    ("grade: c", "C", 1.0, None),
    ("GRADE :\nC", "C", 1.0, None),
    ("GRADE: correct", "C", 1.0, None),
    ("GRADE: Partially Correct", "P", 0.5, None),
    ("GRADE: partial", "P", 0.5, None),
    ("GRADE: incorrect.", "I", 0.0, None),
    ("GRADE: C\nOn reflection, GRADE: I", "I", 0.0, None),
    ("downgrade: C", None, None, "no_verdict"),
    ("my_grade: C", None, None, "no_verdict"),
    ("GRADE: Correctly", None, None, "no_verdict"),
    ("GRADE: X", None, None, "no_verdict"),
    ("GRADES: C", None, None, "no_verdict"),
    ("The grade is C.", None, None, "no_verdict"),
    ("GRADE: CI", None, None, "not_offered"),
    ("", None, None, "empty"),
    ("  \n\t", None, None, "empty"),
    (ZW, None, None, "empty"),
    (None, None, None, "empty"),
]

YES_NO_CASES = [
    ("Yes, there is no doubt.", "yes", 1.0, None),
    ("Y\nNote: units omitted.", "yes", 1.0, None),
    ("No.", "no", 0.0, None),
    ("no!", "no", 0.0, None),
    ("Not sure", None, None, "no_verdict"),
    ("N/A", None, None, "no_verdict"),
    ("Answer: N/A", None, None, "no_verdict"),
    ("The units match.\n- Yes", "yes", 1.0, None),
    ("Reasoning: the claim holds.\nVerdict: **No**", "no", 0.0, None),
    ("Final answer: yes, it is", "yes", 1.0, None),
    ("Final verdict: N", "no", 0.0, None),
    ("Judgement: yes", "yes", 1.0, None),
    ("judgment: NO", "no", 0.0, None),
    ("ｙｅｓ", "yes", 1.0, None),
    ("[Yes]", "yes", 1.0, None),
    ("Yes\nOn second thought:\nno", "no", 0.0, None),
    ("Nobody knows", None, None, "no_verdict"),
    ("yesterday", None, None, "no_verdict"),
    ("", None, None, "empty"),
    (None, None, None, "empty"),
]

SCALE_CASES = [
    ("Clear and correct. [[4]]", "4", 4.0, None),
    ("Rating: 3", "3", 3.0, None),
    ("**Score:** ４", "4", 4.0, None),
    ("Score: [2]", "2", 2.0, None),
    ("Score: 4.5.", "4.5", 4.5, None),
    ("I give it 3 out of 5", "3", 3.0, None),
    ("4/10", "4", 4.0, None),
    ("10/10", None, None, "out_of_scale"),
    ("[[0]]", None, None, "out_of_scale"),
    ("Score: 2, then on reflection [[5]]", "5", 5.0, None),
    ("no number here", None, None, "no_verdict"),
    ("scored: 4", None, None, "no_verdict"),
    ("", None, None, "empty"),
]

JSON_CASES = [
    ('```json\n{"pass": true, "reason": "ok"}\n```', "pass", None, None),
    ('{"pass": false}', "fail", None, None),
    ('{"PASS": "No"}', "fail", None, None),
    ('{"verdict": "yes", "score": "3"}', "pass", 3.0, None),
    ('{"score": 0.7}', None, 0.7, None),
    ('{"pass": true, "score": 1}', "pass", 1.0, None),
    ('{"pass": true, "details": {"pass": false}}', "pass", None, None),
    ('{bad json} {"pass": true}', "pass", None, None),
    ('{"pass": true} then {"pass": fa', None, None, "truncated"),
    ('{"pass": true, "reason": "it is', None, None, "truncated"),
    ('{"reason": "no key"}', None, None, "no_verdict"),
    ("no object", None, None, "no_verdict"),
    ('{"pass": maybe}', None, None, "no_verdict"),
    ("", None, None, "empty"),
]

TABLES = {
    "grade": ({}, GRADE_CASES),
    "yes_no": ({"scheme": "yes_no"}, YES_NO_CASES),
    "scale": ({"scheme": "scale", "scale": (1, 5)}, SCALE_CASES),
    "json": ({"scheme": "json"}, JSON_CASES),
}

ALL_CASES = [
    pytest.param(options, case, id=f"{scheme}-{i}")
    for scheme, (options, cases) in TABLES.items()
    for i, case in enumerate(cases)
]

SURFACES = ("function", "expr", "series", "pandas")


def run(surface: str, texts: list[str | None], **options) -> list[dict]:
    """Read the texts on one surface; return the rows as dicts."""
    if surface == "function":
        frame = pl.DataFrame({"t": texts}, schema={"t": pl.String})
        return frame.select(gf.read_verdict("t", **options)).unnest("t").to_dicts()
    if surface == "expr":
        frame = pl.DataFrame({"t": texts}, schema={"t": pl.String})
        return frame.select(pl.col("t").grade.read_verdict(**options)).unnest("t").to_dicts()
    if surface == "series":
        series = pl.Series("t", texts, dtype=pl.String)
        return series.grade.read_verdict(**options).struct.unnest().to_dicts()
    index = pd.Index([f"r{i}" for i in range(len(texts))])
    result = pd.Series(texts, index=index, dtype=object).grade.read_verdict(**options)
    assert list(result.index) == list(index)
    rows = result.astype(object).where(result.notna(), None).to_dict("records")
    return [{k: (None if v is None else v) for k, v in row.items()} for row in rows]


@pytest.mark.parametrize("surface", SURFACES)
@pytest.mark.parametrize(("options", "case"), ALL_CASES)
def test_judge_text_table(surface, options, case):
    text, verdict, score, failure = case
    [row] = run(surface, [text], **options)
    assert row == {"verdict": verdict, "score": score, "grader_failure": failure}


@pytest.mark.parametrize(("options", "case"), ALL_CASES)
def test_table_agrees_with_reference(options, case):
    text, verdict, score, failure = case
    expected = {"verdict": verdict, "score": score, "grader_failure": failure}
    assert ref.read_verdict(text, **options) == expected


@pytest.mark.parametrize("surface", SURFACES)
def test_whole_column_keeps_rows_in_order(surface):
    texts = [case[0] for case in GRADE_CASES]
    rows = run(surface, texts)
    assert [r["grader_failure"] for r in rows] == [c[3] for c in GRADE_CASES]


def test_choices_leave_out_a_token_not_offered():
    rows = run("function", ["GRADE: P", "GRADE: C"], choices=("C", "I"))
    assert [r["grader_failure"] for r in rows] == ["not_offered", None]


@pytest.mark.parametrize(
    ("scheme", "text", "options"),
    [
        ("grade", "GRADE: C\nGRADE: I", {}),
        ("yes_no", "Yes\nNo", {}),
        ("scale", "[[2]] then [[4]]", {"scale": (1, 5)}),
        ("json", '{"pass": true}\n{"pass": false}', {}),
    ],
)
def test_two_markers_that_differ_conflict_only_under_fail(scheme, text, options):
    [last] = run("function", [text], scheme=scheme, **options)
    [fail] = run("function", [text], scheme=scheme, on_conflict="fail", **options)
    assert last["grader_failure"] is None
    assert fail == {"verdict": None, "score": None, "grader_failure": "conflicting"}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"scheme": "stars"}, "`scheme` must be one of 'grade', 'yes_no', 'scale', 'json'"),
        ({"scheme": "scale"}, "`scale` is required"),
        ({"scheme": "scale", "scale": (5, 1)}, "`scale` must be (low, high)"),
        ({"on_conflict": "first"}, "`on_conflict` must be one of 'last', 'fail'"),
        ({"choices": ("C", "X")}, "`choices` may hold 'C', 'P' and 'I' only"),
        ({"scheme": "yes_no", "choices": ("C",)}, "`choices` applies to scheme='grade' only"),
    ],
)
def test_bad_arguments_raise_before_any_row_is_read(options, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        gf.read_verdict("no_such_column", **options)


def test_pandas_series_returns_a_frame_with_its_index():
    series = pd.Series(["GRADE: C", None], index=[10, 3], name="judge")
    result = series.grade.read_verdict()
    assert isinstance(result, pd.DataFrame)
    assert list(result.columns) == ["verdict", "score", "grader_failure"]
    assert list(result.index) == [10, 3]


# --------------------------------------------------------------------------------------------
# hypothesis: the column code agrees with the reference
# --------------------------------------------------------------------------------------------

PIECES = {
    "grade": [
        "GRADE", "grade", "ＧＲＡＤＥ", "down", "my_", "partially", " correct", "correct", "ly",
        ":", "：", " ", "\n", "C", "P", "I", "Ｃ", "CI", "X", "*", "**", "_", "`", "[", "]", "(",
        ")", '"', ZW, "\u3000", ".", "a",
    ],
    "yes_no": [
        "Yes", "yes", "No", "no", "Y", "N", "ｙｅｓ", "Not", "/A", "Verdict", "Final answer",
        "Answer", "Note", ":", " ", "\n", "\r\n", "- ", "*", "**", "_", "[", "]", ".", "!", ",",
        ZW, "t", "-",
    ],
    "scale": [
        "[[", "]]", "Rating", "Score", "score", ":", " ", "\n", "3", "4", "10", "４", ".", "5",
        "/", "／", "out of", "x", "*", "[", "]", ZW, "_", "a",
    ],
    "json": [
        "{", "}", '"pass"', '"PASS"', '"score"', '"verdict"', '"reason"', ":", ",", " ", "\n",
        "true", "false", "null", '"yes"', '"fail"', "0.5", "3", '"3"', '"x"', '"', "[", "]",
        "```json", "```", "a",
    ],
}  # fmt: skip

OPTIONS = {
    "grade": [{}, {"choices": ("C", "I")}, {"on_conflict": "fail"}],
    "yes_no": [{}, {"on_conflict": "fail"}],
    "scale": [{"scale": (1, 5)}, {"scale": (0, 10), "on_conflict": "fail"}],
    "json": [{}, {"on_conflict": "fail"}],
}


def texts(scheme: str):
    piece = st.sampled_from(PIECES[scheme])
    return st.lists(st.lists(piece, max_size=12).map("".join) | st.none(), min_size=1, max_size=8)


@pytest.mark.parametrize("scheme", list(PIECES))
@given(data=st.data())
def test_column_code_agrees_with_the_reference(scheme, data):
    column = data.draw(texts(scheme))
    options = {"scheme": scheme, **data.draw(st.sampled_from(OPTIONS[scheme]))}
    got = run("function", column, **options)
    assert got == [ref.read_verdict(t, **options) for t in column]


@given(data=st.data())
def test_reading_a_texts_end_first_agrees_with_the_reference(data):
    """With on_conflict="last" a long text's end is read first; a tiny window exercises it."""
    from unittest.mock import patch

    from gradeframe import verdict

    column = data.draw(texts("grade"))
    window = data.draw(st.integers(min_value=1, max_value=12))
    options = data.draw(st.sampled_from([{}, {"choices": ("C", "I")}]))
    with patch.object(verdict, "GRADE_WINDOW", window):
        got = run("function", column, scheme="grade", **options)
    assert got == [ref.read_verdict(t, scheme="grade", **options) for t in column]
