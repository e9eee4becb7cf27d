r"""A scalar reference of SPEC §9's literal path: one text at a time, with ``fractions.Fraction``.

Written independently of gradeframe's column operations (the ``regex`` module and Python's
exact rationals), so that the property tests hold the vectorized reading and comparison to it.
"""

from __future__ import annotations

from fractions import Fraction

import regex

_DELIMITERS = regex.compile(r"(?s)^(?:\$\$(.*)\$\$|\$(.*)\$|\\\((.*)\\\)|\\\[(.*)\\\])$")
_BOXED = regex.compile(r"(?s)^\\boxed\s*\{(.*)\}$")
_TEXT = regex.compile(r"^\\(?:text|mathrm)\s*\{([^{}]*)\}$")
_SPACING = regex.compile(r"(?<!\\)\\(?:left|right)(?![a-zA-Z])|(?<!\\)\\[!,; ]|~")
# fold's thousands separators: between a digit and exactly three digits not followed by a digit
_SEPARATOR = regex.compile(r"(?<=[0-9])(?:[,\u00a0\u2007\u2009\u202f]|\{,\})(?=[0-9]{3}(?![0-9]))")
_SIGN = r"[+\-\u2010-\u2013\u2212]"
_POWER = r"\s*\^\s*(?:\{\s*([+-]?[0-9]+)\s*\}|([0-9]))"
_SUFFIX = (
    r"\s*(?:(?P<pct>\\?%)|\\(?:text|mbox)\s*\{[^{}0-9]*\}|\^\s*\\circ|\^\s*\{\s*\\circ\s*\}|°)?"
)
_HEAD = rf"^(?P<s1>{_SIGN})?\s*(?:\\?\$\s*)?(?P<s2>{_SIGN})?\s*"
_DECIMAL = regex.compile(
    _HEAD + r"(?P<m>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?:[eE](?P<x>[+-]?[0-9]+)|\s*(?:\\times|\\cdot|×|·)\s*10" + _POWER + r")?" + _SUFFIX + "$"
)
_POWER_OF_TEN = regex.compile(_HEAD + r"10" + _POWER + _SUFFIX + "$")
_SLASH = regex.compile(_HEAD + r"(?P<a>[0-9]+)\s*/\s*(?P<b>[0-9]+)" + _SUFFIX + "$")
_FRAC = regex.compile(
    _HEAD + r"\\[dt]?frac\s*(?:\{\s*(?P<a>[+-]?[0-9]+)\s*\}|(?P<a1>[0-9]))"
    r"\s*(?:\{\s*(?P<b>[+-]?[0-9]+)\s*\}|(?P<b1>[0-9]))" + _SUFFIX + "$"
)


def read(text: str) -> str:
    """Return a side's reading: trimmed, unwrapped, spacing removed (not folded)."""
    text = text.strip()
    text = text.removesuffix(".").rstrip()
    for pattern in (_DELIMITERS, _BOXED, _TEXT):
        match = pattern.match(text)
        if match:
            text = next((g for g in match.groups() if g is not None), "")
        text = text.strip()
    return _SPACING.sub("", text).strip()


def literal(text: str) -> tuple[Fraction, bool] | None:
    """Return (value, is_percent) of a literal, or None when the side is not a literal."""
    body = _SEPARATOR.sub("", read(text))  # fold's separators, anywhere (as §1)
    for pattern in (_POWER_OF_TEN, _DECIMAL, _SLASH, _FRAC):
        match = pattern.match(body)
        if match:
            break
    else:
        return None
    groups = match.groupdict()
    if groups["s1"] and groups["s2"]:
        return None
    negative = (groups["s1"] or groups["s2"] or "+") != "+"
    if pattern is _POWER_OF_TEN:
        value = Fraction(10) ** int(match.group(3) or match.group(4))
    elif pattern is _DECIMAL:
        mantissa = groups["m"]
        power = next((g for g in (groups["x"], match.group(4), match.group(5)) if g), "0")
        value = Fraction(mantissa) * Fraction(10) ** int(power)
    else:
        top = groups["a"] if groups["a"] is not None else groups.get("a1")
        bottom = groups["b"] if groups["b"] is not None else groups.get("b1")
        if int(bottom) == 0:
            return None
        value = Fraction(int(top), int(bottom))
    return (-value if negative else value), groups["pct"] is not None


def equivalent(
    actual: str, expected: str, *, percent: str = "either", rel_tol: float = 0, abs_tol: float = 0
) -> bool | None:
    """Return whether two literals are equivalent (None when either side is not a literal)."""
    a, b = literal(actual), literal(expected)
    if a is None or b is None:
        return None
    (va, pa), (vb, pb) = a, b

    # the tolerances are the decimals they are written as (1e-30 is 10^-30), and the test is
    # math.isclose's, on exact values
    rel, tol = Fraction(repr(float(rel_tol))), Fraction(repr(float(abs_tol)))

    def same(x: Fraction, y: Fraction) -> bool:
        return abs(x - y) <= max(rel * max(abs(x), abs(y)), tol)

    if pa == pb:  # two percents compare their numbers
        return same(va, vb)
    scaled = (va / 100 if pa else va), (vb / 100 if pb else vb)
    if percent == "number":
        return same(va, vb)
    if percent == "fraction":
        return same(*scaled)
    return same(va, vb) or same(*scaled)
