"""extract_answer, extract, extract_number, extract_boxed on every frame type.

Cases come from the peers' public tests and configurations (cited per case) and from SPEC §5's
own examples. Each function runs as an expression on Polars (eager and lazy) and through the
``.grade`` accessor on pandas Series (object and Arrow strings); the Polars Series and Expr
methods are held to the function too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import hypothesis.strategies as st
import pandas as pd
import polars as pl
import pytest
import regex
from hypothesis import given

import gradeframe as gf
from tests import reference_extract
from tests.utils import assert_equal_data, make_frame, to_data

# --------------------------------------------------------------------------------------------
# Running one extraction on any frame type
# --------------------------------------------------------------------------------------------

_METHODS: dict[str, Callable[..., pl.Expr]] = {
    "extract_answer": gf.extract_answer,
    "extract": gf.extract,
    "extract_number": gf.extract_number,
    "extract_boxed": gf.extract_boxed,
}


def _extracted(frame: Any, name: str, *args: Any, **kwargs: Any) -> list[Any]:
    """Run an extraction on the ``reply`` column of a frame, the way a user of that type would."""
    if isinstance(frame, pd.DataFrame):
        series = frame["reply"]
        result = getattr(series.grade, name)(*args, **kwargs)
        assert list(result.index) == list(series.index)
        return to_data(pd.DataFrame({"out": result}))["out"]
    function = _METHODS[name]
    out = frame.select(function("reply", *args, **kwargs).alias("out"))
    values = to_data(out)["out"]
    # the namespace methods give the same values
    via_expr = frame.select(getattr(pl.col("reply").grade, name)(*args, **kwargs).alias("out"))
    assert to_data(via_expr)["out"] == values
    if isinstance(frame, pl.DataFrame):
        series = getattr(frame.get_column("reply").grade, name)(*args, **kwargs)
        assert series.name == "reply"
        assert series.to_list() == values
    return values


def _check(constructor: Any, name: str, cases: list[tuple[Any, Any]], **kwargs: Any) -> None:
    replies = [reply for reply, _ in cases]
    frame = constructor({"reply": replies})
    assert _extracted(frame, name, **kwargs) == [want for _, want in cases]


# --------------------------------------------------------------------------------------------
# extract_answer
# --------------------------------------------------------------------------------------------

ANSWER_CASES = [
    # inspect_ai tests/scorer/test_answer.py: answer("letter"), answer("word"), answer("line")
    ("ANSWER: B", "B"),
    ("ANSWER: Yes", "Yes"),
    ("ANSWER:\nThis is a whole new line", "This is a whole new line"),
    # inspect_ai tests/scorer/test_match.py (test_non_number_eol_markdown): bold around the line
    ("**ANSWER: 28 + 32 = 60**\nThis solves the problem.", "28 + 32 = 60"),
    # SPEC §5: bold around marker and value; "Final answer:" counts
    ("**Answer:** **42**", "42"),
    ("Answer: **42**.", "42."),
    ("**Answer:**\n### **42**", "42"),
    ("Answer: #42", "#42"),
    ("Reasoning...\nFinal answer: 17", "17"),
    ("## Final Answer\n\n## Answer: $5$", "$5$"),
    # issue 12: the self-corrected last answer, not the first (openai/frontier-evals#125,
    # openai/gpt-oss#254; inspect_ai#3910: a prose "Answer:" line before the final one)
    ("ANSWER: 7\nWait, I made an error.\nANSWER: 8", "8"),
    ("Answer: A\nAfter checking the reasoning, I need to correct this.\nAnswer: B", "B"),
    ("Answer: this asks which is a colour\n...\nANSWER: B", "B"),
    # inspect_ai#3024: "True answer:" inside a bullet is no marker line
    ("  - True answer: only chapter 2 remains => 1.\n\n...\n\nANSWER: A", "A"),
    # modelscope/evalscope#1597: a hedge that repeats the marker
    ("Final answer: ANSWER: D", "D"),
    # any case, white space and markdown bullets or quotes before the marker
    ("  answer : paris", "paris"),
    ("- **Answer**: Paris", "Paris"),
    ("> Answer: quoted", "quoted"),
    # the next non-empty line when the marker's line is empty
    ("Answer:\n\n   \n  Lisbon  \nmore", "Lisbon"),
    ("Windows line ends\r\nANSWER: 7\r\n", "7"),
    # v3: the fullwidth colon "：" counts as ":" (replies in Chinese and Japanese use it)
    ("Answer：42", "42"),
    ("\u63a8\u7406\u2026\nFinal Answer\uff1a 7", "7"),
    ("**Answer：** **42**", "42"),
    # not line-initial, or no colon: no answer (None, so answer_contains says parse_failure)
    ("The answer is 12.", None),
    ("My answer: 12", None),
    ("Answers: 12", None),
    ("Answer:", None),
    ("Answer:   \n\n", None),
    ("", None),
    (None, None),
]


def test_extract_answer_reads_the_last_marker_line(constructor: Any) -> None:
    _check(constructor, "extract_answer", ANSWER_CASES)


GSM8K_CASES = [
    # GSM8K's own answer format (openai/grade-school-math, train.jsonl, first item), the
    # target lm-evaluation-harness reads with lm_eval/tasks/gsm8k/gsm8k.yaml
    (
        "Natalia sold 48/2 = <<48/2=24>>24 clips in May.\nNatalia sold 48+24 = <<48+24=72>>72 "
        "clips altogether in April and May.\n#### 72",
        "72",
    ),
    ("So the total is 1,234.\n#### 1,234", "1,234"),
    ("#### -3", "-3"),
    ("### 5", None),
    ("no marker 72", None),
]


def test_extract_answer_reads_gsm8k_hashes(constructor: Any) -> None:
    _check(constructor, "extract_answer", GSM8K_CASES, marker="####")


def test_extract_answer_with_another_word_marker(constructor: Any) -> None:
    cases = [("Result: 4\nAnswer: 5", "4"), ("FINAL RESULT: 9", "9"), ("Answer: 5", None)]
    _check(constructor, "extract_answer", cases, marker="Result")


# --------------------------------------------------------------------------------------------
# extract
# --------------------------------------------------------------------------------------------

# lm-evaluation-harness lm_eval/tasks/gsm8k/gsm8k.yaml, filter "get-answer"
GSM8K_REGEX = r"#### (\-?[0-9\.\,]+)"
# lm-evaluation-harness lm_eval/tasks/gsm8k/gsm8k-cot.yaml, "strict-match" and
# "flexible-extract" (group_select: -1, the last match)
STRICT_MATCH = r"The answer is (\-?[0-9\.\,]+)."
FLEXIBLE_EXTRACT = r"(-?[$0-9.,]{2,})|(-?[0-9]+)"

COT_REPLY = (
    "Jason started with 20 lollipops. Then he had 12 after giving some to Denny. So he gave "
    "Denny 20 - 12 = 8. The answer is 8."
)


def test_extract_runs_lm_eval_gsm8k_filters(constructor: Any) -> None:
    frame = constructor({"reply": [COT_REPLY, "#### 1,234.5", "nothing here", None]})
    assert _extracted(frame, "extract", GSM8K_REGEX, which="first") == [None, "1,234.5", None, None]
    assert _extracted(frame, "extract", STRICT_MATCH, which="first") == ["8", None, None, None]
    # flexible-extract keeps the whole last match, "8." (lm-eval then ignores "." with
    # regexes_to_ignore); extract_number reads it as 8
    assert _extracted(frame, "extract", FLEXIBLE_EXTRACT, group=0) == ["8.", "1,234.5", None, None]
    assert _extracted(frame, "extract_number") == [8.0, 1234.5, None, None]


def test_extract_takes_the_group_of_the_first_or_last_match(constructor: Any) -> None:
    # inspect_ai tests/scorer/test_pattern.py: "(foo) (bar)" on "foo bar" gives foo, then bar
    frame = constructor({"reply": ["foo bar", "x = 3, then x = 5", "model doesn't match"]})
    assert _extracted(frame, "extract", r"(foo) (bar)", group=1) == ["foo", None, None]
    assert _extracted(frame, "extract", r"(foo) (bar)", group=2) == ["bar", None, None]
    assert _extracted(frame, "extract", r"x = (\d+)") == [None, "5", None]
    assert _extracted(frame, "extract", r"x = (\d+)", which="first") == [None, "3", None]
    assert _extracted(frame, "extract", r"x = \d+", group=0) == [None, "x = 5", None]


def test_extract_keeps_the_flags_of_a_compiled_pattern(constructor: Any) -> None:
    # inspect_ai tests/scorer/test_pattern.py (test_single_match_case_sensitive): "(FOO)" with
    # ignore_case matches "foo"
    frame = constructor({"reply": ["foo", "FOO", "bar"]})
    assert _extracted(frame, "extract", re.compile("(FOO)", re.IGNORECASE)) == ["foo", "FOO", None]
    assert _extracted(frame, "extract", "(FOO)") == [None, "FOO", None]


def test_extract_last_match_sees_the_text_around_it(constructor: Any) -> None:
    # assertions at a match's edge: "\B" after the last digit of "123" fails in the whole text
    frame = constructor({"reply": ["123 45", "7", "a1b2"]})
    assert _extracted(frame, "extract", r"(\d)\B") == ["4", None, "1"]
    assert _extracted(frame, "extract", r"\b(\d)") == ["4", "7", None]
    assert _extracted(frame, "extract", r"(\d)(?:[a-z]|$)") == ["5", "7", "2"]


def test_extract_fallback_for_lookaround_gives_polars_answers(constructor: Any) -> None:
    # Polars rejects lookbehind and backreferences; the regex module runs them, with "$" as the
    # very end of the text (a final newline is not skipped)
    replies = ["cost $12 then $15", "foo\n", "foo", "abab", None, ""]
    frame = constructor({"reply": replies})
    assert _extracted(frame, "extract", r"(?<=\$)(\d+)") == ["15", None, None, None, None, None]
    assert _extracted(frame, "extract", r"(?<=\$)(\d+)", which="first")[0] == "12"
    assert _extracted(frame, "extract", r"(?<=f)(o+)$") == [None, None, "oo", None, None, None]
    assert _extracted(frame, "extract", r"(o+)$") == [None, None, "oo", None, None, None]
    assert _extracted(frame, "extract", r"(?m)(?<=f)(o+)$")[1] == "oo"
    assert _extracted(frame, "extract", r"(ab)\1", group=0) == [
        None,
        None,
        None,
        "abab",
        None,
        None,
    ]


def test_extract_is_the_same_as_regex_finditer_on_polars_patterns() -> None:
    texts = ["a1 b22 c333", "foo\n", "foo", "ab ab", "123 45", None, "x", ""]
    patterns = [r"(\d+)", r"(\d)\B", r"\b(\d)", r"(o)$", r"(?m)(o)$", r"(b)?(\d)", r"(\w)(\w)?"]
    frame = pl.DataFrame({"reply": texts})
    for pattern in patterns:
        python = pattern if "(?m)" in pattern else pattern.replace("$", r"\Z")
        for which in ("first", "last"):
            for group in (0, 1):
                got = frame.select(gf.extract("reply", pattern, group=group, which=which))
                want = []
                for text in texts:
                    found = list(regex.finditer(python, text)) if text is not None else []
                    match = (found[0] if which == "first" else found[-1]) if found else None
                    want.append((match.group(group) or None) if match else None)
                assert got.to_series().to_list() == want, (pattern, which, group)


# --------------------------------------------------------------------------------------------
# extract_number
# --------------------------------------------------------------------------------------------

NUMBER_CASES = [
    # SPEC §5's examples
    ("$1,200.50", 1200.5),
    ("-12.0 °C", -12.0),
    ("45%", 45.0),
    ("1.5e3", 1500.0),
    ("1\u2009204", 1204.0),
    ("twelve", None),
    # issue 12: "$29.00" is 29
    ("The total is $29.00.", 29.0),
    # inspect_ai tests/scorer/test_match.py (match(numeric=True))
    ("28 + 32 = 60\nThis solves the problem.", 60.0),
    ("28 + 32 = 60%", 60.0),
    ("the result is -5 exactly", -5.0),
    ("pi is approximately 33.14", 33.14),
    ("result: -5.0", -5.0),
    ("answer: \u22125", -5.0),  # U+2212 MINUS SIGN
    ("\u20135 °C", -5.0),  # an en dash before digits is a minus too (fold makes it "-")
    ("The answer is (42).", 42.0),
    ("The answer is [42]", 42.0),
    ("The answer is 42!", 42.0),
    # peers' issue threads: EleutherAI/lm-evaluation-harness#3214 ("$29.00" from
    # flexible-extract is not 29), jundot/omlx#3484 and stanford-crfm/helm#4337 (a comma after
    # the last number was read as the number), open-compass/opencompass#2647 (LaTeX's "{,}")
    ("...the total cost of Rory's delivery order is $29.00.", 29.0),
    ("The total is 72 clips, altogether.", 72.0),
    ("The answer is 72, in total, so the farmer earns that much.", 72.0),
    (r"The answer is $9{,}500.", 9500.0),
    (r"9\,500 m", 9500.0),
    # the range dash and the hyphen of SPEC §2
    ("12-15", 15.0),
    ("COVID-19", 19.0),
    ("x = -12", -12.0),
    ("5 - 3", 3.0),  # a "-" apart from the digits is no sign
    # choices where SPEC is silent (docs/extraction.md)
    ("1,2", 2.0),
    ("1,234,567 and 1,2345", 2345.0),
    ("-$5", -5.0),
    ("version 1.2.3", None),
    # inspect_ai tests/scorer/test_match.py (test_numeric_fullwidth_digits_in_output): any
    # Unicode decimal digit is a digit, as in answer_contains
    ("the answer is \uff11\uff12\uff13", 123.0),
    ("\u0663 apples and x = \u2212\u0663.\u0665", -3.5),  # Arabic-Indic digits
    ("the result is \u00bd", None),  # a vulgar fraction is no decimal digit
    ("It was 12.", 12.0),
    (".5", 0.5),
    ("1E3", 1000.0),
    ("", None),
    (None, None),
]


def test_extract_number_reads_the_last_number(constructor: Any) -> None:
    _check(constructor, "extract_number", NUMBER_CASES)


def test_extract_number_reads_the_result_of_an_answer_line(constructor: Any) -> None:
    # antirez/ds4#319: an answer line that shows its arithmetic was graded by its first summand
    frame = constructor({"reply": ["Answer: m+n = 256+37 = 293", "Final answer: 082"]})
    staged = _with_column(frame, "reply", lambda: gf.extract_answer("reply"), "extract_answer")
    assert _extracted(staged, "extract_number") == [293.0, 82.0]


def test_extract_number_reads_a_boxed_number_with_separators(constructor: Any) -> None:
    # open-compass/opencompass#2647: "\boxed{8,000}" was read as 000, "\boxed{$9{,}500}" as 500
    frame = constructor({"reply": [r"\boxed{8,000}", r"\boxed{$9{,}500}", r"\boxed{10,000}"]})
    staged = _with_column(frame, "reply", lambda: gf.extract_boxed("reply"), "extract_boxed")
    assert _extracted(staged, "extract_number") == [8000.0, 9500.0, 10000.0]


def test_extract_number_first_reads_a_range_start(constructor: Any) -> None:
    cases = [("12-15", 12.0), ("COVID-19 cases: 5", 19.0), ("from -3 to 4", -3.0), ("none", None)]
    _check(constructor, "extract_number", cases, which="first")


def test_extract_number_matches_the_scalar_reference_on_peer_cases() -> None:
    texts = [text for text, _ in NUMBER_CASES]
    got = pl.Series("reply", texts).grade.extract_number().to_list()
    assert got == [reference_extract.extract_number(t) for t in texts]


SIGNS = st.sampled_from(["", "-", "\u2212", "+", "\u2013"])
CURRENCIES = st.sampled_from(["", "$", "€", "£"])
SEPARATORS = st.sampled_from(["", ",", "\u2009", "\u00a0", "\u202f", " "])
SUFFIXES = st.sampled_from(["", "%", " °C", "kg", " km", ".", "th", ")", "!"])
CONTEXT = st.sampled_from(["", " ", "x", "about ", "(", "a-", "12-", "=", "v", "1."])
JOINERS = st.sampled_from([" ", ", ", " and ", "-", "/", "\n", " to ", ""])


@st.composite
def written_numbers(draw: st.DrawFn) -> str:
    """A number written in one of many styles, with some context around it."""
    integer = draw(st.integers(min_value=0, max_value=10**9))
    separator = draw(SEPARATORS)
    digits = f"{integer:,}".replace(",", separator) if separator else str(integer)
    decimal = draw(st.sampled_from(["", ".5", ".05", ".125", ".0", "."]))
    exponent = draw(st.sampled_from(["", "", "", "e3", "E-2", "e+5", "e"]))
    sign, currency = draw(SIGNS), draw(CURRENCIES)
    body = sign + currency + digits + decimal + exponent
    if draw(st.booleans()):
        body = currency + sign + digits + decimal + exponent
    return draw(CONTEXT) + body + draw(SUFFIXES)


@given(st.lists(st.tuples(written_numbers(), JOINERS), min_size=1, max_size=4))
def test_extract_number_matches_the_scalar_reference(parts: list[tuple[str, str]]) -> None:
    text = "".join(number + joiner for number, joiner in parts)
    series = pl.Series("reply", [text, text.upper(), "Answer: " + text])
    for which in ("first", "last"):
        got = series.grade.extract_number(which=which).to_list()
        want = [reference_extract.extract_number(t, which) for t in series.to_list()]
        assert got == want, (series.to_list(), which)


ANY_TEXT = "0123456789.,-\u2212eE $%ax(\u2009\u00a0\u2013\n\u0663\uff11{}\\"


@given(st.lists(st.text(alphabet=ANY_TEXT, max_size=30)))
def test_extract_number_matches_the_reference_on_any_text(texts: list[str]) -> None:
    series = pl.Series("reply", texts, dtype=pl.String)
    for which in ("first", "last"):
        got = series.grade.extract_number(which=which).to_list()
        assert got == [reference_extract.extract_number(t, which) for t in texts]


# --------------------------------------------------------------------------------------------
# extract_boxed
# --------------------------------------------------------------------------------------------

BOXED_CASES = [
    # MATH (hendrycks/math, modeling/math_equivalence.py; lm-evaluation-harness
    # lm_eval/tasks/minerva_math/utils.py): last_boxed_only_string takes the last \boxed
    # with braces balanced, else \fbox, and "\boxed 5" up to the next "$"
    (r"The answer is $\boxed{\frac{1}{2}}$.", r"\frac{1}{2}"),
    (r"First \boxed{3}, then corrected: \boxed{4}", "4"),
    (r"So $x = \fbox{7}$", "7"),
    (r"Thus the answer is $\boxed 5$.", "5"),
    (r"\boxed{\begin{pmatrix} 1 \\ 2 \end{pmatrix}}", r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}"),
    (r"\boxed{x^{2^{3^{4}}}}", "x^{2^{3^{4}}}"),
    (r"\boxed{ 12 }", "12"),
    # no complete box: None (an unclosed last box leaves the earlier complete one)
    (r"\boxed{1} and \boxed{2", "1"),
    (r"\boxed{", None),
    (r"\boxed{}", None),
    # v3: \fbox only in a text without \boxed; escaped braces are text, not nesting
    (r"\boxed{4}, then \fbox{3}", "4"),
    (r"\fbox{2} and an unclosed \boxed{3", None),
    (r"\boxed{\{1, 2\}}", r"\{1, 2\}"),
    (r"\boxed{\}}", r"\}"),
    (r"\boxed{\left\{ x \right\}}", r"\left\{ x \right\}"),
    (r"So $\boxed 12$ apples", "12"),
    (r"\boxed{ }", None),
    ("no box at all", None),
    (None, None),
]


def test_extract_boxed_keeps_nested_braces(constructor: Any) -> None:
    _check(constructor, "extract_boxed", BOXED_CASES)


def test_extract_boxed_reads_up_to_its_documented_depth() -> None:
    def nested(depth: int) -> str:
        return "{" * depth + "x" + "}" * depth

    series = pl.Series("reply", [rf"\boxed{{{nested(8)}}}", rf"\boxed{{{nested(9)}}}"])
    assert series.grade.extract_boxed().to_list() == [nested(8), None]


# --------------------------------------------------------------------------------------------
# Arguments are checked when the expression is built
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: gf.extract_number("r", which="middle"), ValueError, "`which`"),
        (lambda: gf.extract("r", r"(\d)", which="all"), ValueError, "`which`"),
        (lambda: gf.extract("r", r"(\d)", group=2), ValueError, "`group` is 2"),
        (lambda: gf.extract("r", r"(\d)", group=-1), ValueError, "`group`"),
        (lambda: gf.extract("r", r"(\d)", group=True), ValueError, "`group`"),
        (lambda: gf.extract("r", r"(?<=a)(\d)", group=2), ValueError, "`group` is 2"),
        (lambda: gf.extract("r", "(unclosed"), ValueError, "`pattern`"),
        (lambda: gf.extract("r", 12), TypeError, "`pattern`"),
        (lambda: gf.extract_answer("r", marker=""), ValueError, "`marker`"),
        (lambda: gf.extract_answer("r", marker="a\nb"), ValueError, "`marker`"),
        (lambda: gf.extract_answer("r", marker=None), TypeError, "`marker`"),
        (lambda: gf.extract_boxed(3), TypeError, "`expr`"),
    ],
)
def test_bad_arguments_raise_when_the_expression_is_built(
    call: Callable[[], Any], error: type[Exception], words: str
) -> None:
    with pytest.raises(error, match=re.escape(words)):
        call()


# --------------------------------------------------------------------------------------------
# Composition with the scorers
# --------------------------------------------------------------------------------------------


def _with_column(frame: Any, name: str, make: Callable[[], pl.Expr], method: str) -> Any:
    if isinstance(frame, pd.DataFrame):
        return frame.assign(**{name: getattr(frame["reply"].grade, method)()})
    return frame.with_columns(make().alias(name))


def test_no_marker_is_a_parse_failure_in_answer_contains(constructor: Any) -> None:
    frame = constructor(
        {
            "reply": ["Thinking...\nANSWER: Paris", "I think it is Paris.", "ANSWER: Rome", None],
            "refs": ["Paris", "Paris", "Paris", "Paris"],
        }
    )
    staged = _with_column(frame, "final", lambda: gf.extract_answer("reply"), "extract_answer")
    result = staged.grade.answer_contains("final", "refs")
    assert_equal_data(
        result,
        {
            "final": ["Paris", None, "Rome", None],
            "correct": [True, False, False, False],
            "failure_kind": [None, "parse_failure", "wrong", "parse_failure"],
        },
    )


def test_extract_number_composes_with_within(constructor: Any) -> None:
    frame = constructor(
        {
            "reply": ["It costs $29.00.", "About 1,010 units", "I cannot tell", "-12 °C"],
            "truth": [29.0, 1000.0, 5.0, -12.0],
        }
    )
    result = frame.grade.within(gf.extract_number("reply"), "truth", percent=1)
    assert_equal_data(
        result,
        {"correct": [True, True, False, True], "difference": [0.0, 10.0, None, 0.0]},
    )


def test_extract_on_categorical_and_numbers_reads_their_text() -> None:
    frame = pl.DataFrame({"reply": ["Answer: 4", None]}, schema={"reply": pl.Categorical})
    assert frame.select(gf.extract_answer("reply")).to_series().to_list() == ["4", None]
    numbers = make_frame("polars_eager", {"reply": [12, None]})
    assert numbers.select(gf.extract_number("reply")).to_series().to_list() == [12.0, None]
