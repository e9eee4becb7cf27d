r"""equivalent: the answer is the same mathematical value as the expected one.

Each side is *read* once (:func:`reading`): the wrapping a math answer comes in is removed
(delimiters, ``\boxed``, ``\text``, ``\left``/``\right``, LaTeX spacing), the text is folded
(lower case, thousands separators dropped), and a *literal* (an integer, a decimal, a number
in scientific notation or a fraction of integers, with an optional percent sign or an ignored
unit) is turned into an exact rational ``± n / d × 10^e``: ``n`` and ``d`` are digit strings
(no leading zeros; a decimal has ``d = "1"`` and no trailing zeros in ``n``), ``e`` an integer.

Two literals are compared without floating point:

- both decimals (``d = "1"``): equal when sign, ``n`` and ``e`` are equal (the canonical form
  is unique, at any length: no arithmetic, no overflow);
- otherwise by cross-multiplication in Int128, ``n_a × d_b × 10^k = n_b × d_a`` (``k`` the
  exponents' difference, on the side where it is positive), done only when each product has
  at most 38 digits (so it cannot overflow: Int128 holds 38 digits); beyond that, the pair is
  unequal when their orders of magnitude differ by 2 or more (each value lies between
  ``10^(m-1)`` and ``10^(m+1)`` for ``m = digits(n) - digits(d) + e``);
- the pairs left (only digit strings of about 38 digits and more get there) are decided with
  Python's exact integers (:class:`fractions.Fraction`), once per distinct pair.

``rel_tol``/``abs_tol`` are tested on Float64 values where the float error cannot change the
answer, and on the exact values (once per distinct pair) where it could. A literal pair never
reaches the engine. The symbolic fallback lives in :mod:`._symbolic`; this module hands it the
distinct pairs that are not two literals (a decimal against a non-literal as its exact fraction,
or with a tolerance, for the other side's numeric value).
"""

from __future__ import annotations

import contextlib
import decimal
import math
from collections.abc import Iterator
from fractions import Fraction
from typing import Any, Final, Literal, get_args

import polars as pl

from gradeframe._inputs import IntoExpr, Schema
from gradeframe._subset import on_rows
from gradeframe.fold import fold
from gradeframe.matchers import _base, _symbolic
from gradeframe.matchers._base import Input

__all__ = [
    "EQUIVALENT",
    "EQUIVALENT_COLUMNS",
    "METHODS",
    "equivalent",
    "value_keys",
    "with_equivalent",
]

EQUIVALENT: Final = _base.matcher(
    "equivalent", {"actual": "mixed", "expected": "mixed"}, method=pl.String()
)
#: The columns equivalent adds, before ``prefix``.
EQUIVALENT_COLUMNS: Final = EQUIVALENT.columns

Percent = Literal["either", "number", "fraction"]
Fallback = Literal["symbolic"] | None
#: The values of ``method``: how each row was decided.
METHODS: Final = ("literal", "symbolic", "timeout", "unparsed", "text")
#: The largest ``timeout`` accepted, in seconds (a day).
MAX_TIMEOUT: Final = 86_400.0

# --------------------------------------------------------------------------------------------
# Reading a side
# --------------------------------------------------------------------------------------------

#: One pair of math delimiters around the whole text: $$...$$, $...$, \(...\), \[...\].
_DELIMITERS_RE: Final = r"(?s)^(?:\$\$(.*)\$\$|\$(.*)\$|\\\((.*)\\\)|\\\[(.*)\\\])$"
#: One \boxed{...} around the whole text.
_BOXED_RE: Final = r"(?s)^\\boxed\s*\{(.*)\}$"
#: One \text{...} or \mathrm{...} around the whole text (no braces inside).
_TEXT_RE: Final = r"^\\(?:text|mathrm)\s*\{([^{}]*)\}$"
#: \left and \right (not \leftarrow), and the spacing commands \! \, \; \  and ~. A line
#: break \\ (a matrix's row separator) is matched first and kept (group 1).
_SPACING_RE: Final = r"(\\\\)|\\(?:left|right)\b|\\[!,; ]|~"
#: Whether a text needs the reading's steps at all: white space or a final "." at its ends, a
#: wrapper at its start, \left/\right or a spacing command, or a thousands separator. Most
#: answers ("12", "\frac{3}{4}", "50\%") need none, and are their own reading.
_NEEDS_READING_RE: Final = (
    r"^\s|\s$|\.$|^(?:\$|\\[(\[]|\\boxed|\\text|\\mathrm)|\\(?:left|right|[!,; ])|~"
    "|[0-9](?:[,\u00a0\u2007\u2009\u202f]|\\{,\\})[0-9]{3}"
)
#: A thousands separator as fold drops it, LaTeX's {,} too: between a digit and exactly
#: three digits not followed by a digit. The fourth group is consumed; see :func:`_drop_separators`.
_SEPARATOR_RE: Final = "(\\d)(?:[,\u00a0\u2007\u2009\u202f]|\\{,\\})(\\d{3})(\\D|$)"
#: Marks a dropped separator between the two passes (a private-use character).
_MARK: Final = "\ue000"

#: A sign: "+", "-", or a dash that fold turns into "-" (U+2010 to U+2013, U+2212).
_SIGN: Final = "[+\\-\u2010-\u2013\u2212]"
#: An exponent of ten: ^{-2}, ^{3} or ^3 (one digit unbraced, as LaTeX reads it).
_POWER: Final = r"\s*\^\s*(?:\{\s*(?P<NAME>[+-]?[0-9]+)\s*\}|(?P<NAMEd>[0-9]))"

