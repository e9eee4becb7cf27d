r"""Answer extraction: pull the final answer out of a longer reply before scoring it.

Four expression functions, each ``column name or pl.Expr -> pl.Expr``: null in gives null out,
and a reply without an answer in the asked-for form gives null, so that ``answer_contains`` then
reports ``parse_failure``.

- :func:`extract_answer`: the text after the last line-initial ``ANSWER:`` (or another marker).
- :func:`extract`: a capture group of the first or last match of a regular expression.
- :func:`extract_number`: the first or last number, as a Float64.
- :func:`extract_boxed`: the content of the last ``\boxed{...}``.

All four are Polars string expressions (no Python loop over rows). The one exception is
:func:`extract` with a pattern Polars cannot compile (lookaround, backreferences): then the
``regex`` module runs the pattern once per distinct text, as ``matches`` does.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Final, Literal, TypeAlias

import polars as pl
import regex

from gradeframe._delegate import takes_text
from gradeframe._inputs import IntoExpr, keep_name, to_expr
from gradeframe.fold import fold

# The pattern handling of ``matches`` (flags, Polars' acceptance, the ``regex`` fallback that
# reads "$" as Rust does, the search time limit), so that both read a pattern alike.
from gradeframe.matchers.matches import (
    PatternLike,
    compile_fallback,
    for_polars,
    pattern_source,
    per_distinct,
    polars_accepts,
)

__all__ = ["extract", "extract_answer", "extract_boxed", "extract_number"]

Which: TypeAlias = Literal["first", "last"]

_WHICH: Final = ("first", "last")

# --------------------------------------------------------------------------------------------
# Pattern pieces (Polars' regex engine: no lookaround)
# --------------------------------------------------------------------------------------------

#: Markdown marks that may open a marker line: a quote (">") or list bullet ("-", "+"), a
#: heading ("## "), then bold or italics ("**").
_LINE_LEAD: Final = r"[ \t]*(?:[>+-][ \t]*)*(?:#{1,6}[ \t]*)?[*_]*[ \t]*"

#: Characters dropped from both ends of an extracted answer: white space and markdown bold or
#: italic marks ("**42**" is 42).
_ANSWER_STRIP: Final = " \t\r\n*_"

#: A markdown heading mark that opens the answer ("### 42"; "#42" is no heading).
_HEADING_START: Final = r"\A#{1,6}[ \t]+"

#: Markdown marks that close the answer before its final punctuation ("**42**." is "42.").
_MARKS_BEFORE_END: Final = r"[*_]+([.,;:!?]+)\z"

#: A number as written after folding: digits (any Unicode decimal digit: "１２３", "٣"), an
#: optional decimal part (several dotted parts are read as one token, "1.2.3", which is then no
#: number), or a bare decimal part (".5"), and an optional exponent. Folded text is lower case,
#: so "1.5E3" arrives as "1.5e3".
_NUMBER: Final = r"(?:\d+(?:\.\d+)*|\.\d+(?:\.\d+)*)(?:e[+-]?\d+)?"


#: A number with its sign. A "-" is a minus sign only where it does not follow a letter, a digit
#: or a mark ("12-15" is a range, "COVID-19" a hyphen). Without lookbehind, the character before
#: the "-" is matched too (and dropped by :data:`_SIGNED_VALUE`). A currency sign may stand
#: between the minus and the digits ("-$5").
_NUMBER_TOKEN: Final = r"(?:(?:\A|[^\p{L}\p{N}\p{M}])-\p{Sc}?)?" + _NUMBER

#: LaTeX's thousands separators, "{,}" and the thin space "\,": "9{,}500". They become ","
#: before folding, whose separator rule then reads them as any other comma.
_LATEX_SEPARATOR: Final = r"\{,\}|\\,"

#: The signed number inside a token, once currency signs are gone and its digits are ASCII.
_SIGNED_VALUE: Final = r"(-?(?:[0-9]|\.[0-9]).*)\z"

#: How deep braces may nest inside ``\boxed{...}``: ``\boxed{\frac{a}{b^{2}}}`` is depth 2.
BOXED_DEPTH: Final = 8

#: Two noncharacters marking each match when the last match of a pattern is wanted. They are
#: reserved for a program's internal use and never interchanged, so replies do not hold them.
_OPEN, _CLOSE = "\ufdd0", "\ufdd1"


#: A character of a box's content that is not a brace: any character but a brace or a
#: backslash, or a backslash and the character after it (so the escaped braces "\{" and "\}"
#: are text, not nesting).
_BOX_TEXT: Final = r"(?:[^{}\\]|\\.)*"


def _balanced(depth: int) -> str:
    """Text whose braces are balanced and nest at most ``depth`` deep (a regex, no recursion)."""
    inner = _BOX_TEXT
    for _ in range(depth):
        inner = _BOX_TEXT + r"(?:\{" + inner + r"\}" + _BOX_TEXT + r")*"
    return inner


def _box(command: str) -> str:
    r"""Match the last ``\command{...}`` (group 1) or ``\command 5`` (group 2) of a text.

    The greedy ``.*`` in front makes it the last one: the regex engine takes the longest prefix
    after which a complete box still follows (so a box never closed is passed over).
    """
    return (
        r"(?s)\A.*\\"
        + command
        + r"(?:[ \t]*\{("
        + _balanced(BOXED_DEPTH)
        + r")\}|[ \t]+([^\s${}]+))"
    )


#: The last ``\boxed{...}`` (group 1), or ``\boxed 5`` (group 2).
_BOXED: Final = _box("boxed")
#: The same for ``\fbox``, read only in a text without ``\boxed`` (as the MATH code does).
_FBOX: Final = _box("fbox")


#: The end of the code points that can be decimal digits (the Basic and Supplementary
#: Multilingual Planes).
_DIGIT_PLANES_END: Final = 0x20000


@functools.cache
def _other_digits() -> tuple[list[str], list[str]]:
    """Return the decimal digits other than 0-9 (category Nd) and the ASCII digit of each.

    A token's digits are made ASCII before it is read as a Float64. Built on first use, not at
    import. Every decimal digit lies in the first two planes (the others hold ideographs, tags
    and private use), so only those are looked at.
    """
    others = [
        chr(code)
        for code in range(_DIGIT_PLANES_END)
        if unicodedata.category(chr(code)) == "Nd" and not "0" <= chr(code) <= "9"
    ]
    return others, [str(unicodedata.digit(digit)) for digit in others]


# --------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------


def _check_which(which: object) -> None:
    if which not in _WHICH:
        msg = f"`which` must be 'first' or 'last', got {which!r}"
        raise ValueError(msg)


def _text(expr: IntoExpr) -> pl.Expr:
    return to_expr(expr, "expr").cast(pl.String)


def _none_if_empty(text: pl.Expr) -> pl.Expr:
    return pl.when(text != "").then(text)


# --------------------------------------------------------------------------------------------
# extract_answer
# --------------------------------------------------------------------------------------------


def _answer_pattern(marker: str) -> str:
    """Match the last marker line: group 1 is the rest of that line, group 2 the text after."""
    wordy = marker[-1].isalnum() or marker[-1] == "_"
    escaped = re.escape(marker)
    # After a word ("Answer") a colon is required, after symbols ("####") it is optional; the
    # fullwidth colon "：" counts ("Answer：42").
    colon = r"[ \t]*[*_]*[ \t]*[:：]" if wordy else r"[ \t]*[*_]*[ \t]*[:：]?"
    final = r"(?:final[ \t]+)?" if marker[0].isalnum() else ""
    # A hedge that repeats the marker ("Final answer: ANSWER: D") is read past the repeat.
    repeat = r"(?:[ \t]*[*_]*[ \t]*" + final + escaped + colon + ")*"
    return (
        r"(?is)\A.*(?:\A|\n)"
        + _LINE_LEAD
        + final
        + escaped
        + colon
        + repeat
        + r"([^\n]*)(?:\n(.*))?\z"
    )


def extract_answer(expr: IntoExpr, *, marker: str = "answer") -> pl.Expr:
    r"""Return the answer given after the last line-initial ``<marker>:`` of a reply.

    The marker is matched in any case, at the start of a line (after white space and markdown
    heading or bold marks), optionally after "final" ("Final answer:" counts), and followed by a
    colon (":" or the fullwidth "："). The answer is the rest of that line; when that is empty,
    the next non-empty line.
    Surrounding white space and markdown bold or italic marks are dropped ("**Answer:** **42**"
    gives "42"). A marker of symbols needs no colon: ``marker="####"`` reads GSM8K's "#### 42".
    The last marker line wins, so a reply that corrects itself is read at its correction.

    Parameters
    ----------
    expr
        A column name or a String expression (the reply).
    marker
        The word or symbols that introduce the answer.

    Returns
    -------
    pl.Expr
        A String expression: null where the reply is null or has no answer after a marker.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "reply": [
    ...             "Let me think.\nANSWER: 12",
    ...             "Answer: 7\nWait, that is wrong.\n**Final Answer:** **8**",
    ...             "The answer is 12.",
    ...             "Answer:\n\n  Paris",
    ...             None,
    ...         ]
    ...     }
    ... )
    >>> df.select(gf.extract_answer("reply"))
    shape: (5, 1)
    ┌───────┐
    │ reply │
    │ ---   │
    │ str   │
    ╞═══════╡
    │ 12    │
    │ 8     │
    │ null  │
    │ Paris │
    │ null  │
    └───────┘
    """
    if not isinstance(marker, str):
        msg = f"`marker` must be a str, got {type(marker).__name__}: {marker!r}"
        raise TypeError(msg)
    if not marker.strip() or "\n" in marker or marker != marker.strip():
        msg = (
            "`marker` must be a non-blank word or symbols on one line, without surrounding "
            f"white space (such as 'answer' or '####'), got {marker!r}"
        )
        raise ValueError(msg)
    text = _text(expr)
    found = text.str.extract_groups(_answer_pattern(marker))
    rest = found.struct.field("1").str.strip_chars(_ANSWER_STRIP)
    after = found.struct.field("2").str.extract(r"\A\s*([^\n]*)", 1)
    answer = pl.when(rest != "").then(rest).otherwise(after.str.strip_chars(_ANSWER_STRIP))
    # a heading mark before the value ("### 42" on the next line) and closing marks before the
    # final punctuation ("**42**." is "42.")
    answer = answer.str.replace(_HEADING_START, "").str.strip_chars_start(_ANSWER_STRIP)
    answer = answer.str.replace(_MARKS_BEFORE_END, "${1}")
    return keep_name(_none_if_empty(answer), text)


# --------------------------------------------------------------------------------------------
# extract
# --------------------------------------------------------------------------------------------


def _has_assertion(source: str) -> bool:
    r"""Tell whether a pattern may look outside its match (``^``, ``$``, ``\b``, ``\A``, ...)."""
    i, in_class = 0, False
    while i < len(source):
        char = source[i]
        if char == "\\":
            if not in_class and source[i + 1 : i + 2] in ("b", "B", "A", "z", "Z", "<", ">"):
                return True
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            i += 1
            for literal in ("^", "]"):
                if source[i : i + 1] == literal:
                    i += 1
            continue
        elif char in "^$":
            return True
        i += 1
    return False


def _group_count(pattern: str) -> int:
    return len(pl.select(pl.lit("").str.extract_groups(pattern)).to_series().dtype.fields)


def _polars_pattern(source: str, flags: int) -> str | None:
    """Return the pattern as Polars runs it, or None when only ``regex`` can run it."""
    polars_pattern = for_polars(source, flags)
    if polars_pattern is None or not polars_accepts(polars_pattern):
        return None
    return polars_pattern


def _extract_distinct(
    compiled: regex.Pattern[str], group: int, which: Which, text: pl.Series
) -> pl.Series:
    """Run a ``regex`` pattern once per distinct text and spread the captures back."""

    def capture(value: str, timeout: float) -> str | None:
        found = list(compiled.finditer(value, timeout=timeout))
        match = (found[0] if which == "first" else found[-1]) if found else None
        return match.group(group) or None if match else None

    return per_distinct(
        text, capture, pl.String(), shown=compiled.pattern, where="`pattern`", on="text"
    )


def extract(
    expr: IntoExpr, pattern: PatternLike, *, group: int = 1, which: Which = "last"
) -> pl.Expr:
    r"""Return a capture group of the first or last match of a regular expression.

    Polars' (Rust) regex semantics: ``\d`` and ``\w`` are Unicode, ``$`` is the very end of the
    text unless ``(?m)`` is set. A pattern Polars rejects (lookaround, backreferences) runs on
    the ``regex`` module instead, once per distinct text, with ``$`` meaning the same. Matches
    are found left to right without overlapping, as ``re.finditer`` does.

    Parameters
    ----------
    expr
        A column name or a String expression.
    pattern
        A regular expression (str), or a compiled ``re.Pattern``/``regex.Pattern`` (its flags
        are kept).
    group
        The capture group to return; 0 is the whole match.
    which
        ``"last"`` (default: the answer a reply ends on) or ``"first"``.

    Returns
    -------
    pl.Expr
        A String expression: null where the text is null, nothing matches, or the group did not
        take part in the match or captured an empty text.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame({"reply": ["x = 3, then x = 5", "no value", None]})
    >>> df.select(
    ...     last=gf.extract("reply", r"x = (\d+)"),
    ...     first=gf.extract("reply", r"x = (\d+)", which="first"),
    ... )
    shape: (3, 2)
    ┌──────┬───────┐
    │ last ┆ first │
    │ ---  ┆ ---   │
    │ str  ┆ str   │
    ╞══════╪═══════╡
    │ 5    ┆ 3     │
    │ null ┆ null  │
    │ null ┆ null  │
    └──────┴───────┘
    """
    _check_which(which)
    if isinstance(group, bool) or not isinstance(group, int) or group < 0:
        msg = f"`group` must be a capture group number (an int, 0 or more), got {group!r}"
        raise ValueError(msg)
    source, flags = pattern_source(pattern)
    text = _text(expr)
    polars_pattern = _polars_pattern(source, flags)
    if polars_pattern is None:
        compiled = compile_fallback(source, flags, "`pattern`")
        groups = compiled.groups
    else:
        groups = _group_count(polars_pattern)
    if group > groups:
        msg = (
            f"`group` is {group}, but the pattern {source!r} has {groups} capture group(s); "
            "group=0 is the whole match"
        )
        raise ValueError(msg)
    if polars_pattern is None:
        run = functools.partial(_extract_distinct, compiled, group, which)
        return keep_name(text.map_batches(run, return_dtype=pl.String, is_elementwise=True), text)
    if which == "first":
        found = text.str.extract(polars_pattern, group)
    elif not _has_assertion(polars_pattern):
        # Without assertions a match depends only on the text it covers, so the last match,
        # searched again on its own, gives the same groups.
        found = text.str.extract_all(polars_pattern).list.last().str.extract(polars_pattern, group)
    else:
        # Each match's group wrapped in two markers, then the last wrapped text: the matches of
        # a left-to-right search of the whole text, so each assertion (\b, ^, $) sees the text
        # around its match.
        marked = text.str.replace_all(polars_pattern, f"{_OPEN}${{{group}}}{_CLOSE}")
        last = marked.str.split(_OPEN).list.last().str.split(_CLOSE).list.first()
        found = pl.when(marked.str.contains(_OPEN, literal=True)).then(last)
    return keep_name(_none_if_empty(found), text)


# --------------------------------------------------------------------------------------------
# extract_number
# --------------------------------------------------------------------------------------------


def extract_number(expr: IntoExpr, *, which: Which = "last") -> pl.Expr:
    r"""Return the first or last number in a text, as a Float64, read from the folded text.

    Folding (:func:`gradeframe.fold`) drops thousands separators ("1,204", "1 204" with a thin or
    no-break space) and turns dashes and the minus sign U+2212 into "-". A number is then
    digits (any Unicode decimal digit: "１２３" is 123) with an optional decimal part and
    exponent ("1.5e3"), or a bare decimal part (".5");
    currency signs, units and "%" around it are ignored. A "-" directly before it is a minus sign
    unless the "-" follows a letter or digit: "12-15" holds 12 and 15, "COVID-19" holds 19.
    A comma that is not a thousands separator separates numbers ("1,2" holds 1 and 2); a token
    with several decimal points ("1.2.3", a version) is no number. LaTeX's thousands separators
    count as commas ("9{,}500" and "9\,500" are 9500). Number words ("twelve") are not read.

    Parameters
    ----------
    expr
        A column name or a String expression.
    which
        ``"last"`` (default) or ``"first"``.

    Returns
    -------
    pl.Expr
        A Float64 expression: null where the text is null or holds no number.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {"reply": ["It costs $1,200.50.", "-12.0 °C", "45%", "12-15 days", "twelve", None]}
    ... )
    >>> df.select(
    ...     last=gf.extract_number("reply"), first=gf.extract_number("reply", which="first")
    ... )
    shape: (6, 2)
    ┌────────┬────────┐
    │ last   ┆ first  │
    │ ---    ┆ ---    │
    │ f64    ┆ f64    │
    ╞════════╪════════╡
    │ 1200.5 ┆ 1200.5 │
    │ -12.0  ┆ -12.0  │
    │ 45.0   ┆ 45.0   │
    │ 15.0   ┆ 12.0   │
    │ null   ┆ null   │
    │ null   ┆ null   │
    └────────┴────────┘
    """
    _check_which(which)
    text = _text(expr)
    values = (
        fold(text.str.replace_all(_LATEX_SEPARATOR, ","))
        .str.extract_all(_NUMBER_TOKEN)
        .list.eval(
            pl.element()
            .str.replace_all(r"\p{Sc}", "")
            .str.replace_many(*_other_digits())
            .str.extract(_SIGNED_VALUE, 1)
            .cast(pl.Float64, strict=False)
            .drop_nulls()
        )
    )
    number = values.list.first() if which == "first" else values.list.last()
    return keep_name(number, text)


# --------------------------------------------------------------------------------------------
# extract_boxed
# --------------------------------------------------------------------------------------------


@takes_text
def extract_boxed(expr: IntoExpr) -> pl.Expr:
    r"""Return the content of the last ``\boxed{...}`` in a text, nested braces kept.

    As in the MATH benchmark's answer reading, ``\fbox{...}`` counts too, but only in a text that
    has no ``\boxed``, and so does the form without braces, ``\boxed 5`` (the token after the
    space, up to white space or ``$``). Escaped braces ``\{`` and ``\}`` inside a box are text,
    not nesting (``\boxed{\{1, 2\}}`` gives ``\{1, 2\}``). Braces may nest
    :data:`BOXED_DEPTH` (8) levels deep inside the box; a box nested deeper, or one whose braces
    never close, is not read (an earlier complete box is then the last one). The content is
    trimmed of white space; an empty box (``\boxed{}``) gives null.

    Returns
    -------
    pl.Expr
        A String expression: null where the text is null or has no complete, non-empty box.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "reply": [
    ...             r"So $x = \boxed{\frac{1}{2}}$.",
    ...             r"First \boxed{3}, then \boxed{4}",
    ...             "no box",
    ...             None,
    ...         ]
    ...     }
    ... )
    >>> df.select(gf.extract_boxed("reply"))
    shape: (4, 1)
    ┌─────────────┐
    │ reply       │
    │ ---         │
    │ str         │
    ╞═════════════╡
    │ \frac{1}{2} │
    │ 4           │
    │ null        │
    │ null        │
    └─────────────┘
    """
    text = _text(expr)
    boxed = text.str.extract_groups(_BOXED)
    fbox = text.str.extract_groups(_FBOX)
    content = (
        pl.when(text.str.contains(r"\\boxed", literal=False))
        .then(pl.coalesce(boxed.struct.field("1"), boxed.struct.field("2")))
        .otherwise(pl.coalesce(fbox.struct.field("1"), fbox.struct.field("2")))
        .str.strip_chars()
    )
    return keep_name(_none_if_empty(content), text)
