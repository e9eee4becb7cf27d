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
  ``10^(m-1)`` and ``10^(m+1)`` for ``m = digits(n) - digits(d) + e``), and else it is
  *undecided*: not decided on the literal path, but by the fallback as a non-literal pair would
  be (documented in docs/equivalence.md). Only digit strings of about 38 digits and more get
  there.

``rel_tol``/``abs_tol`` compare the Float64 values as :func:`math.isclose` does (an exact
equality is always equivalent). The symbolic fallback lives in :mod:`._symbolic`; this module
only hands it the distinct pairs that are not decided here.
"""

from __future__ import annotations

import math
from typing import Final, Literal, get_args

import polars as pl

from gradeframe._inputs import IntoExpr, Schema
from gradeframe._subset import on_rows
from gradeframe.fold import fold
from gradeframe.matchers import _base, _symbolic
from gradeframe.matchers._base import Frame, Input

__all__ = ["EQUIVALENT", "EQUIVALENT_COLUMNS", "METHODS", "equivalent", "with_equivalent"]

EQUIVALENT: Final = _base.matcher(
    "equivalent", {"actual": "mixed", "expected": "mixed"}, method=pl.String()
)
#: The columns equivalent adds, before ``prefix``.
EQUIVALENT_COLUMNS: Final = EQUIVALENT.columns

Percent = Literal["either", "number", "fraction"]
Fallback = Literal["symbolic"] | None
#: The values of ``method``: how each row was decided.
METHODS: Final = ("literal", "symbolic", "timeout", "unparsed", "text")

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
        "raw": pl.String(),  # the reading: what the symbolic engine gets (fallback=None folds it)
        "literal": pl.Boolean(),
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


def _read(text: pl.Expr) -> pl.Expr:
    r"""Trim, remove the delimiters, \boxed, \text, \left/\right, spacing and separators."""
    text = text.str.strip_chars().str.strip_suffix(".").str.strip_chars()
    for pattern, replacement in (
        (_DELIMITERS_RE, "${1}${2}${3}${4}"),
        (_BOXED_RE, "${1}"),
        (_TEXT_RE, "${1}"),
    ):
        text = text.str.replace(pattern, replacement).str.strip_chars()
    text = text.str.replace_all(_SPACING_RE, "${1}").str.strip_chars()
    return _drop_separators(text)


def reading(text: pl.Expr) -> pl.Expr:
    r"""Read a String column as equivalent does: a struct of :data:`READING` (null stays null).

    ``raw`` is the text with its wrapping removed; a literal's value is ``± n / d × 10^e``.

    Examples
    --------
    >>> import polars as pl
    >>> s = pl.Series(["$\\boxed{1{,}000}$", "-\\frac{1}{2}", "50\\%", "x+1", "0.0"])
    >>> pl.select(reading(pl.lit(s)).alias("read")).unnest("read")
    shape: (5, 7)
    ┌──────────────┬─────────┬───────┬──────┬──────┬──────┬───────┐
    │ raw          ┆ literal ┆ neg   ┆ n    ┆ d    ┆ e    ┆ pct   │
    │ ---          ┆ ---     ┆ ---   ┆ ---  ┆ ---  ┆ ---  ┆ ---   │
    │ str          ┆ bool    ┆ bool  ┆ str  ┆ str  ┆ i64  ┆ bool  │
    ╞══════════════╪═════════╪═══════╪══════╪══════╪══════╪═══════╡
    │ 1000         ┆ true    ┆ false ┆ 1    ┆ 1    ┆ 3    ┆ false │
    │ -\frac{1}{2} ┆ true    ┆ true  ┆ 1    ┆ 2    ┆ 0    ┆ false │
    │ 50\%         ┆ true    ┆ false ┆ 5    ┆ 1    ┆ 1    ┆ true  │
    │ x+1          ┆ false   ┆ null  ┆ null ┆ null ┆ null ┆ null  │
    │ 0.0          ┆ true    ┆ false ┆ 0    ┆ 1    ┆ 0    ┆ false │
    └──────────────┴─────────┴───────┴──────┴──────┴──────┴───────┘
    """
    raw = on_rows(
        text.str.contains(_NEEDS_READING_RE),
        {"raw": text},
        _read(pl.col("raw")),
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
        **{k: pl.when(keep).then(pl.field(k)) for k in ("neg", "n", "d", "e", "pct")},
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
    lengths = (
        a["n"].str.len_bytes(),
        a["d"].str.len_bytes(),
        b["n"].str.len_bytes(),
        b["d"].str.len_bytes(),
    )
    big = [pl.field(f"_{k}") for k in _BIG]
    ten = pl.lit(10, pl.Int128)
    values = (_value(a), _value(b)) if rel_tol or abs_tol else (ten, ten)

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
        ten_float = pl.lit(10.0)
        va, vb = values[0] * ten_float.pow(shift[0]), values[1] * ten_float.pow(shift[1])
        gap, largest = (va - vb).abs(), pl.max_horizontal(va.abs(), vb.abs())
        close = va.is_finite() & vb.is_finite()
        close = close & (gap <= pl.max_horizontal(largest * rel_tol, pl.lit(abs_tol)))
        return exact | close

    if percent == "number":
        verdict = equal(plain)
    elif percent == "fraction":
        verdict = equal(scaled)  # the same as plain unless one side is a percent
    else:
        # Kleene logic: an undecided plain comparison stays undecided unless scaled says true
        verdict = equal(plain) | (one_percent & equal(scaled))
    return verdict


#: The staged Int128 fields: numerator and denominator of each side.
_BIG: Final = ("an", "ad", "bn", "bd")


def _big_fields(a: dict[str, pl.Expr], b: dict[str, pl.Expr]) -> dict[str, pl.Expr]:
    """Return the numerators and denominators as Int128 (null beyond 38 digits: unused then)."""
    sides = {"an": a["n"], "ad": a["d"], "bn": b["n"], "bd": b["d"]}
    return {f"_{k}": sides[k].cast(pl.Int128, strict=False) for k in _BIG}


# --------------------------------------------------------------------------------------------
# The matcher
# --------------------------------------------------------------------------------------------


def _check_tolerance(value: object, argument: str) -> float:
    if not _base.is_number(value):
        msg = f"`{argument}` must be a number, got {type(value).__name__}: {value!r}"
        raise TypeError(msg)
    if not math.isfinite(value) or value < 0:  # type: ignore[arg-type]
        msg = f"`{argument}` must be a finite number >= 0, got {value!r}"
        raise ValueError(msg)
    return float(value)  # type: ignore[arg-type]


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
    if not math.isfinite(timeout) or timeout <= 0:  # type: ignore[arg-type]
        msg = f"`timeout` must be a finite number of seconds > 0, got {timeout!r}"
        raise ValueError(msg)
    return float(timeout)  # type: ignore[arg-type]


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

    Two literals are equivalent when their exact rational values are equal (``"0.1"`` is 1/10,
    ``"0.4999999"`` is not 1/2, ``"2/4"`` is 1/2): ``method`` ``"literal"``. With ``rel_tol`` or
    ``abs_tol``, also when ``|a - b| <= max(rel_tol * max(|a|, |b|), abs_tol)``, as
    :func:`math.isclose`. Any other pair goes to the fallback, once per distinct (actual,
    expected) pair: Math-Verify in worker processes killed after ``timeout`` seconds
    (``"symbolic"``, ``"timeout"`` or ``"unparsed"``), or with ``fallback=None`` a comparison of
    the folded readings (``"text"`` when equal, else ``"unparsed"``). Model text is never run as
    code. A null answer is not correct (``"unparsed"``); a null or blank expected value raises
    naming the row.

    Parameters
    ----------
    actual
        The answers: a column name or a String expression (numbers are read as Polars writes
        them).
    expected
        The expected answers: a column name or an expression (a literal is ``pl.lit("...")``).
    percent
        How a percent literal compares with a plain number: ``"either"`` (``"50%"`` equals 50
        and 0.5), ``"number"`` (50 only, as hendrycks MATH and PRM800K grade) or
        ``"fraction"`` (0.5 only, as inspect_ai does). Two percent literals compare their
        numbers.
    rel_tol, abs_tol
        Tolerances for two literals, as :func:`math.isclose` (0: exact).
    fallback
        ``"symbolic"`` (Math-Verify, the ``gradeframe[math]`` extra; needed only when a pair is
        not two literals) or None (folded-text comparison).
    timeout
        Seconds one symbolic pair may take before it is ``"timeout"``.
    label
        Replaces the default description ``"equivalent"`` in ``expectation``.
    prefix
        Put before each output name.
    schema
        The frame's schema, to check columns and dtypes now (the frame functions pass it).

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
    tolerances = _check_tolerance(rel_tol, "rel_tol"), _check_tolerance(abs_tol, "abs_tol")
    expectation = _base.expectation(label, "equivalent")
    arguments = {
        "actual": (actual, _base.into(actual, "actual")),
        "expected": (expected, _base.into(expected, "expected")),
    }
    return _base.expression(
        EQUIVALENT,
        arguments,
        lambda inputs: _rule(
            inputs,
            percent=percent,  # type: ignore[arg-type]
            rel_tol=tolerances[0],
            abs_tol=tolerances[1],
            fallback=fallback,  # type: ignore[arg-type]
            timeout=seconds,
        ),
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


def _rule(
    inputs: dict[str, Input],
    *,
    percent: Percent,
    rel_tol: float,
    abs_tol: float,
    fallback: Fallback,
    timeout: float,
) -> pl.Expr:
    answer = _as_text(inputs["actual"])
    truth = _as_text(inputs["expected"])
    problem = (
        pl.when(truth.is_null())
        .then(pl.lit("is null; every row needs an expected answer."))
        .when(truth.str.strip_chars() == "")
        .then(pl.lit("is blank; every row needs an expected answer."))
    )
    truth = _base.check_rows(
        pl.struct(value=truth, problem=problem), matcher="equivalent", return_dtype=pl.String
    )
    stages = pl.struct(
        a=_base.on_repeats(answer, reading, return_dtype=READING),
        b=_base.on_repeats(truth, reading, return_dtype=READING),
    )
    a = {k: pl.field("a").struct.field(k) for k in READING.to_schema()}
    b = {k: pl.field("b").struct.field(k) for k in READING.to_schema()}
    stages = stages.struct.with_fields(**_big_fields(a, b))
    stages = stages.struct.with_fields(
        verdict=pl.when(a["literal"] & b["literal"]).then(
            _literal_verdict(a, b, percent=percent, rel_tol=rel_tol, abs_tol=abs_tol)
        )
    )
    verdict = pl.field("verdict")
    missing = a["raw"].is_null()
    decided = verdict.is_not_null()
    if fallback is None:
        # the folded readings compared, on the rows the literal path left alone
        same_text = on_rows(
            ~missing & ~decided,
            {"a": a["raw"], "b": b["raw"]},
            (fold(pl.col("a")) == fold(pl.col("b"))).fill_null(value=False),
            otherwise=lambda frame: pl.repeat(False, frame.height, eager=True),
            dtype=pl.Boolean(),
        )
        method = (
            pl.when(missing)
            .then(pl.lit("unparsed"))
            .when(decided)
            .then(pl.lit("literal"))
            .when(same_text)
            .then(pl.lit("text"))
            .otherwise(pl.lit("unparsed"))
        )
        correct = pl.when(decided).then(verdict).otherwise(same_text & ~missing)
        return stages.struct.with_fields(correct=correct, method=method)
    needed = ~missing & ~decided
    symbolic = pl.struct(needed=needed, a=a["raw"], b=b["raw"]).map_batches(
        lambda batch: _by_pairs(batch, timeout),
        return_dtype=pl.Struct({"correct": pl.Boolean(), "method": pl.String()}),
        is_elementwise=True,
    )
    stages = stages.struct.with_fields(symbolic=symbolic)
    found = pl.field("symbolic").struct.field
    method = (
        pl.when(missing)
        .then(pl.lit("unparsed"))
        .when(decided)
        .then(pl.lit("literal"))
        .otherwise(found("method"))
    )
    correct = pl.when(decided).then(verdict).otherwise(found("correct").fill_null(value=False))
    return stages.struct.with_fields(correct=correct.fill_null(value=False), method=method)


def _by_pairs(batch: pl.Series, timeout: float) -> pl.Series:
    """Decide the batch's rows that need the fallback, once per distinct (answer, gold) pair."""
    rows = batch.struct.unnest().with_row_index("row")
    needed = rows.filter(pl.col("needed"))
    if needed.height == 0:
        empty = pl.Series(batch.name, [None] * batch.len(), dtype=pl.Boolean)
        return pl.struct(correct=empty, method=empty.cast(pl.String), eager=True).alias(batch.name)
    pairs = needed.select("a", "b").unique(maintain_order=True)
    verdicts = _symbolic.decide(list(zip(pairs["a"], pairs["b"], strict=True)), timeout=timeout)
    table = pairs.with_columns(
        correct=pl.Series([c for c, _ in verdicts], dtype=pl.Boolean),
        method=pl.Series([m for _, m in verdicts], dtype=pl.String),
    )
    joined = rows.join(table, on=["a", "b"], how="left", maintain_order="left")
    keep = pl.col("needed")
    return joined.select(
        pl.struct(
            correct=pl.when(keep).then(pl.col("correct")),
            method=pl.when(keep).then(pl.col("method")),
        ).alias(batch.name)
    ).to_series()


def with_equivalent(
    frame: Frame,
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
) -> Frame:
    """Add ``correct``, ``expectation`` and ``method``; see :func:`equivalent`.

    Same rows, same order, input columns untouched; a LazyFrame stays lazy. On a DataFrame a
    bad expected value raises now; on a LazyFrame at ``collect()``.
    """
    return _base.frame_result(
        EQUIVALENT,
        frame,
        prefix,
        lambda schema: equivalent(
            actual,
            expected,
            percent=percent,
            rel_tol=rel_tol,
            abs_tol=abs_tol,
            fallback=fallback,
            timeout=timeout,
            label=label,
            prefix=prefix,
            schema=schema,
        ),
    )