#: A literal, on the reading (not folded: "E" and the dashes that fold would change are spelled
#: out here). Groups: ``sign``, ``sign2`` (after a "$" unit), ``p10`` (10^k), ``mant`` with its
#: decimals ``fr``/``fr2`` and ``exp`` (e notation) or ``texp`` (\times 10^k), ``num``/``den``
#: (a/b), ``fn``/``fd`` (\frac), and ``pct``.
LITERAL_RE: Final = (
    r"^(?P<sign>" + _SIGN + r")?\s*(?:\\?\$\s*)?(?P<sign2>" + _SIGN + r")?\s*(?:"
    r"10" + _POWER.replace("NAME", "p10") + r"|(?P<mant>[0-9]+(?:\.(?P<fr>[0-9]+)?)?"
    r"|\.(?P<fr2>[0-9]+))(?:[eE](?P<exp>[+-]?[0-9]+)"
    r"|\s*(?:\\times|\\cdot|×|·)\s*10" + _POWER.replace("NAME", "texp") + r")?"
    r"|(?P<num>[0-9]+)\s*/\s*(?P<den>[0-9]+)"
    r"|\\[dt]?frac\s*(?:\{\s*(?P<fn>[+-]?[0-9]+)\s*\}|(?P<fnd>[0-9]))"
    r"\s*(?:\{\s*(?P<fd>[+-]?[0-9]+)\s*\}|(?P<fdd>[0-9]))"
    r")\s*(?:(?P<pct>\\?%)|\\(?:text|mbox)\s*\{[^{}0-9]*\}|\^\s*\\circ|\^\s*\{\s*\\circ\s*\}|°)?$"
)

#: What :func:`reading` returns for each value.
READING: Final = pl.Struct(
    {
        "raw": pl.String(),  # the reading (fallback=None folds it; the engine gets it unwrapped
        # only, commas kept: see :func:`engine_text`)
        "literal": pl.Boolean(),
        "decimal": pl.Boolean(),  # a literal written with a decimal point or an exponent
        "neg": pl.Boolean(),
        "n": pl.String(),
        "d": pl.String(),
        "e": pl.Int64(),
        "pct": pl.Boolean(),
    }
)

#: Int128 holds every integer of 38 digits; a product of at most this many digits is exact.
_EXACT_DIGITS: Final = 38


def _drop_separators(text: pl.Expr) -> pl.Expr:
    """Drop thousands separators as fold does (two passes: a chain shares its digits)."""
    text = text.str.replace_all(_SEPARATOR_RE, "${1}" + _MARK + "${2}${3}")
    text = text.str.replace_all(_SEPARATOR_RE, "${1}${2}${3}")
    return text.str.replace_all(_MARK, "", literal=True)


def _unwrap(text: pl.Expr) -> pl.Expr:
    r"""Trim, remove the delimiters, \boxed, \text, \left/\right and spacing (commas kept)."""
    text = text.str.strip_chars().str.strip_suffix(".").str.strip_chars()
    for pattern, replacement in (
        (_DELIMITERS_RE, "${1}${2}${3}${4}"),
        (_BOXED_RE, "${1}"),
        (_TEXT_RE, "${1}"),
    ):
        text = text.str.replace(pattern, replacement).str.strip_chars()
    return text.str.replace_all(_SPACING_RE, "${1}").str.strip_chars()


def reading(text: pl.Expr) -> pl.Expr:
    r"""Read a String column as equivalent does: a struct of :data:`READING` (null stays null).

    ``raw`` is the text with its wrapping and thousands separators removed; a literal's value
    is ``± n / d × 10^e``.

    Examples
    --------
    >>> import polars as pl
    >>> s = pl.Series(["$\\boxed{1{,}000}$", "-\\frac{1}{2}", "50\\%", "x+1", "0.0"])
    >>> read = pl.select(reading(pl.lit(s)).alias("read")).unnest("read")
    >>> read.select("raw", "literal", "decimal", "n", "d", "e")
    shape: (5, 6)
    ┌──────────────┬─────────┬─────────┬──────┬──────┬──────┐
    │ raw          ┆ literal ┆ decimal ┆ n    ┆ d    ┆ e    │
    │ ---          ┆ ---     ┆ ---     ┆ ---  ┆ ---  ┆ ---  │
    │ str          ┆ bool    ┆ bool    ┆ str  ┆ str  ┆ i64  │
    ╞══════════════╪═════════╪═════════╪══════╪══════╪══════╡
    │ 1000         ┆ true    ┆ false   ┆ 1    ┆ 1    ┆ 3    │
    │ -\frac{1}{2} ┆ true    ┆ false   ┆ 1    ┆ 2    ┆ 0    │
    │ 50\%         ┆ true    ┆ false   ┆ 5    ┆ 1    ┆ 1    │
    │ x+1          ┆ false   ┆ null    ┆ null ┆ null ┆ null │
    │ 0.0          ┆ true    ┆ true    ┆ 0    ┆ 1    ┆ 0    │
    └──────────────┴─────────┴─────────┴──────┴──────┴──────┘
    """
    raw = on_rows(
        text.str.contains(_NEEDS_READING_RE),
        {"raw": text},
        _drop_separators(_unwrap(pl.col("raw"))),
        otherwise=lambda frame: frame.get_column("raw"),
        dtype=pl.String(),
    )
    staged = pl.struct(raw=raw).struct.with_fields(g=pl.field("raw").str.extract_groups(LITERAL_RE))
    g = pl.field("g").struct.field
    mant = g("mant")
    numerator = pl.coalesce(g("num"), g("fn"), g("fnd"))
    denominator = pl.coalesce(g("den"), g("fd"), g("fdd"))
    p10 = pl.coalesce(g("p10"), g("p10d"))
    decimals = pl.coalesce(g("fr"), g("fr2")).str.len_bytes().fill_null(0)
    # a decimal: its digits, and its exponent less the digits after the point
    digits = (
        pl.when(p10.is_not_null())
        .then(pl.lit("1"))
        .when(mant.is_not_null())
        .then(mant.str.replace(".", "", literal=True))
        .otherwise(numerator.str.strip_chars_start("+-"))
    )
    exponent = (
        pl.when(p10.is_not_null())
        .then(p10)
        .otherwise(pl.coalesce(g("exp"), g("texp"), g("texpd"), pl.lit("0")))
        .cast(pl.Int64, strict=False)
    ) - decimals
    negative = (
        g("sign").is_in(["+"]).not_().fill_null(value=False)
        ^ g("sign2").is_in(["+"]).not_().fill_null(value=False)
        ^ numerator.str.starts_with("-").fill_null(value=False)
        ^ denominator.str.starts_with("-").fill_null(value=False)
    )
    staged = staged.struct.with_fields(
        found=(p10.is_not_null() | mant.is_not_null() | numerator.is_not_null())
        & (g("sign").is_null() | g("sign2").is_null()),
        neg=negative,
        lead=digits.str.strip_chars_start("0"),
        d=pl.when(denominator.is_not_null())
        .then(denominator.str.strip_chars_start("+-").str.strip_chars_start("0"))
        .otherwise(pl.lit("1")),
        e=exponent,
        pct=g("pct").is_not_null(),
        decimal=pl.coalesce(g("exp"), g("texp"), g("texpd"), p10).is_not_null()
        | mant.str.contains(".", literal=True).fill_null(value=False),
    )
    lead, d = pl.field("lead"), pl.field("d")
    staged = staged.struct.with_fields(
        n=pl.when(d == "1").then(lead.str.strip_chars_end("0")).otherwise(lead)
    )
    n = pl.field("n")
    zero = n == ""
    # a decimal's trailing zeros move into the exponent; zero is 0 x 10^0, never negative
    literal = (pl.field("found") & (d != "") & pl.field("e").is_not_null()).fill_null(value=False)
    staged = staged.struct.with_fields(
        literal=pl.when(pl.field("raw").is_not_null()).then(literal),
        neg=pl.field("neg") & ~zero,
        n=pl.when(zero).then(pl.lit("0")).otherwise(n),
        d=pl.when(zero).then(pl.lit("1")).otherwise(d),
        e=pl.when(zero)
        .then(pl.lit(0, pl.Int64))
        .otherwise(pl.field("e") + lead.str.len_bytes() - n.str.len_bytes()),
    )
    keep = pl.field("literal")
    out = pl.struct(
        raw=pl.field("raw"),
        literal=keep,
        **{k: pl.when(keep).then(pl.field(k)) for k in ("decimal", "neg", "n", "d", "e", "pct")},
    )
    return staged.struct.with_fields(out.alias("out")).struct.field("out")


