"""Folding, and the number marking that lets a literal search match numbers whole.

Everything here is ``pl.Expr -> pl.Expr``. :func:`fold` is public; the marking is private and
documented here because it is the one clever part of gradeframe.

Whole numbers without lookaround
--------------------------------
Polars' regex engine has no lookaround, and compiling one regex per row is far too slow (minutes
for a million rows). So the rules of SPEC.md §2 are turned into a *literal* containment test:

1. Folded text is lower case, so it never holds an ASCII capital letter. Capitals are free to
   use as markers that can never collide with anything a user wrote: control characters,
   private-use characters and every other character stay ordinary text.
2. :func:`mark` inserts markers into gaps between characters. Each marker is a function of the
   characters around its gap:

   ``S``  before a digit that starts a number: not after a digit, ".", or a minus sign ("-" that
          does not follow a letter or digit);
   ``E``  after a digit that ends a number: not before a digit, nor before "." and a digit;
   ``N``  before a "-" that does not follow a letter, digit or ".";
   ``H``  before a "-" that follows a letter or digit (a hyphen or range dash);
   ``Q``  before a "." that does not follow a digit.

   Where two markers share a gap the order is always ``E`` then ``H``; no other pair can meet.
3. An acceptable answer becomes a *needle* (:func:`needles`): its own marking, less the markers
   at its two ends, with the boundary marker its rules demand put back: ``S`` before a leading
   digit, ``N`` before a leading "-digit", ``Q`` before a leading ".digit", ``E`` after a trailing
   digit. The needle occurs in the marked answer exactly where the acceptable answer occurs with
   the required boundaries.

One case needs a second needle: an acceptable answer ending in a digit and "." ("12.") has a gap
whose ``E`` depends on the character after it in the answer, so both spellings are tried.

Marking costs several passes over the text, so answer_contains first checks the rules on the
two characters around the first literal occurrence (``answer._check_occurrence``) and marks only
the rows where that occurrence breaks a rule and another occurrence follows (``answer._rescan``,
on those rows alone).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import polars as pl

from gradeframe._inputs import IntoExpr, keep_name, to_expr
from gradeframe._subset import on_rows

__all__ = ["fold"]

#: Dashes that fold to "-": hyphen, non-breaking hyphen, figure dash, en dash, minus sign.
DASHES: Final = "[\u2010\u2011\u2012\u2013\u2212]"

#: Thousands separators: comma, no-break space, figure space, thin space, narrow no-break space.
SEPARATORS: Final = "[,\u00a0\u2007\u2009\u202f]"

#: A separator between a digit and exactly three digits. The fourth group is "not a digit or the
#: end"; it is consumed, so a chain "1,234,567" needs two passes (see :func:`_drop_separators`).
_SEPARATOR_RE: Final = r"(\d)" + SEPARATORS + r"(\d{3})(\D|$)"
#: Whether a text may hold a separator to drop (no capture groups: a fast scan).
_HAS_SEPARATOR_RE: Final = r"\d" + SEPARATORS + r"\d{3}"
#: The same in an ASCII text, where digits are ASCII and the only separator is ",".
_HAS_ASCII_SEPARATOR_RE: Final = "[0-9],[0-9]{3}"
_ASCII_SEPARATOR_RE: Final = "([0-9]),([0-9]{3})([^0-9]|$)"

#: Unicode White_Space, less the plain space, which is what runs fold to.
_OTHER_WHITE_SPACE: Final = (
    "[\t\n\x0b\x0c\r\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
)

#: The white space an ASCII text can hold, less the plain space.
_ASCII_WHITE_SPACE: Final = "[\t-\r]"

#: The folded label of an unanswerable item.
NOT_IN_DOCUMENT_LABEL: Final = "not_in_document"

#: Marker letters (see the module docstring). Folded text never holds an ASCII capital.
MARKERS: Final = "EHNQS"


def fold(expr: IntoExpr) -> pl.Expr:
    r"""Fold text the way answers and acceptable answers are compared.

    In order: lower case; the dashes U+2010 to U+2013 and U+2212 to "-"; thousands separators
    (",", U+00A0, U+2007, U+2009, U+202F between a digit and exactly three digits) dropped; every
    run of white space to one space, and the ends trimmed. Null stays null.

    Parameters
    ----------
    expr
        A column name or a String expression.

    Returns
    -------
    pl.Expr
        A String expression.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame({"a": ["  Sheffield made\n1,204 units", "1\u202f234\u2212567", None]})
    >>> df.select(gf.fold("a"))
    shape: (3, 1)
    ┌───────────────────────────┐
    │ a                         │
    │ ---                       │
    │ str                       │
    ╞═══════════════════════════╡
    │ sheffield made 1204 units │
    │ 1234-567                  │
    │ null                      │
    └───────────────────────────┘
    """
    # Most texts are ASCII: then no dash and no white space but "\t" to "\r" can need folding,
    # and a separator can only be "," between ASCII digits, which a simpler regex finds. The
    # separator and white-space steps run only on the texts that need them (``on_rows``). The
    # steps are struct fields, each computed once.
    text, wide = pl.field("text"), pl.field("wide")
    lower = to_expr(expr, "expr").str.to_lowercase()
    staged = pl.struct(text=lower).struct.with_fields(
        wide=text.str.len_chars() != text.str.len_bytes()
    )
    staged = staged.struct.with_fields(text=text.str.replace_all(DASHES, "-"))
    staged = staged.struct.with_fields(
        text=_where(~wide & text.str.contains(_HAS_ASCII_SEPARATOR_RE), _drop_ascii_separators)
    )
    staged = staged.struct.with_fields(
        text=_where(wide & _only(wide, text).str.contains(_HAS_SEPARATOR_RE), _drop_separators)
    )
    staged = staged.struct.with_fields(
        text=_where(
            wide | text.str.contains(_ASCII_WHITE_SPACE),
            lambda text: text.str.replace_all(_OTHER_WHITE_SPACE, " "),
        )
    )
    folded = staged.struct.field("text").str.replace_all("  +", " ").str.strip_chars(" ")
    return keep_name(folded, lower)  # the caller's column name, not the struct field's


def _where(needed: pl.Expr, step: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
    """Apply a step to the struct field ``text`` where needed (on those rows alone)."""
    return on_rows(
        needed,
        {"text": pl.field("text")},
        step(pl.col("text")),
        otherwise=lambda frame: frame.get_column("text"),
        dtype=pl.String(),
    )


def _only(condition: pl.Expr, text: pl.Expr) -> pl.Expr:
    """Return the text where the condition holds, else an empty text (a regex skips it)."""
    return pl.when(condition).then(text).otherwise(pl.lit(""))


def _drop_ascii_separators(text: pl.Expr) -> pl.Expr:
    """Drop "," between ASCII digits, as :func:`_drop_separators` does in an ASCII text."""
    return _drop(text, _ASCII_SEPARATOR_RE)


def _drop_separators(text: pl.Expr) -> pl.Expr:
    """Drop the thousands separators of a text."""
    return _drop(text, _SEPARATOR_RE)


def _drop(text: pl.Expr, pattern: str) -> pl.Expr:
    # Pass 1 turns every separator it can see into the marker "Z"; a separator whose left digit
    # was consumed by the previous match is missed, but then its neighbours are already "Z",
    # which reads as "not a digit" exactly like the separator did, so pass 2 finds it.
    text = text.str.replace_all(pattern, "${1}Z${2}${3}")
    text = text.str.replace_all(pattern, "${1}${2}${3}")
    return text.str.replace_all("Z", "", literal=True)


def mark(folded: pl.Expr) -> pl.Expr:
    """Insert the number markers into folded text (see the module docstring)."""
    text = folded.str.replace_all("-", "N-", literal=True)
    text = text.str.replace_all(r"([\p{L}\d])N", "${1}H")  # a dash after a word is a hyphen
    text = text.str.replace_all(".N", ".", literal=True)  # "-" after "." is neither
    text = text.str.replace_all(".", "Q.", literal=True)
    text = text.str.replace_all(r"\d+", "S${0}E")
    # Take back the markers whose context forbids them. Leftmost-first, so "EQ.S" beats "EQ".
    return text.str.replace_many(
        ["EQ.S", "EQ", "E.S", ".-S", ".S", "N-S"],
        [".", "E", ".", ".-", ".", "N-"],
        leftmost=True,
    )


def needles(folded_ref: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    """Return the needle and the second needle (null unless needed) of folded acceptable answers."""
    core = mark(folded_ref).str.strip_chars(MARKERS)
    left = (
        pl.when(folded_ref.str.contains(r"^\d"))
        .then(pl.lit("S"))
        .when(folded_ref.str.contains(r"^-\d"))
        .then(pl.lit("N"))
        .when(folded_ref.str.contains(r"^\.\d"))
        .then(pl.lit("Q"))
        .otherwise(pl.lit(""))
    )
    right = pl.when(folded_ref.str.contains(r"\d$")).then(pl.lit("E")).otherwise(pl.lit(""))
    first = left + core + right
    second = pl.when(folded_ref.str.contains(r"\d\.$")).then(
        left + core.str.strip_suffix("E.") + pl.lit(".")
    )
    return first, second
