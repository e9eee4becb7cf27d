r"""equivalent (SPEC §9): every sentence on every frame type, the scalar reference, real keys.

Cases run on Polars eager, Polars lazy, pandas with object columns and pandas with Arrow columns
(the ``constructor`` fixture). Cases are named after the trap they guard. The symbolic cases
start Math-Verify workers once for the session (they are kept by ``_symbolic``).
"""

from __future__ import annotations

import json
import os
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


BIG = [
    pytest.param("0." + "3" * 40, r"\frac13", False, id="forty_threes_are_not_a_third"),
    pytest.param("1e-37", r"\frac{1}{1" + "0" * 37 + "}", True, id="1e-37_is_one_over_ten_to_37"),
    pytest.param("1" * 39 + "/2", str(int("1" * 39) // 2) + ".5", True, id="39_digits_halved"),
    pytest.param(
        "1e40", r"\frac{1" + "0" * 80 + "}{1" + "0" * 40 + "}", True, id="1e40_as_80_over_40"
    ),
    pytest.param("1" * 39 + "/3", str(int("1" * 39) // 3), True, id="39_digits_over_3"),
    pytest.param("1" * 39 + "/3", str(int("1" * 39) // 3 + 1), False, id="39_digits_over_3_off"),
    pytest.param("1e-37", r"\frac{1}{1" + "0" * 36 + "}", False, id="one_power_of_ten_apart"),
    pytest.param("1e999999999", "1e999999999", True, id="huge_exponents_equal"),
    pytest.param("1e999999999", "1e999999998", False, id="huge_exponents_differ"),
]


@pytest.mark.parametrize(("actual", "expected", "correct"), BIG)
@pytest.mark.parametrize("fallback", ["symbolic", None])
def test_beyond_int128_literals_stay_exact_and_literal(constructor, actual, expected, correct,
                                                       fallback) -> None:  # fmt: skip
    before = _symbolic.CALLS
    check(constructor, [actual], [expected], [correct], ["literal"], fallback=fallback)
    assert before == _symbolic.CALLS  # a literal pair never reaches the engine


TOLERANCES = [
    pytest.param("0.4999999", "1/2", {"rel_tol": 1e-6}, True, id="rel_tol_admits"),
    pytest.param("0.49", "1/2", {"rel_tol": 1e-6}, False, id="rel_tol_refuses"),
    pytest.param("0.000001", "0", {"abs_tol": 1e-5}, True, id="abs_tol_admits_near_zero"),
    pytest.param("0.000001", "0", {"rel_tol": 0.5}, False, id="rel_tol_never_admits_zero"),
    pytest.param("101", "100", {"rel_tol": 0.01}, True, id="rel_tol_of_the_larger"),
    pytest.param("1.3", "1", {"abs_tol": 0.3}, True, id="abs_tol_as_written_not_its_binary"),
    pytest.param(
        "0.1000000000000000000001", "0.1", {"abs_tol": 1e-30}, False, id="tolerance_on_exact_values"
    ),
    pytest.param("0.1000000000000000000001", "0.1", {"abs_tol": 1e-21}, True, id="exact_admits"),
    pytest.param("1e-400", "0", {"abs_tol": 1e-300}, True, id="below_float_range_admitted"),
    pytest.param("1e400", "1.0000001e400", {"rel_tol": 1e-6}, True, id="above_float_range"),
    pytest.param("1e999999999", "0", {"rel_tol": 0.5}, False, id="huge_exponent_with_tolerance"),
    pytest.param(
        "0%",
        "1%",
        {"abs_tol": 0.3, "percent": "fraction"},
        False,
        id="two_percents_keep_their_gap_under_fraction",
    ),
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


DECIMAL_AGAINST_NON_LITERAL = [
    pytest.param("1.414214", r"\sqrt{2}", False, id="rounded_root_is_not_the_root"),
    pytest.param("0.33333333", r"\frac{1}{\sqrt{9}}", False, id="no_six_decimal_rounding"),
    pytest.param("0.5", r"\frac{\sqrt{4}}{4}", True, id="exactly_equal_decimal"),
    pytest.param("1e-2", r"\frac{1}{\sqrt{10^4}}", True, id="exponent_is_a_decimal_too"),
    pytest.param("2", r"\sqrt{4}", True, id="an_integer_stays_with_the_engine"),
    pytest.param(r"\sqrt{2}", "1.414214", False, id="decimal_on_the_expected_side"),
]


@pytest.mark.parametrize(("actual", "expected", "correct"), DECIMAL_AGAINST_NON_LITERAL)
def test_a_decimal_against_a_non_literal_is_exact(constructor, actual, expected,
                                                  correct) -> None:  # fmt: skip
    check(constructor, [actual], [expected], [correct], ["symbolic"])


DECIMAL_TOLERANCE = [
    pytest.param("1.414214", r"\sqrt{2}", {"abs_tol": 1e-6}, True, id="within_abs_tol"),
    pytest.param("1.414214", r"\sqrt{2}", {"abs_tol": 1e-7}, False, id="outside_abs_tol"),
    pytest.param("3.1416", r"\pi", {"rel_tol": 1e-5}, True, id="within_rel_tol"),
    pytest.param("3.1416", r"x+1", {"rel_tol": 1e-5}, False, id="not_a_number"),
    pytest.param("50%", r"\frac{\sqrt{4}}{4}", {"abs_tol": 1e-9}, True, id="percent_as_fraction"),
]


@pytest.mark.parametrize(("actual", "expected", "kwargs", "correct"), DECIMAL_TOLERANCE)
def test_a_decimal_against_a_non_literal_with_a_tolerance_is_numeric(
    constructor, actual, expected, kwargs, correct
) -> None:
    check(constructor, [actual], [expected], [correct], ["symbolic"], **kwargs)


#: Identities SymPy proves while Math-Verify's guard-free run evaluates its own code (units,
#: simplify): the protection against model text must not refuse it.
IDENTITIES = [
    ("(x+1)^2", "x^2+2x+1"),
    (r"\sin^2 x+\cos^2 x", "1"),
    (r"\sec^2(y)", r"\tan^2(y)+1"),
    ("(a+b)(a-b)", "a^2-b^2"),
    (r"\frac{x^2-1}{x-1}", "x+1"),
    (r"2\sin x\cos x", r"\sin 2x"),
    (r"\cos^2 x-\sin^2 x", r"\cos 2x"),
    (r"e^{\ln 5}", "5"),
    (r"\log_2 8", "3"),
    (r"\sqrt{8}", r"2\sqrt{2}"),
    (r"\frac{1}{\sqrt2}", r"\frac{\sqrt2}{2}"),
    ("x^3-1", "(x-1)(x^2+x+1)"),
    (r"\binom{5}{2}", "10"),
    ("(x-2)^3", "x^3-6x^2+12x-8"),
]


def test_sympy_identities_are_equivalent(constructor) -> None:
    actual = [a for a, _ in IDENTITIES] + [b for _, b in IDENTITIES]
    expected = [b for _, b in IDENTITIES] + [a for a, _ in IDENTITIES]
    check(constructor, actual, expected, [True] * len(actual), ["symbolic"] * len(actual))


COMMAS = [
    pytest.param(r"\{1,234\}", r"\{234, 1\}", True, id="a_set_of_two_numbers"),
    pytest.param("(1,234)", "1234", False, id="a_pair_is_not_a_number"),
    pytest.param(r"(2,12) \cup (12,102)", r"(12,102)\cup(2,12)", True, id="interval_union"),
    pytest.param(r"(2,12) \cup (12,102)", "(2,102)", False, id="union_misses_a_point"),
    pytest.param("(1,2,3)", "(3,2,1)", False, id="tuple_order_counts"),
    pytest.param(r"\left(1, 2\right)", "(1,2)", True, id="left_right_removed"),
]


@pytest.mark.parametrize(("actual", "expected", "correct"), COMMAS)
def test_commas_reach_the_engine(constructor, actual, expected, correct) -> None:
    check(constructor, [actual], [expected], [correct], ["symbolic"])


def test_a_pair_the_engine_cannot_read_is_unparsed_not_false(constructor) -> None:
    check(
        constructor,
        [r"\frac{", "x", r"\begin{unknown}"],
        ["x", r"\sqrt{", "2"],
        [False, False, False],
        ["unparsed", "unparsed", "unparsed"],
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


def test_symbolic_without_math_verify_raises_saying_what_to_install(
    constructor, monkeypatch
) -> None:
    monkeypatch.setattr(_symbolic, "available", lambda: False)
    frame = constructor({"a": [r"\sqrt{4}"], "b": ["2"]})
    with pytest.raises(ImportError, match=r"pip install 'gradeframe\[math\]'") as error:
        to_data(frame.grade.equivalent("a", "b"))
    if not isinstance(frame, pl.LazyFrame):  # a LazyFrame raises inside Polars' collect
        assert len(str(error.value).splitlines()) <= 2, str(error.value)
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


def test_a_list_of_expected_answers_is_correct_when_any_item_is(constructor) -> None:
    frame = constructor(
        {
            "actual": ["0.5", "x+1", "7", "2"],
            "expected": [["1/3", r"\frac12"], ["1+x", "y"], ["8", "9"], ["  ", r"\sqrt{4}"]],
        }
    )
    assert_equal_data(
        frame.grade.equivalent("actual", "expected"),
        {
            "correct": [True, True, False, True],
            # the deciding item's method, else the last item's
            "method": ["literal", "symbolic", "literal", "symbolic"],
        },
    )


@pytest.mark.parametrize("bad", [[], ["", " "]])
def test_a_list_with_no_expected_answer_raises_naming_the_row(constructor, bad) -> None:
    frame = constructor({"actual": ["1", "2"], "expected": [["1"], bad]})
    with pytest.raises(Exception, match="row 1"):
        to_data(frame.grade.equivalent("actual", "expected"))


# --------------------------------------------------------------------------------------------
# The engine's verdict is Math-Verify's own (on pairs that are not code)
# --------------------------------------------------------------------------------------------


def _rewrites(text: str) -> list[str]:
    """Spellings of the same answer: delimiters, a box, \\dfrac, spaces, no \\left/\\right."""
    return [
        f"${text}$",
        f"\\boxed{{{text}}}",
        text.replace("\\frac", "\\dfrac"),
        text.replace(",", ", ").replace("  ", " "),
        text.replace("\\left", "").replace("\\right", ""),
    ]


def _agreement_pairs() -> list[tuple[str, str]]:
    golds = pl.DataFrame({"gold": _answers("math500_answers.jsonl")})
    read = golds.grade.equivalent("gold", "gold", fallback=None)
    others = read.filter(pl.col("method") != "literal")["gold"].unique(maintain_order=True)
    pairs = [(spelling, gold) for gold in others for spelling in _rewrites(gold)]
    pairs += list(zip(others, others.shift(7).fill_null("0"), strict=True))  # mostly unequal
    pairs += IDENTITIES + [(b, a) for a, b in IDENTITIES]
    pairs += [(p.values[0], p.values[1]) for p in COMMAS]
    return pairs


@pytest.mark.skipif(
    not os.environ.get("GRADEFRAME_ENGINE_AGREEMENT"),
    reason="runs real Math-Verify in this process (.ci/run sets GRADEFRAME_ENGINE_AGREEMENT=1)",
)
def test_engine_verdicts_equal_math_verify_in_process() -> None:
    from math_verify import LatexExtractionConfig, parse, verify

    config = [LatexExtractionConfig()]

    def read(text: str) -> list:
        # the reading's first steps (the scalar reference), then Math-Verify's LaTeX reading
        text = reference.read(text)
        wrapped = f"\\boxed{{{text}}}" if "$" in text else f"${text}$"
        return parse(wrapped, extraction_config=config, parsing_timeout=None)

    pairs = _agreement_pairs()
    assert len(pairs) > 300
    frame = pl.DataFrame({"a": [a for a, _ in pairs], "b": [b for _, b in pairs]})
    out = frame.grade.equivalent("a", "b", timeout=30.0)
    assert set(out["method"]) == {"symbolic"}  # none decided elsewhere, none timed out
    for (a, b), correct in zip(pairs, out["correct"], strict=True):
        gold, answer = read(b), read(a)
        want = bool(gold and answer and verify(gold, answer, timeout_seconds=None))
        assert correct == want, (a, b)


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

# short digit strings (Int128 arithmetic), and long ones far past 128 bits (exact in Python)
_DIGITS = st.one_of(
    st.text("0123456789", min_size=1, max_size=12),
    st.text("0123456789", min_size=30, max_size=90),
)


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
        body = f"{a}.{b}{draw(st.sampled_from(['e', 'E']))}{draw(st.integers(-400, 400))}"
    elif kind == "times":
        body = f"{a[:4]} \\times 10^{{{draw(st.integers(-9, 9))}}}"
    elif kind == "p10":
        body = f"10^{{{draw(st.integers(-60, 60))}}}"
    elif kind == "slash":
        body = f"{a}/{b}"
    else:
        body = draw(st.sampled_from([f"\\frac{{{a}}}{{{b}}}", f"\\dfrac{{{a}}}{{{b}}}"]))
    suffix = draw(st.sampled_from(["", "", "%", "\\%", "\\text{ cm}", "^\\circ"]))
    text = sign + body + suffix
    wrap = draw(st.sampled_from(["{}", "{}", "${}$", "\\boxed{{{}}}", " {}. "]))
    return wrap.format(text)


def _nudged(text: str, step: int) -> str:
    """Change the last digit of a literal by ``step`` (a value one unit of its last place away)."""
    for i in range(len(text) - 1, -1, -1):
        if text[i].isdigit():
            return text[:i] + str((int(text[i]) + step) % 10) + text[i + 1 :]
    return text


_TOLERANCES = st.one_of(
    st.just({}),
    st.fixed_dictionaries({"rel_tol": st.sampled_from([1e-6, 1e-30, 0.01, 0.5, 1.0, 2.0])}),
    st.fixed_dictionaries({"abs_tol": st.sampled_from([1e-30, 1e-300, 0.3, 1e-6, 1e20])}),
    st.fixed_dictionaries(
        {"rel_tol": st.floats(0, 2, allow_nan=False), "abs_tol": st.floats(0, 1e30)}
    ),
)


@given(
    pairs=st.lists(st.tuples(literals(), literals()), min_size=1, max_size=25),
    percent=st.sampled_from(["either", "number", "fraction"]),
    spelling=st.sampled_from(["other", "same", "nudged"]),
    tolerance=_TOLERANCES,
)
def test_literal_path_agrees_with_fraction_reference(pairs, percent, spelling, tolerance) -> None:
    if spelling == "same":  # equal values in other spellings are the interesting case
        pairs = [(a, a.replace("\\frac", "\\dfrac").replace("{,}", ",")) for a, _ in pairs]
    elif spelling == "nudged":  # one unit of the last place apart: the tolerances' edge
        pairs = [(a, _nudged(a, 1)) for a, _ in pairs]
    frame = pl.DataFrame({"a": [a for a, _ in pairs], "b": [b for _, b in pairs]})
    out = frame.grade.equivalent("a", "b", percent=percent, fallback=None, **tolerance)
    for (a, b), correct, method in zip(pairs, out["correct"], out["method"], strict=True):
        want = reference.equivalent(a, b, percent=percent, **tolerance)
        if want is None:
            assert method in ("text", "unparsed"), (a, b, method)
        else:
            assert method == "literal", (a, b, method)
            assert correct == want, (a, b, percent, tolerance)