# --------------------------------------------------------------------------------------------
# Comparing two literals
# --------------------------------------------------------------------------------------------


def _value(side: dict[str, pl.Expr]) -> pl.Expr:
    """Return a literal's value as Float64 (for tolerances)."""
    value = (side["n"] + pl.lit("e") + side["e"].cast(pl.String)).cast(
        pl.Float64, strict=False
    ) / side["d"].cast(pl.Float64, strict=False)
    return pl.when(side["neg"]).then(-value).otherwise(value)


def _literal_verdict(
    a: dict[str, pl.Expr],
    b: dict[str, pl.Expr],
    *,
    percent: Percent,
    rel_tol: float,
    abs_tol: float,
) -> pl.Expr:
    """Whether two literals are equivalent under the percent policy (null: undecided).

    Reads the sides' digits as Int128 from the staged fields of :func:`_big_fields`.
    """
    zero = pl.lit(0, pl.Int64)
    hundredth = pl.lit(-2, pl.Int64)
    one_percent = a["pct"] != b["pct"]  # two percent literals compare their numbers
    # exponent shifts (a, b) of each comparison the policy allows
    plain = (zero, zero)
    scaled = (
        pl.when(a["pct"]).then(hundredth).otherwise(zero),
        pl.when(b["pct"]).then(hundredth).otherwise(zero),
    )
    both_decimal = (a["d"] == "1") & (b["d"] == "1")
    both_zero = (a["n"] == "0") & (b["n"] == "0")
    same = (a["n"] != "0") & (b["n"] != "0") & (a["neg"] == b["neg"])
    # Int64: a difference of UInt32 lengths would wrap below zero
    lengths = tuple(side[k].str.len_bytes().cast(pl.Int64) for side in (a, b) for k in ("n", "d"))
    big = [pl.field(f"_{k}") for k in _BIG]
    ten = pl.lit(10, pl.Int128)
    values = (pl.field("_va"), pl.field("_vb"))  # staged by :func:`_big_fields`

    def equal(shift: tuple[pl.Expr, pl.Expr]) -> pl.Expr:
        k = (a["e"] + shift[0]) - (b["e"] + shift[1])
        up_a, up_b = k.clip(lower_bound=0), (-k).clip(lower_bound=0)
        fits = (lengths[0] + lengths[3] + up_a <= _EXACT_DIGITS) & (
            lengths[2] + lengths[1] + up_b <= _EXACT_DIGITS
        )
        left = big[0] * big[3] * ten.pow(pl.when(fits).then(up_a))
        right = big[2] * big[1] * ten.pow(pl.when(fits).then(up_b))
        # each value lies in (10^(m-1), 10^(m+1)) for m = digits(n) - digits(d) + e: two whose
        # m differ by 2 or more cannot be equal (so only long digit strings stay undecided)
        magnitude = (lengths[0] - lengths[1] + a["e"] + shift[0]) - (
            lengths[2] - lengths[3] + b["e"] + shift[1]
        )
        exact = (
            pl.when(both_decimal)
            .then(both_zero | (same & (a["n"] == b["n"]) & (k == 0)))
            .when(fits)
            .then(both_zero | (same & (left == right)))
            .when(magnitude.abs() >= 2)
            .then(pl.lit(value=False))
        )
        if rel_tol == 0 and abs_tol == 0:
            return exact
        # the tolerance on Float64 values, where the float error cannot change the answer
        # (each value is within 4 ulps of the exact one): otherwise null, and decided on the
        # exact values (:func:`_exact_verdicts`)
        ten_float = pl.lit(10.0)
        va, vb = values[0] * ten_float.pow(shift[0]), values[1] * ten_float.pow(shift[1])
        gap, largest = (va - vb).abs(), pl.max_horizontal(va.abs(), vb.abs())
        bound = pl.max_horizontal(largest * rel_tol, pl.lit(abs_tol))
        safe = pl.lit(value=True)
        for v, side in ((va, a), (vb, b)):
            safe = safe & ((side["n"] == "0") | ((v.abs() >= 1e-290) & (v.abs() <= 1e290)))
        margin = (largest + bound) * 1e-12
        close = pl.when(safe & ((gap - bound).abs() > margin)).then(gap <= bound)
        return exact | close

    if percent == "number":
        verdict = equal(plain)
    elif percent == "fraction":
        # two percents compare their numbers (scaling both would shrink a tolerance's gap)
        verdict = pl.when(one_percent).then(equal(scaled)).otherwise(equal(plain))
    else:
        # Kleene logic: an undecided plain comparison stays undecided unless scaled says true
        verdict = equal(plain) | (one_percent & equal(scaled))
    return verdict


