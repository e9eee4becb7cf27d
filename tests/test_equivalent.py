r"""equivalent (SPEC §9): every sentence on every frame type, the scalar reference, real keys.

Cases run on Polars eager, Polars lazy, pandas with object columns and pandas with Arrow columns
(the ``constructor`` fixture). Cases are named after the trap they guard. The symbolic cases
start Math-Verify workers once for the session (they are kept by ``_symbolic``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gradeframe as gf
from gradeframe.matchers import _symbolic
from tests import reference_equivalent as reference
from tests.utils import assert_equal_data, to_data

KEYS = Path(__file__).parent / "fixtures" / "answer_keys"


def graded(constructor: Any, actual: list[Any], expected: list[Any], **kwargs: Any) -> dict:
    frame = constructor({"actual": actual, "expected": expected})
    return to_data(frame.grade.equivalent("actual", "expected", **kwargs))


def check(constructor: Any, actual: list[Any], expected: list[Any], correct: list[bool],
          method: list[str], **kwargs: Any) -> None:  # fmt: skip
    data = graded(constructor, actual, expected, **kwargs)
    assert data["correct"] == correct, list(zip(actual, expected, data["method"], strict=True))
    assert data["method"] == method, list(zip(actual, expected, strict=True))


# --------------------------------------------------------------------------------------------
# Reading a side
# --------------------------------------------------------------------------------------------

READING_CASES = [
    pytest.param("  12  ", "12", id="white_space_trimmed"),
    pytest.param("12.", "12", id="final_period_trimmed"),
    pytest.param("$12$", "12", id="dollar_delimiters"),
    pytest.param("$$12$$", "12", id="double_dollar_delimiters"),
    pytest.param(r"\(12\)", "12", id="paren_delimiters"),
    pytest.param(r"\[12\]", "12", id="bracket_delimiters"),
    pytest.param(r"\boxed{12}", "12", id="boxed"),
    pytest.param(r"$\boxed{\frac{1}{2}}$.", "0.5", id="delimiters_then_boxed_then_period"),
    pytest.param(r"\text{12}", "12", id="text_around_the_value"),
    pytest.param(r"\mathrm{12}", "12", id="mathrm_around_the_value"),
    pytest.param(r"1\!000", "1000", id="negative_thin_space_removed"),
    pytest.param(r"1\,000", "1000", id="thin_space_command_removed"),
    pytest.param(r"1\;000", "1000", id="thick_space_command_removed"),
    pytest.param(r"5\ \text{cm}", "5", id="control_space_removed"),
    pytest.param("1~000", "1000", id="tilde_removed"),
    pytest.param("1,204", "1204", id="comma_separator"),
    pytest.param("1\u2009204", "1204", id="thin_space_separator"),
    pytest.param("1\u00a0204", "1204", id="no_break_space_separator"),
    pytest.param("9{,}500", "9500", id="latex_brace_comma_separator"),
    pytest.param("1,234,567", "1234567", id="separator_chain"),
]


@pytest.mark.parametrize(("actual", "expected"), READING_CASES)
def test_reading_removes_the_wrapping(constructor, actual, expected) -> None:
    check(constructor, [actual], [expected], [True], ["literal"], fallback=None)


LITERALS = [
    pytest.param("12", "12.000", id="integer_and_decimal"),
    pytest.param("-0.50", "-1/2", id="signed_decimal"),
    pytest.param(".5", "1/2", id="bare_decimal_part"),
    pytest.param("+3", "3", id="plus_sign"),
    pytest.param("\u22123", "-3", id="minus_sign_character"),
    pytest.param("1.5e3", "1500", id="e_notation"),
    pytest.param("1.5E-3", "0.0015", id="capital_e_notation"),
    pytest.param(r"1.5 \times 10^{3}", "1500", id="times_ten_braced"),
    pytest.param(r"1.5\cdot10^3", "1500", id="cdot_ten_unbraced"),
    pytest.param(r"10^{-2}", "0.01", id="power_of_ten"),
    pytest.param("3/4", "0.75", id="slash_fraction"),
    pytest.param(r"\frac{3}{4}", "0.75", id="frac"),
    pytest.param(r"\dfrac{3}{4}", "0.75", id="dfrac"),
    pytest.param(r"\tfrac34", "0.75", id="tfrac_unbraced"),
    pytest.param(r"\frac34", "0.75", id="frac_unbraced"),
    pytest.param(r"-\frac{1}{2}", "-0.5", id="negative_frac"),
    pytest.param(r"5\text{ cm}", "5", id="text_unit_ignored"),
    pytest.param(r"5\mbox{ cm}", "5", id="mbox_unit_ignored"),
    pytest.param(r"90^\circ", "90", id="circ_unit_ignored"),
    pytest.param(r"90^{\circ}", "90", id="braced_circ_unit_ignored"),
    pytest.param("90°", "90", id="degree_sign_ignored"),
    pytest.param(r"\$5", "5", id="escaped_dollar_before_number"),
    pytest.param("$5", "5", id="dollar_before_number"),
]


@pytest.mark.parametrize(("actual", "expected"), LITERALS)
def test_literal_forms(constructor, actual, expected) -> None:
    check(constructor, [actual, expected], [expected, actual], [True, True], ["literal"] * 2)


NOT_LITERALS = [
    pytest.param(r"1\frac{1}{2}", "3/2", id="mixed_number"),
    pytest.param(r"\sqrt{4}", "2", id="root"),
    pytest.param(r"\pi", "3.14159", id="pi"),
    pytest.param("x", "2", id="variable"),
    pytest.param("(1, 2)", "1", id="tuple"),
    pytest.param("[1, 2)", "1", id="interval"),
    pytest.param(r"\{1, 2\}", "1", id="set"),
    pytest.param(r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}", "1", id="matrix"),
    pytest.param("x = 2", "2", id="equation"),
    pytest.param("1,2345", "12345", id="separator_fold_keeps"),
    pytest.param("3 100", "3100", id="plain_space_is_no_separator"),
    pytest.param("1/0", "1", id="zero_denominator"),
]


@pytest.mark.parametrize(("actual", "expected"), NOT_LITERALS)
def test_not_literals_are_left_to_the_fallback(constructor, actual, expected) -> None:
    check(constructor, [actual], [expected], [False], ["unparsed"], fallback=None)


# --------------------------------------------------------------------------------------------
# Deciding literals
# --------------------------------------------------------------------------------------------

EXACT = [
    pytest.param("0.1", "1/10", True, id="decimals_are_exact"),
    pytest.param("0.4999999", "1/2", False, id="0.4999999_is_not_a_half"),
    pytest.param("2/4", "1/2", True, id="fractions_by_cross_multiplication"),
    pytest.param("0.30000000000000004", "0.3", False, id="no_float_noise"),
    pytest.param("0.1", "0.10000000000000001", False, id="float_equal_but_not_equal"),
    pytest.param("-0", "0", True, id="negative_zero_is_zero"),
    pytest.param("0/7", "0.0", True, id="zero_fraction_is_zero"),
    pytest.param("-1/2", "1/2", False, id="sign_counts"),
    pytest.param("1/3", "0.3333333333", False, id="thirds_are_not_decimals"),
    pytest.param("\\frac{-1}{-2}", "0.5", True, id="signs_inside_frac"),
    pytest.param("1" + "0" * 60, "1e60", True, id="long_digits_compared_exactly"),
    pytest.param("1" * 39 + "1", "1" * 39 + "2", False, id="forty_digits_differ_in_last"),
    pytest.param("123456789012345678/3", "41152263004115226", True, id="int128_cross_product"),
]


@pytest.mark.parametrize(("actual", "expected", "correct"), EXACT)
def test_exact_rationals(constructor, actual, expected, correct) -> None:
    check(constructor, [actual], [expected], [correct], ["literal"])


def test_beyond_int128_a_close_fraction_goes_to_the_fallback(constructor) -> None:
    # 39 digits over 3 against its 38-digit quotient: the products do not fit Int128 and the
    # magnitudes are alike, so the literal path leaves the pair to the fallback
    ones = "1" * 39
    quotient = str(int(ones) // 3)
    far = "1" * 45 + "/7"  # a magnitude apart: decided on the literal path
    check(
        constructor,
        [f"{ones}/3", far],
        [quotient, "2"],
        [False, False],
        ["unparsed", "literal"],
        fallback=None,
    )
    check(constructor, [f"{ones}/3"], [quotient], [True], ["symbolic"])


TOLERANCES = [
    pytest.param("0.4999999", "1/2", {"rel_tol": 1e-6}, True, id="rel_tol_admits"),
    pytest.param("0.49", "1/2", {"rel_tol": 1e-6}, False, id="rel_tol_refuses"),
    pytest.param("0.000001", "0", {"abs_tol": 1e-5}, True, id="abs_tol_admits_near_zero"),
    pytest.param("0.000001", "0", {"rel_tol": 0.5}, False, id="rel_tol_never_admits_zero"),
    pytest.param("101", "100", {"rel_tol": 0.01}, True, id="rel_tol_of_the_larger"),
]


@pytest.mark.parametrize(("actual", "expected", "kwargs", "correct"), TOLERANCES)
def test_tolerances_as_math_isclose(constructor, actual, expected, kwargs, correct) -> None:
    check(constructor, [actual], [expected], [correct], ["literal"], **kwargs)


PERCENT = [
    # (actual, expected, either, number, fraction)
    pytest.param("50%", "50", True, True, False, id="percent_and_its_number"),
    pytest.param("50\\%", "0.5", True, False, True, id="percent_and_its_fraction"),
    pytest.param("50%", "50\\%", True, True, True, id="two_percents_compare_numbers"),
    pytest.param("0.5%", "50%", False, False, False, id="two_percents_never_scaled"),
    pytest.param("0.5", "50%", True, False, True, id="percent_on_the_expected_side"),
    pytest.param("12.5\\%", "\\frac{1}{8}", True, False, True, id="percent_against_fraction"),
]


@pytest.mark.parametrize(("actual", "expected", "either", "number", "fraction"), PERCENT)
def test_percent_policies(constructor, actual, expected, either, number, fraction) -> None:
    for policy, correct in (("either", either), ("number", number), ("fraction", fraction)):
        check(constructor, [actual], [expected], [correct], ["literal"], percent=policy)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"percent": "ratio"}, ValueError, "percent"),
        ({"percent": None}, ValueError, "percent"),
        ({"fallback": "sympy"}, ValueError, "fallback"),
        ({"timeout": 0}, ValueError, "timeout"),
        ({"timeout": "5"}, TypeError, "timeout"),
        ({"rel_tol": -1}, ValueError, "rel_tol"),
        ({"abs_tol": float("nan")}, ValueError, "abs_tol"),
        ({"label": 3}, TypeError, "label"),
    ],
)
def test_bad_arguments_raise_before_any_row(constructor, kwargs, error, match) -> None:
    frame = constructor({"actual": ["1"], "expected": ["1"]})
    with pytest.raises(error, match=match):
        frame.grade.equivalent("actual", "expected", **kwargs)


# --------------------------------------------------------------------------------------------
# The fallback
# --------------------------------------------------------------------------------------------


def test_fallback_none_compares_folded_readings(constructor) -> None:
    check(
        constructor,
        [r"\text{Monday}", r"\sqrt{2}", r"$\boxed{X+1}$", r"\sqrt{2}", r"\left(1, 2\right)"],
        ["monday", r"\sqrt{3}", "x+1", r"\sqrt 2", "(1, 2)"],
        [True, False, True, False, True],
        ["text", "unparsed", "text", "unparsed", "text"],
        fallback=None,
    )


def test_symbolic_decides_non_literals(constructor) -> None:
    check(
        constructor,
        [r"\frac{\sqrt{2}}{2}", "(1,2)", r"\sqrt{3}", "0.5", r"\pi"],
        [r"\sqrt{2}/2", "(1, 2)", r"\sqrt{2}", "1/2", "3.14159"],
        [True, True, False, True, False],
        ["symbolic", "symbolic", "symbolic", "literal", "symbolic"],
    )


CODE = [
    "__import__('os').system('touch {path}')",
    "exec(\"open('{path}', 'w').write('x')\")",
    "eval(compile('open(\"{path}\", \"w\")', 'x', 'exec'))",
    "lambda: open('{path}', 'w')",
    "import os; os.system('touch {path}')",
]


@pytest.mark.parametrize("payload", CODE)
def test_model_text_is_never_run_as_code(constructor, tmp_path, payload) -> None:
    target = tmp_path / "touched"
    answer = payload.format(path=target)
    check(constructor, [answer, f"${answer}$"], ["1", "1"], [False, False], ["unparsed"] * 2)
    assert not target.exists()


def test_a_pair_that_never_returns_is_timeout_and_the_run_goes_on(constructor) -> None:
    slow = r"(9^{9^{9^{9}}})!"
    check(
        constructor,
        [slow, r"\sqrt{4}", "3"],
        ["1", "2", "3"],
        [False, True, True],
        ["timeout", "symbolic", "literal"],
        timeout=1.0,
    )


def test_the_fallback_runs_from_a_thread_that_is_not_main() -> None:
    results: list[Any] = []

    def run() -> None:
        frame = pl.DataFrame({"a": [r"\sqrt{4}", r"(9^{9^{9^{9}}})!"], "b": ["2", "1"]})
        results.append(frame.grade.equivalent("a", "b", timeout=1.0))

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=120)
    assert not thread.is_alive()
    assert_equal_data(results[0], {"correct": [True, False], "method": ["symbolic", "timeout"]})


def test_the_fallback_runs_once_per_distinct_pair() -> None:
    pairs = [(r"\sqrt{4}", "2"), (r"\sqrt{9}", "3"), (r"\sqrt{4}", "3")]
    rows = pairs * 300 + [("7", "7")] * 100
    frame = pl.DataFrame({"a": [a for a, _ in rows], "b": [b for _, b in rows]}).sample(
        fraction=1.0, shuffle=True, seed=1
    )
    before = _symbolic.CALLS
    out = frame.grade.equivalent("a", "b")
    assert _symbolic.CALLS - before == 3
    wanted = {(r"\sqrt{4}", "2"): True, (r"\sqrt{9}", "3"): True, (r"\sqrt{4}", "3"): False}
    for a, b, correct in out.select("a", "b", "correct").iter_rows():
        assert correct == wanted.get((a, b), True)


def test_literal_pairs_never_start_the_engine() -> None:
    before = _symbolic.CALLS
    pl.DataFrame({"a": ["1/2", "3"], "b": ["0.5", "4"]}).grade.equivalent("a", "b")
    assert before == _symbolic.CALLS


def test_symbolic_without_math_verify_raises_saying_what_to_install(monkeypatch) -> None:
    monkeypatch.setattr(_symbolic, "available", lambda: False)
    frame = pl.DataFrame({"a": [r"\sqrt{4}"], "b": ["2"]})
    with pytest.raises(ImportError, match=r"pip install 'gradeframe\[math\]'"):
        frame.grade.equivalent("a", "b")
    # every pair literal: the engine is never needed
    literal = pl.DataFrame({"a": ["1/2"], "b": ["0.5"]}).grade.equivalent("a", "b")
    assert literal["correct"].to_list() == [True]


def test_import_gradeframe_imports_neither_math_verify_nor_sympy() -> None:
    code = (
        "import sys, polars as pl, gradeframe as gf\n"
        "pl.DataFrame({'a': ['1/2'], 'b': ['0.5']}).grade.equivalent('a', 'b')\n"
        "print(sorted(m for m in ('math_verify', 'sympy', 'latex2sympy2_extended', 'antlr4')"
        " if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


# --------------------------------------------------------------------------------------------
# Nulls, bad expected values, dtypes, names
# --------------------------------------------------------------------------------------------


def test_null_actual_is_not_correct_and_unparsed(constructor) -> None:
    check(constructor, [None, "1"], ["1", "1"], [False, True], ["unparsed", "literal"])


@pytest.mark.parametrize("bad", [None, "  "])
def test_null_or_blank_expected_raises_naming_the_row(constructor, bad) -> None:
    frame = constructor({"actual": ["1", "2"], "expected": ["1", bad]})
    with pytest.raises(Exception, match="row 1"):
        to_data(frame.grade.equivalent("actual", "expected", fallback=None))


def test_numeric_expected_column(constructor) -> None:
    frame = constructor({"actual": ["18", "$3.50", "1,000"], "expected": [18, 3.5, 1000]})
    assert_equal_data(
        frame.grade.equivalent("actual", "expected"),
        {"correct": [True, True, True], "method": ["literal"] * 3},
    )


def test_label_prefix_and_columns(constructor) -> None:
    frame = constructor({"actual": ["1"], "expected": ["1"]})
    out = to_data(frame.grade.equivalent("actual", "expected", label="math", prefix="m_"))
    assert list(out) == ["actual", "expected", "m_correct", "m_expectation", "m_method"]
    assert out["m_expectation"] == ["math"]
    default = to_data(frame.grade.equivalent("actual", "expected"))
    assert default["expectation"] == ["equivalent"]


def test_expression_without_schema_and_with_literal_expected() -> None:
    frame = pl.DataFrame({"a": ["0.5", "1/3", None]})
    out = frame.select(gf.equivalent("a", pl.lit(r"\frac12"))).unnest("equivalent")
    assert out["correct"].to_list() == [True, False, False]
    assert out["method"].to_list() == ["literal", "literal", "unparsed"]


def test_rows_keep_their_order_and_inputs_are_untouched(constructor) -> None:
    actual = ["1/2", "x", "3", "0.25", "2/8"] * 20
    expected = ["0.5", "y", "4", "1/4", "25%"] * 20
    out = graded(constructor, actual, expected, fallback=None)
    assert out["actual"] == actual
    assert out["expected"] == expected
    assert out["correct"] == [True, False, False, True, True] * 20


# --------------------------------------------------------------------------------------------
# The peers' disagreement table (docs/equivalence.md shows it)
# --------------------------------------------------------------------------------------------

TABLE = [
    # (answer, gold, either, number, fraction)
    (r"\frac12", "0.5", True, True, True),
    (".5", "0.5", True, True, True),
    ("2/4", "0.5", True, True, True),
    ("0.50", "0.5", True, True, True),
    ("1,000", "1000", True, True, True),
    ("12.0", "12", True, True, True),
    ("50\\%", "50", True, True, False),
    ("50\\%", "0.5", True, False, True),
]


def test_disagreement_table(constructor) -> None:
    actual = [a for a, *_ in TABLE]
    expected = [b for _, b, *_ in TABLE]
    for column, policy in ((2, "either"), (3, "number"), (4, "fraction")):
        correct = [row[column] for row in TABLE]
        check(constructor, actual, expected, correct, ["literal"] * len(TABLE), percent=policy)


# --------------------------------------------------------------------------------------------
# Real answer keys: every gold is equivalent to itself
# --------------------------------------------------------------------------------------------


def _answers(name: str) -> list[str]:
    lines = (KEYS / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["answer"] for line in lines]


@pytest.mark.parametrize("name", ["math500_answers.jsonl", "gsm8k_test_answers.jsonl"])
def test_every_gold_is_equivalent_to_itself(name) -> None:
    answers = _answers(name)
    frame = pl.DataFrame({"gold": answers})
    out = frame.grade.equivalent("gold", "gold")
    assert out["correct"].all(), out.filter(~pl.col("correct"))
    assert set(out["method"]) <= {"literal", "symbolic"}
    assert frame.grade.equivalent("gold", "gold", fallback=None)["correct"].all()


def test_gsm8k_golds_are_all_literals_and_most_of_math500() -> None:
    gsm8k = pl.DataFrame({"gold": _answers("gsm8k_test_answers.jsonl")})
    assert (gsm8k.grade.equivalent("gold", "gold")["method"] == "literal").all()
    math500 = pl.DataFrame({"gold": _answers("math500_answers.jsonl")})
    share = (math500.grade.equivalent("gold", "gold", fallback=None)["method"] == "literal").mean()
    assert 0.75 < share < 0.82  # 395 of 500


# --------------------------------------------------------------------------------------------
# The literal path against a scalar Fraction reference
# --------------------------------------------------------------------------------------------

_DIGITS = st.text("0123456789", min_size=1, max_size=12)


@st.composite
def literals(draw: st.DrawFn) -> str:
    sign = draw(st.sampled_from(["", "-", "+", "\u2212"]))
    kind = draw(st.sampled_from(["int", "sep", "dec", "sci", "times", "p10", "slash", "frac"]))
    a, b = draw(_DIGITS), draw(_DIGITS)
    if kind == "int":
        body = a
    elif kind == "sep":
        groups = draw(st.lists(st.text("0123456789", min_size=3, max_size=3), min_size=1))
        sep = draw(st.sampled_from([",", "\u2009", "{,}", "\u00a0"]))
        body = a[:3] + sep + sep.join(groups[:3])
    elif kind == "dec":
        body = draw(st.sampled_from([f"{a}.{b}", f".{b}", f"{a}."]))
    elif kind == "sci":
        body = f"{a}.{b}{draw(st.sampled_from(['e', 'E']))}{draw(st.integers(-30, 30))}"
    elif kind == "times":
        body = f"{a[:4]} \\times 10^{{{draw(st.integers(-9, 9))}}}"
    elif kind == "p10":
        body = f"10^{{{draw(st.integers(-12, 12))}}}"
    elif kind == "slash":
        body = f"{a}/{b}"
    else:
        body = draw(st.sampled_from([f"\\frac{{{a}}}{{{b}}}", f"\\dfrac{{{a}}}{{{b}}}"]))
    suffix = draw(st.sampled_from(["", "", "%", "\\%", "\\text{ cm}", "^\\circ"]))
    text = sign + body + suffix
    wrap = draw(st.sampled_from(["{}", "{}", "${}$", "\\boxed{{{}}}", " {}. "]))
    return wrap.format(text)


@given(
    pairs=st.lists(st.tuples(literals(), literals()), min_size=1, max_size=25),
    percent=st.sampled_from(["either", "number", "fraction"]),
    same=st.booleans(),
)
def test_literal_path_agrees_with_fraction_reference(pairs, percent, same) -> None:
    if same:  # equal values in other spellings are the interesting case
        pairs = [(a, a.replace("\\frac", "\\dfrac").replace("{,}", ",")) for a, _ in pairs]
    frame = pl.DataFrame({"a": [a for a, _ in pairs], "b": [b for _, b in pairs]})
    out = frame.grade.equivalent("a", "b", percent=percent, fallback=None)
    for (a, b), correct, method in zip(pairs, out["correct"], out["method"], strict=True):
        want = reference.equivalent(a, b, percent=percent)
        if want is None:
            assert method in ("text", "unparsed"), (a, b, method)
        else:
            assert method == "literal", (a, b, method)
            assert correct == want, (a, b, percent)