#: The staged Int128 fields: numerator and denominator of each side.
_BIG: Final = ("an", "ad", "bn", "bd")


def _big_fields(
    a: dict[str, pl.Expr], b: dict[str, pl.Expr], *, tolerant: bool
) -> dict[str, pl.Expr]:
    """Return the numerators and denominators as Int128 (null beyond 38 digits: unused then).

    With a tolerance, also each side's Float64 value (``_va``, ``_vb``), computed once.
    """
    sides = {"an": a["n"], "ad": a["d"], "bn": b["n"], "bd": b["d"]}
    fields = {f"_{k}": sides[k].cast(pl.Int128, strict=False) for k in _BIG}
    if tolerant:
        fields |= {"_va": _value(a), "_vb": _value(b)}
    return fields


# --------------------------------------------------------------------------------------------
# Exact values in Python (the pairs the columns leave undecided, once per distinct pair)
# --------------------------------------------------------------------------------------------

#: A value ``f × 10^e``: a rational and an exponent (kept apart: 10^e is never built when e is
#: large).
Exact = tuple[Fraction, int]

#: Orders of magnitude past which the smaller of two values cannot change a tolerance test.
_FAR: Final = 2000


def _integer(digits: str) -> int:
    """Read a digit string of any length (``int`` refuses more than 4,300 digits)."""
    return int(decimal.Decimal(digits))


def _magnitude(value: Fraction) -> int:
    """Return log10(|value|) within 1 (value is not 0), from the bit lengths."""
    bits = abs(value.numerator).bit_length() - value.denominator.bit_length()
    return round(bits * 0.30103)


def _sign_against(f: Fraction, e: int, bound: Fraction) -> int:
    """Return the sign of ``f × 10^e - bound`` (f and bound > 0), exactly."""
    diff = _magnitude(f) + e - _magnitude(bound)
    if diff >= 4:
        return 1
    if diff <= -4:
        return -1
    delta = f * Fraction(10) ** e - bound  # e is small here: near the bound's magnitude
    return (delta > 0) - (delta < 0)


def _at_most(f: Fraction, e: int, bound: Fraction) -> bool:
    """Return whether ``f × 10^e <= bound`` (f and bound >= 0), exactly."""
    if f == 0:
        return True
    if bound == 0:
        return False
    return _sign_against(f, e, bound) <= 0


def _within(x: Exact, y: Exact, rel: Fraction, tol: Fraction) -> bool:
    """Return whether ``|x - y| <= max(rel × max(|x|, |y|), tol)`` on the exact values."""
    (fx, ex), (fy, ey) = x, y
    if fx == 0 or fy == 0:
        if fx == fy:
            return True
        f, e = (fy, ey) if fx == 0 else (fx, ex)
        return rel >= 1 or _at_most(abs(f), e, tol)
    mx, my = _magnitude(fx) + ex, _magnitude(fy) + ey
    size = sum(v.numerator.bit_length() + v.denominator.bit_length() for v in (fx, fy)) // 3
    far = _FAR + 4 * (size + 1)
    if abs(mx - my) <= far:  # scale both by 10^-m: the exponents left are small
        m = min(ex, ey)
        sx, sy = fx * 10 ** (ex - m), fy * 10 ** (ey - m)
        gap = abs(sx - sy)
        if gap == 0 or gap <= rel * max(abs(sx), abs(sy)):
            return True
        return _at_most(gap, m, tol)
    # one value is more than `far` orders of magnitude smaller: the gap is the larger value,
    # give or take an amount too small to matter unless the larger one equals tol exactly
    same = (fx > 0) == (fy > 0)
    if rel > 1 or (same and rel >= 1):
        return True
    f, e = (abs(fx), ex) if mx > my else (abs(fy), ey)
    if tol == 0:
        return False
    sign = _sign_against(f, e, tol)
    return same if sign == 0 else sign < 0


def _exact(neg: bool, n: str, d: str, e: int) -> Exact:
    value = Fraction(_integer(n), _integer(d))
    return (-value if neg else value), e


def _tolerance(value: float) -> Fraction:
    """Return a tolerance's exact value: the decimal it is written as (1e-30 is 10^-30)."""
    return Fraction(repr(value))


def _pair_verdict(
    a: Exact, b: Exact, pcts: tuple[bool, bool], percent: Percent, rel: Fraction, tol: Fraction
) -> bool:
    """Two literals under the percent policy, on their exact values (as the columns do)."""
    if pcts[0] == pcts[1] or percent == "number":
        return _within(a, b, rel, tol)
    scaled = (a[0], a[1] - 2 * pcts[0]), (b[0], b[1] - 2 * pcts[1])
    if percent == "fraction":
        return _within(*scaled, rel, tol)
    return _within(a, b, rel, tol) or _within(*scaled, rel, tol)


#: The literal fields of each side that :func:`_exact_verdicts` reads.
_EXACT_FIELDS: Final = ("neg", "n", "d", "e", "pct")


def _exact_verdicts(batch: pl.Series, percent: Percent, rel: float, tol: float) -> pl.Series:
    """Decide the rows marked ``needed`` exactly, once per distinct pair of literals."""
    rows = batch.struct.unnest()
    keys = [c for c in rows.columns if c != "needed"]
    pairs = rows.filter(pl.col("needed")).select(keys).unique()
    exact_rel, exact_tol = _tolerance(rel), _tolerance(tol)
    verdicts = []
    for p in pairs.iter_rows(named=True):
        a = _exact(p["a_neg"], p["a_n"], p["a_d"], p["a_e"])
        b = _exact(p["b_neg"], p["b_n"], p["b_d"], p["b_e"])
        pcts = (p["a_pct"], p["b_pct"])
        verdicts.append(_pair_verdict(a, b, pcts, percent, exact_rel, exact_tol))
    table = pairs.with_columns(verdict=pl.Series(verdicts, dtype=pl.Boolean))
    joined = rows.join(table, on=keys, how="left", maintain_order="left")
    return joined.select(
        pl.when(pl.col("needed")).then(pl.col("verdict")).alias(batch.name)
    ).to_series()


def _exact_text(neg: bool, n: str, d: str, e: int, pct: bool) -> str:
    """Write a literal as an exact fraction of integers, for the engine (no decimal point)."""
    sign = "-" if neg else ""
    if abs(e) > 1000:
        text = f"{sign}\\frac{{{n}}}{{{d}}} \\cdot 10^{{{e}}}"
    else:
        top, bottom = n + "0" * max(e, 0), d + "0" * max(-e, 0)
        text = f"{sign}\\frac{{{top}}}{{{bottom}}}"
    return text + ("\\%" if pct else "")


# --------------------------------------------------------------------------------------------
# Votes on values (samples.consistency/flaky with vote="equivalent")
# --------------------------------------------------------------------------------------------


def _value_key(neg: bool, n: str, d: str, e: int, pct: bool) -> str:
    """Write a literal's exact value one way only: ``±p/q·10^e``, p without factors of ten."""
    value = Fraction(_integer(n), _integer(d))
    p, q = value.numerator, value.denominator
    if p == 0:
        return "\ue001" + "0" + ("%" if pct else "")
    twos = fives = 0
    rest = q
    while rest % 2 == 0:
        rest //= 2
        twos += 1
    while rest % 5 == 0:
        rest //= 5
        fives += 1
    if rest == 1:  # q = 2^a 5^b: p/q = p 2^(k-a) 5^(k-b) / 10^k
        k = max(twos, fives)
        p, q, e = p * 2 ** (k - twos) * 5 ** (k - fives), 1, e - k
    while p % 10 == 0:
        p //= 10
        e += 1
    sign = "-" if neg else ""
    return f"\ue001{sign}{p}/{q}e{e}" + ("%" if pct else "")


def value_keys(text: pl.Expr) -> pl.Expr:
    r"""Return one key per value: a literal's exact value, else the folded reading.

    ``"\frac12"``, ``"0.5"`` and ``"1/2"`` get one key; ``"\text{Paris}"`` and ``"paris"``
    another. A percent literal keeps its sign ("50%" is not 50 or 0.5). Null stays null, and a
    blank text gets ``""``. Run once per distinct text (Python's exact integers, no row loop).

    Examples
    --------
    >>> import polars as pl
    >>> s = pl.Series(["\\frac12", "0.5", "1/2", "$\\text{Paris}$", "paris", "50%"])
    >>> keys = pl.select(value_keys(pl.lit(s)).alias("k"))["k"]
    >>> keys.n_unique(), keys[0] == keys[1] == keys[2], keys[3] == keys[4]
    (3, True, True)
    """

    def run(batch: pl.Series) -> pl.Series:
        distinct = pl.DataFrame({"t": batch}).unique()
        read = distinct.with_columns(reading(pl.col("t")).alias("r")).unnest("r")
        literals = read.filter(pl.col("literal"))
        keys = [
            _value_key(r["neg"], r["n"], r["d"], r["e"], r["pct"])
            for r in literals.iter_rows(named=True)
        ]
        table = pl.concat(
            [
                read.filter(~pl.col("literal").fill_null(value=False)).select(
                    "t", fold(pl.col("raw")).alias("k")
                ),
                literals.select("t", pl.Series("k", keys, dtype=pl.String)),
            ]
        )
        joined = pl.DataFrame({"t": batch}).join(
            table, on="t", how="left", maintain_order="left", nulls_equal=True
        )
        return joined["k"].alias(batch.name)

    return text.map_batches(run, return_dtype=pl.String, is_elementwise=True)


# --------------------------------------------------------------------------------------------
# The matcher
# --------------------------------------------------------------------------------------------


def _check_options(percent: object, fallback: object, timeout: object) -> float:
    if percent not in get_args(Percent):
        allowed = ", ".join(repr(p) for p in get_args(Percent))
        msg = f"`percent` must be one of {allowed}, got {percent!r}"
        raise ValueError(msg)
    if fallback not in ("symbolic", None):
        msg = f"`fallback` must be 'symbolic' or None, got {fallback!r}"
        raise ValueError(msg)
    if not _base.is_number(timeout):
        msg = f"`timeout` must be a number of seconds, got {type(timeout).__name__}: {timeout!r}"
        raise TypeError(msg)
    try:
        seconds = float(timeout)  # type: ignore[arg-type]
    except OverflowError:  # an int past Float64
        seconds = math.inf
    if not math.isfinite(seconds) or not 0 < seconds <= MAX_TIMEOUT:
        msg = (
            f"`timeout` must be a finite number of seconds > 0 and at most {MAX_TIMEOUT:,.0f} "
            f"(a day), got {timeout!r}"
        )
        raise ValueError(msg)
    return seconds


@_base.shares_parameters
def equivalent(
    actual: IntoExpr,
    expected: IntoExpr,
    *,
    percent: Percent = "either",
    rel_tol: float = 0.0,
    abs_tol: float = 0.0,
    fallback: Fallback = "symbolic",
    timeout: float = 5.0,
    label: str | None = None,
    prefix: str = "",
    schema: Schema | None = None,
) -> pl.Expr:
    r"""Check that answers are the same mathematical value as the expected ones.

    Each side is read the same way: white space and a final "." trimmed; one pair of math
    delimiters (``$...$``, ``$$...$$``, ``\(...\)``, ``\[...\]``), one enclosing ``\boxed{}``
    and a ``\text{}``/``\mathrm{}`` around the whole value removed, with ``\left``/``\right``
    and the spacing commands ``\!``, ``\,``, ``\;``, ``\ ``, ``~``; thousands separators dropped
    as :func:`gradeframe.fold` drops them (and LaTeX's ``{,}``). A side is a *literal* when what
    remains is a signed integer or decimal (``"-0.50"``, ``".5"``, ``"1,204"``), a number in
    scientific notation (``"1.5e3"``, ``"1.5 \times 10^{3}"``, ``"10^{-2}"``) or a fraction of
    integers (``"3/4"``, ``"\frac{3}{4}"``, ``"\dfrac34"``), optionally followed by a percent
    sign (``"%"``, ``"\%"``) or a unit that is ignored (``\text{...}``, ``\mbox{...}``,
    ``^\circ``, ``°``, or ``$`` before the number).

    Two literals are equivalent when their exact rational values are equal, at any number of
    digits or exponent (``"0.1"`` is 1/10, ``"0.4999999"`` is not 1/2, ``"2/4"`` is 1/2):
    ``method`` ``"literal"``, never the engine. With ``rel_tol`` or ``abs_tol``, also when
    ``|a - b| <= max(rel_tol * max(|a|, |b|), abs_tol)`` on the exact values (each tolerance the
    decimal it is written as). Any other pair goes to the fallback, once per distinct (actual,
    expected) pair: Math-Verify in worker processes killed after ``timeout`` seconds
    (``"symbolic"``, ``"timeout"`` or ``"unparsed"`` when it cannot read or decide the pair), or
    with ``fallback=None`` a comparison of the folded readings (``"text"`` when equal, else
    ``"unparsed"``). The engine gets each side unwrapped, commas kept (``"\{1,234\}"`` is a set),
    and a decimal against an expression is equivalent only when exactly equal (``"1.414214"`` is
    not ``"\sqrt{2}"``), or with a tolerance, when within it. Model text is never run as code. A
    null answer is not correct (``"unparsed"``); a null or blank expected value raises naming the
    row.

    Parameters
    ----------
    actual
        The answers: a column name or a String expression (numbers are read as Polars writes
        them).
    expected
        The expected answers: a column name or an expression (a literal is ``pl.lit("...")``);
        a List column holds several acceptable answers (correct when any is equivalent, with the
        ``method`` of the item that decided, else of the last item).
    percent
        How a percent literal compares with a plain number: ``"either"`` (``"50%"`` equals 50
        and 0.5), ``"number"`` (50 only, as hendrycks MATH and PRM800K grade) or
        ``"fraction"`` (0.5 only, as inspect_ai does). Two percent literals compare their
        numbers.
    rel_tol, abs_tol
        Tolerances, as :func:`math.isclose` on exact values (0: exact), for two literals and for
        a decimal against an expression.
    fallback
        ``"symbolic"`` (Math-Verify, the ``gradeframe[math]`` extra; needed only when a pair is
        not two literals) or None (folded-text comparison).
    timeout
        Seconds one symbolic pair may take before it is ``"timeout"`` (above 0, at most
        86,400). ``"timeout"`` also marks a pair over the worker's memory cap, or whose worker
        died on it twice: the engine could not decide it.
    label
        Replaces the default description ``"equivalent"`` in ``expectation``.

    Returns
    -------
    pl.Expr
        A struct expression named ``prefix + "equivalent"`` with the fields ``correct``,
        ``expectation`` and ``method``.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "answer": ["0.5", "$\\frac{2}{4}$", "50\\%", "1,000", "0.4999999", "x", None],
    ...         "gold": ["\\frac12", "1/2", "0.5", "1000", "1/2", "X", "1"],
    ...     }
    ... )
    >>> df.grade.equivalent("answer", "gold", fallback=None)
    shape: (7, 5)
    ┌───────────────┬─────────┬─────────┬─────────────┬──────────┐
    │ answer        ┆ gold    ┆ correct ┆ expectation ┆ method   │
    │ ---           ┆ ---     ┆ ---     ┆ ---         ┆ ---      │
    │ str           ┆ str     ┆ bool    ┆ str         ┆ str      │
    ╞═══════════════╪═════════╪═════════╪═════════════╪══════════╡
    │ 0.5           ┆ \frac12 ┆ true    ┆ equivalent  ┆ literal  │
    │ $\frac{2}{4}$ ┆ 1/2     ┆ true    ┆ equivalent  ┆ literal  │
    │ 50\%          ┆ 0.5     ┆ true    ┆ equivalent  ┆ literal  │
    │ 1,000         ┆ 1000    ┆ true    ┆ equivalent  ┆ literal  │
    │ 0.4999999     ┆ 1/2     ┆ false   ┆ equivalent  ┆ literal  │
    │ x             ┆ X       ┆ true    ┆ equivalent  ┆ text     │
    │ null          ┆ 1       ┆ false   ┆ equivalent  ┆ unparsed │
    └───────────────┴─────────┴─────────┴─────────────┴──────────┘
    """
    seconds = _check_options(percent, fallback, timeout)
    tolerances = (
        _base.check_tolerance(rel_tol, "rel_tol"),
        _base.check_tolerance(abs_tol, "abs_tol"),
    )
    expectation = _base.expectation(label, "equivalent")
    memo = _symbolic.Memo()  # each distinct pair once per call, across batches
    options = {
        "percent": percent,
        "rel_tol": tolerances[0],
        "abs_tol": tolerances[1],
        "fallback": fallback,
        "timeout": seconds,
        "memo": memo,
    }
    return _base.expression(
        EQUIVALENT,
        _base.inputs(actual=actual, expected=expected),
        lambda inputs: _rule(inputs, options),
        expectation=expectation,
        prefix=prefix,
        schema=schema,
    )


def _as_text(source: Input) -> pl.Expr:
    """Read an input as text, null kept; numbers as Polars writes them."""
    value = source.value
    if value.other is not None:
        raise source.error("text or numbers")
    parts = [value.text] if value.text is not None else []
    for part in (value.number, value.boolean):
        if part is not None:
            parts.append(part.cast(pl.String))
    if not parts:
        return pl.lit(None, pl.String)
    return pl.coalesce(parts)


#: What the rule returns for one (actual, expected) pair of columns.
_VERDICT: Final = pl.Struct({"correct": pl.Boolean(), "method": pl.String()})


def _rule(inputs: dict[str, Input], options: dict[str, Any]) -> pl.Expr:
    """Grade the inputs; ``options`` are :func:`_decide`'s keywords (checked, as one dict)."""
    answer = _as_text(inputs["actual"])
    source = inputs["expected"]
    if isinstance(source.dtype, pl.List):
        return _on_lists(answer, source, options)
    truth = _as_text(source)
    problem = (
        pl.when(truth.is_null())
        .then(pl.lit("is null; every row needs an expected answer."))
        .when(truth.str.strip_chars() == "")
        .then(pl.lit("is blank; every row needs an expected answer."))
    )
    truth = _base.check_rows(
        pl.struct(value=truth, problem=problem), matcher="equivalent", return_dtype=pl.String
    )
    return _decide(answer, truth, **options)


def _on_lists(answer: pl.Expr, source: Input, options: dict) -> pl.Expr:
    """Decide against a list of expected answers: correct when any item is equivalent."""
    inner = source.dtype.inner  # type: ignore[attr-defined]
    if inner.is_nested() or inner in (pl.Binary, pl.Object):
        raise source.error("text or numbers, or a list of them")
    items = source.expr.cast(pl.List(pl.String))
    usable = items.list.eval(pl.element().str.strip_chars().str.len_chars() > 0).list.sum()
    problem = (
        pl.when(items.is_null())
        .then(pl.lit("is null; every row needs an expected answer."))
        .when(usable.fill_null(0) == 0)
        .then(pl.lit("has no expected answer that is not blank."))
    )
    items = _base.check_rows(
        pl.struct(value=items, problem=problem),
        matcher="equivalent",
        return_dtype=pl.List(pl.String),
    )

    def run(batch: pl.Series) -> pl.Series:
        rows = batch.struct.unnest().with_row_index("_row")
        long = rows.explode("b").filter(pl.col("b").str.strip_chars().str.len_chars() > 0)
        decided = long.select(
            "_row", _decide(pl.col("a"), pl.col("b"), **options).alias("_v")
        ).unnest("_v")
        per_row = decided.group_by("_row", maintain_order=True).agg(
            correct=pl.col("correct").any(),
            method=pl.coalesce(
                pl.col("method").filter(pl.col("correct")).first(), pl.col("method").last()
            ),
        )
        joined = rows.select("_row").join(per_row, on="_row", how="left", maintain_order="left")
        return joined.select(pl.struct("correct", "method").alias(batch.name)).to_series()

    result = pl.struct(a=answer, b=items).map_batches(
        run, return_dtype=_VERDICT, is_elementwise=True
    )
    return pl.struct(_v=result).struct.with_fields(
        correct=pl.field("_v").struct.field("correct"),
        method=pl.field("_v").struct.field("method"),
    )


def _decide(
    answer: pl.Expr,
    truth: pl.Expr,
    *,
    percent: Percent,
    rel_tol: float,
    abs_tol: float,
    fallback: Fallback,
    timeout: float,
    memo: _symbolic.Memo,
) -> pl.Expr:
    """Return a struct with ``correct`` and ``method`` for String answers and expected values."""
    stages = pl.struct(
        a=_base.on_repeats(answer, reading, return_dtype=READING),
        b=_base.on_repeats(truth, reading, return_dtype=READING),
    )
    a = {k: pl.field("a").struct.field(k) for k in READING.to_schema()}
    b = {k: pl.field("b").struct.field(k) for k in READING.to_schema()}
    stages = stages.struct.with_fields(**_big_fields(a, b, tolerant=bool(rel_tol or abs_tol)))
    both = (a["literal"] & b["literal"]).fill_null(value=False)
    stages = stages.struct.with_fields(
        verdict=pl.when(both).then(
            _literal_verdict(a, b, percent=percent, rel_tol=rel_tol, abs_tol=abs_tol)
        )
    )
    # the literal pairs the columns leave undecided: exact, in Python, once per distinct pair
    fields = {f"{side}_{k}": s[k] for side, s in (("a", a), ("b", b)) for k in _EXACT_FIELDS}
    exact = pl.struct(needed=both & pl.field("verdict").is_null(), **fields).map_batches(
        lambda batch: (
            _exact_verdicts(batch, percent, rel_tol, abs_tol)
            if batch.struct.field("needed").any()
            else pl.Series(batch.name, [None] * batch.len(), dtype=pl.Boolean)
        ),
        return_dtype=pl.Boolean,
        is_elementwise=True,
    )
    stages = stages.struct.with_fields(verdict=pl.coalesce(pl.field("verdict"), exact))
    verdict = pl.field("verdict")
    missing = a["raw"].is_null()
    if fallback is None:
        # the folded readings compared, on the rows the literal path left alone
        same_text = on_rows(
            ~missing & ~both,
            {"a": a["raw"], "b": b["raw"]},
            (fold(pl.col("a")) == fold(pl.col("b"))).fill_null(value=False),
            otherwise=lambda frame: pl.repeat(False, frame.height, eager=True),
            dtype=pl.Boolean(),
        )
        method = (
            pl.when(missing)
            .then(pl.lit("unparsed"))
            .when(both)
            .then(pl.lit("literal"))
            .when(same_text)
            .then(pl.lit("text"))
            .otherwise(pl.lit("unparsed"))
        )
        correct = pl.when(both).then(verdict).otherwise(same_text & ~missing)
        return stages.struct.with_fields(correct=correct.fill_null(value=False), method=method)
    needed = ~missing & ~both
    engine_fields = {
        f"{side}_{k}": s[k]
        for side, s in (("a", a), ("b", b))
        for k in ("literal", "decimal", *_EXACT_FIELDS)
    }
    symbolic = pl.struct(needed=needed, a=answer, b=truth, **engine_fields).map_batches(
        lambda batch: _by_pairs(batch, timeout, percent, rel_tol, abs_tol, memo),
        return_dtype=_VERDICT,
        is_elementwise=True,
    )
    stages = stages.struct.with_fields(symbolic=symbolic)
    found = pl.field("symbolic").struct.field
    method = (
        pl.when(missing)
        .then(pl.lit("unparsed"))
        .when(both)
        .then(pl.lit("literal"))
        .otherwise(found("method"))
    )
    correct = pl.when(both).then(verdict).otherwise(found("correct").fill_null(value=False))
    return stages.struct.with_fields(correct=correct.fill_null(value=False), method=method)


def _by_pairs(
    batch: pl.Series,
    timeout: float,
    percent: Percent,
    rel_tol: float,
    abs_tol: float,
    memo: _symbolic.Memo,
) -> pl.Series:
    """Decide the batch's rows that need the engine, once per distinct (answer, gold) pair."""
    rows = batch.struct.unnest()
    needed = rows.filter(pl.col("needed"))
    if needed.height == 0:
        empty = pl.Series(batch.name, [None] * batch.len(), dtype=pl.Boolean)
        return pl.struct(correct=empty, method=empty.cast(pl.String), eager=True).alias(batch.name)
    keys = [c for c in rows.columns if c != "needed"]
    pairs = needed.select(keys).unique(maintain_order=True)
    # the engine gets each side unwrapped only: commas kept (a set, a pair, an interval)
    written = pairs.select(_unwrap(pl.col("a")), _unwrap(pl.col("b"))).to_dicts()
    asked = [{**p, **w} for p, w in zip(pairs.to_dicts(), written, strict=True)]
    verdicts = _engine_verdicts(asked, timeout, percent, rel_tol, abs_tol, memo)
    table = pairs.with_columns(
        correct=pl.Series([c for c, _ in verdicts], dtype=pl.Boolean),
        method=pl.Series([m for _, m in verdicts], dtype=pl.String),
    )
    joined = rows.join(table, on=keys, how="left", maintain_order="left", nulls_equal=True)
    keep = pl.col("needed")
    return joined.select(
        pl.struct(
            correct=pl.when(keep).then(pl.col("correct")),
            method=pl.when(keep).then(pl.col("method")),
        ).alias(batch.name)
    ).to_series()


def _engine_verdicts(
    pairs: list[dict],
    timeout: float,
    percent: Percent,
    rel_tol: float,
    abs_tol: float,
    memo: _symbolic.Memo,
) -> list[tuple[bool, str]]:
    """Ask the engine about each distinct pair that is not two literals.

    A decimal literal against a side that is not a literal is compared on its exact value
    (sent as a fraction of integers, so the engine's 6-decimal rounding of decimals does not
    apply), or with a tolerance, against the other side's numeric value.
    """
    verdicts: list[tuple[bool, str]] = [(False, "unparsed")] * len(pairs)
    asked: list[tuple[int, str, str]] = []
    valued: list[tuple[int, str, Exact, bool]] = []
    tolerant = bool(rel_tol or abs_tol)
    for i, p in enumerate(pairs):
        side = "a" if p["a_decimal"] else "b" if p["b_decimal"] else None
        if side is None:
            asked.append((i, p["a"], p["b"]))
            continue
        other = "b" if side == "a" else "a"
        literal = [p[f"{side}_{k}"] for k in _EXACT_FIELDS]
        if tolerant:
            valued.append((i, p[other], _exact(*literal[:4]), literal[4]))
            continue
        text = _exact_text(*literal)
        asked.append((i, text, p["b"]) if side == "a" else (i, p["a"], text))
    found_pairs = _symbolic.decide([(x, y) for _, x, y in asked], timeout=timeout, memo=memo)
    for (i, _, _), found in zip(asked, found_pairs, strict=True):
        verdicts[i] = found
    rel, tol = _tolerance(rel_tol), _tolerance(abs_tol)
    texts = [text for _, text, _, _ in valued]
    for (i, _, literal, pct), value in zip(
        valued, _symbolic.values(texts, timeout=timeout, memo=memo), strict=True
    ):
        if value in ("unparsed", "timeout"):
            verdicts[i] = (False, value)
            continue
        if value == "none":  # read, but not one real number
            verdicts[i] = (False, "symbolic")
            continue
        number = (Fraction(value), 0)
        scaled = (literal[0], literal[1] - 2)  # a percent literal as a fraction
        tries = {"number": [literal], "fraction": [scaled], "either": [literal, scaled]}
        tries = tries[percent] if pct else [literal]
        verdicts[i] = (any(_within(t, number, rel, tol) for t in tries), "symbolic")
    return verdicts


@contextlib.contextmanager
def _engine_missing_in_two_lines() -> Iterator[None]:
    """Say that the symbolic engine is missing in two lines, not with Polars' expression dump."""
    try:
        yield
    except ImportError as error:
        if _symbolic.install_hint() not in str(error):
            raise
        raise ImportError(_symbolic.missing_message()) from None


with_equivalent = _base.frame_function(
    EQUIVALENT.columns,
    equivalent,
    """Add ``correct``, ``expectation`` and ``method``; see :func:`equivalent`.

    Same rows, same order, input columns untouched; a LazyFrame stays lazy. On a DataFrame a
    bad expected value raises now; on a LazyFrame at ``collect()``.
    """,
    guard=_engine_missing_in_two_lines,
)
