r"""Folding, and the number marking that lets a literal search match numbers whole.

Everything here is ``pl.Expr -> pl.Expr``. :func:`fold` is public; the marking is private and
documented here because it is the one clever part of gradeframe.

Whole numbers without lookaround
--------------------------------
Polars' regex engine has no lookaround, and compiling one regex per row is far too slow (minutes
for a million rows). So the whole-number rules of :func:`gradeframe.answer_contains` are turned
into a *literal* containment test:

1. Folded text is lower case, so it never holds an ASCII capital letter. Capitals are free to
   use as markers that can never collide with anything a user wrote: control characters,
   private-use characters and every other character stay ordinary text.
2. :func:`mark` inserts markers into gaps between characters. Each marker is a function of the
   characters around its gap:

   ``S``  before a digit that starts a number: not after a digit, ".", or a minus sign ("-" that
          does not follow a word character);
   ``E``  after a digit that ends a number: not before a digit, nor before "." and a digit;
   ``N``  before a "-" that does not follow a word character or ".";
   ``H``  before a "-" that follows a word character (a hyphen or range dash);
   ``Q``  before a "." that does not follow a digit.

   A *digit* is a Unicode decimal digit (``\d``, category Nd); a *word character* a letter, a
   number or a combining mark (``\p{L}``, ``\p{N}``, ``\p{M}``: "½", "²", "Ⅻ" and the accent of a
   decomposed "é" count, "_" does not).

   Where two markers share a gap the order is always ``E`` then ``H``; no other pair can meet.
3. An acceptable answer becomes a *needle* (:func:`needles`): its own marking, less the markers
   at its two ends, with the boundary marker its rules demand put back: ``S`` before a leading
   digit, ``N`` before a leading "-digit" or "-.digit", ``Q`` before a leading ".digit", ``E``
   after a trailing digit. The needle occurs in the marked answer exactly where the acceptable
   answer occurs with the required boundaries.

Whole words (``whole_words=True``) add two more markers, inserted after the number markers by
:func:`mark_words`:

   ``W``  before a letter that does not follow a word character;
   ``Y``  after a letter (and any combining marks on it) that is not followed by a word character.

   Here the number markers count as what they stand next to: ``E`` (after a digit) is a word
   character, ``H`` and ``Q`` (before "-" and ".") are not, and ``S`` (before a digit) is one.
   ``W`` always sits right before its letter and ``Y`` right after its letter, before any ``H``
   or ``Q`` in the same gap, so the order in a gap is again fixed. An acceptable answer that
   begins with a letter gets ``W`` at its left end, one that ends with a letter (maybe followed
   by combining marks) ``Y`` at its right end.

One case needs a second needle: an acceptable answer ending in a digit and "." ("12.") has a gap
whose ``E`` depends on the character after it in the answer, so both spellings are tried.

Marking costs several passes over the text, so answer_contains first checks the rules on the
two characters around the first literal occurrence (``_containment._check_occurrence``) and
marks only the rows where that occurrence breaks a rule and another occurrence follows
(``_containment._rescan``, on those rows alone).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import polars as pl

from gradeframe._delegate import takes_text
from gradeframe._inputs import IntoExpr, keep_name, to_expr
from gradeframe._subset import on_rows

__all__ = ["fold"]

#: Dashes that fold to "-": hyphen, non-breaking hyphen, figure dash, en dash, minus sign.
DASHES: Final = "[\u2010\u2011\u2012\u2013\u2212]"

#: Thousands separators: comma, no-break space, figure space, thin space, narrow no-break space,
#: and LaTeX's "{,}" ("9{,}500").
SEPARATORS: Final = "(?:[,\u00a0\u2007\u2009\u202f]|\\{,\\})"

#: A separator between a digit and exactly three digits. The fourth group is "not a digit or the
#: end"; it is consumed, so a chain "1,234,567" needs two passes (see :func:`_drop_separators`).
_SEPARATOR_RE: Final = r"(\d)" + SEPARATORS + r"(\d{3})(\D|$)"
#: Whether a text may hold a separator to drop (no capture groups: a fast scan).
_HAS_SEPARATOR_RE: Final = r"\d" + SEPARATORS + r"\d{3}"
#: The same in an ASCII text, where digits are ASCII and the only separator is ",".
_HAS_ASCII_SEPARATOR_RE: Final = r"[0-9](?:,|\{,\})[0-9]{3}"
_ASCII_SEPARATOR_RE: Final = r"([0-9])(?:,|\{,\})([0-9]{3})([^0-9]|$)"

#: Unicode White_Space, less the plain space, which is what runs fold to.
_OTHER_WHITE_SPACE: Final = (
    "[\t\n\x0b\x0c\r\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
)

#: The white space an ASCII text can hold, less the plain space.
_ASCII_WHITE_SPACE: Final = "[\t-\r]"

#: A word character: a letter, a number or a combining mark (not "_", unlike ``\w``).
WORD: Final = r"[\p{L}\p{N}\p{M}]"

#: Every character that NFC normalization can change or that can change its neighbour: the
#: combining marks, the Hangul vowel and final jamo (they compose with a syllable before them),
#: and the characters NFC replaces (Greek oxia letters, the Ohm, Kelvin and Angstrom signs, CJK
#: compatibility ideographs, Hebrew presentation forms, ...). A text without any is already NFC,
#: so only texts with one are normalized (normalizing is slow: about 6 µs a text).
_MAY_NEED_NFC: Final = (
    "[\\p{M}"
    "\u0374\u037e\u0387\u0958-\u095f\u09dc-\u09dd\u09df\u0a33\u0a36\u0a59-\u0a5b"
    "\u0a5e\u0b5c-\u0b5d\u0f43\u0f4d\u0f52\u0f57\u0f5c\u0f69\u1161-\u1175"
    "\u11a8-\u11c2\u1f71\u1f73\u1f75\u1f77\u1f79\u1f7b\u1f7d\u1fbb\u1fbe\u1fc9\u1fcb"
    "\u1fd3\u1fdb\u1fe3\u1feb\u1fee-\u1fef\u1ff9\u1ffb\u1ffd\u2000-\u2001\u2126"
    "\u212a-\u212b\u2329-\u232a\u2adc\uf900-\ufa0d\ufa10\ufa12\ufa15-\ufa1e\ufa20"
    "\ufa22\ufa25-\ufa26\ufa2a-\ufa6d\ufa70-\ufad9\ufb1d\ufb1f\ufb2a-\ufb36"
    "\ufb38-\ufb3c\ufb3e\ufb40-\ufb41\ufb43-\ufb44\ufb46-\ufb4e\U0001d15e-\U0001d164"
    "\U0001d1bb-\U0001d1c0\U0002f800-\U0002fa1d]"
)

#: The folded label of an unanswerable item.
NOT_IN_DOCUMENT_LABEL: Final = "not_in_document"

#: Marker letters (see the module docstring). Folded text never holds an ASCII capital.
MARKERS: Final = "EHNQS"
#: The whole-word markers (see the module docstring).
WORD_MARKERS: Final = "WY"

#: A letter of the folded text in marked text (marker letters are ASCII capitals, never text).
_TEXT_LETTER: Final = r"[\p{L}--[A-Z]]"
#: Where ``Y`` goes: after a letter and its combining marks, before the end, a character that is
#: no word character, or the marker H or Q (which stand before "-" and ".").
_WORD_END_RE: Final = "(" + _TEXT_LETTER + r"\p{M}*)([^\p{L}\p{N}\p{M}]|[HQ]|$)"
#: Where ``W`` goes: before a letter, at the start or after a character that is no word
#: character (the number marker E, after a digit, is one; no other marker stands before a letter).
_WORD_START_RE: Final = r"(^|[^\p{L}\p{N}\p{M}])(" + _TEXT_LETTER + ")"
#: An acceptable answer that begins with a letter: the whole-word rule holds at its start.
LETTER_FIRST: Final = r"^\p{L}"
#: An acceptable answer that ends with a letter, maybe followed by combining marks ("café"
#: decomposed, a Devanagari vowel sign): the whole-word rule holds at its end.
LETTER_LAST: Final = r"\p{L}\p{M}*$"


@takes_text
def fold(expr: IntoExpr) -> pl.Expr:
    r"""Fold text the way answers and acceptable answers are compared.

    In order: null stays null; Unicode NFC normalization (a decomposed "é" equals the composed
    one), then lower case (no case folding: "ß" stays "ß"; no NFKC: "x²" stays "x²"); the dashes
    U+2010 to U+2013 and the minus sign U+2212 become "-"; a thousands separator (",", no-break
    space U+00A0, figure space U+2007, thin space U+2009, narrow no-break space U+202F, LaTeX's
    "{,}") between a digit and a group of exactly three digits not followed by another digit is
    dropped (a plain space is kept: "3 100" stays; "9{,}500" is "9500"); every run of white
    space becomes one space, and the ends are trimmed.

    Returns
    -------
    pl.Expr
        A String expression.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {"a": ["  Sheffield made\n1,204 units", "1\u2009234\u2212567", "Cafe\u0301", None]}
    ... )
    >>> df.select(gf.fold("a"))
    shape: (4, 1)
    ┌───────────────────────────┐
    │ a                         │
    │ ---                       │
    │ str                       │
    ╞═══════════════════════════╡
    │ sheffield made 1204 units │
    │ 1234-567                  │
    │ café                      │
    │ null                      │
    └───────────────────────────┘
    """
    # Most texts are ASCII: then nothing needs NFC, no dash and no white space but "\t" to "\r"
    # can need folding, and a separator can only be "," between ASCII digits, which a simpler
    # regex finds. The NFC, separator and white-space steps run only on the texts that need them
    # (``on_rows``). NFC comes first, before lower case: the other order differs where lower
    # case makes a pair that NFC composes ("T" and a combining diaeresis: "ẗ" becomes "ẗ").
    # The steps are struct fields, each computed once.
    text, wide = pl.field("text"), pl.field("wide")
    given = to_expr(expr, "expr")
    staged = pl.struct(text=given).struct.with_fields(
        wide=text.str.len_chars() != text.str.len_bytes()
    )
    staged = staged.struct.with_fields(
        text=_where(wide & _only(wide, text).str.contains(_MAY_NEED_NFC), _nfc)
    )
    staged = staged.struct.with_fields(text=text.str.to_lowercase())
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
    return keep_name(folded, given)  # the caller's column name, not the struct field's


def _where(needed: pl.Expr, step: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
    """Apply a step to the struct field ``text`` where needed (on those rows alone)."""
    return on_rows(
        needed,
        {"text": pl.field("text")},
        step(pl.col("text")),
        otherwise=lambda frame: frame.get_column("text"),
        dtype=pl.String(),
    )


def _nfc(text: pl.Expr) -> pl.Expr:
    """Normalize to NFC (run by :func:`fold` on the texts that may need it alone)."""
    return text.str.normalize("NFC")


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
    text = text.str.replace_all(f"({WORD})N", "${1}H")  # after a word character: a hyphen
    text = text.str.replace_all(".N", ".", literal=True)  # "-" after "." is neither
    text = text.str.replace_all(".", "Q.", literal=True)
    text = text.str.replace_all(r"\d+", "S${0}E")
    # Take back the markers whose context forbids them. Leftmost-first, so "EQ.S" beats "EQ".
    return text.str.replace_many(
        ["EQ.S", "EQ", "E.S", ".-S", ".S", "N-S"],
        [".", "E", ".", ".-", ".", "N-"],
        leftmost=True,
    )


def mark_words(marked: pl.Expr) -> pl.Expr:
    """Insert the whole-word markers into text that :func:`mark` has marked (module docstring)."""
    # After a letter and its marks, before the end, a character that is no word character, or
    # the markers H and Q (which stand before "-" and "."); the character after is consumed,
    # which is safe: no later match can begin with it (a match begins with a letter).
    text = marked.str.replace_all(_WORD_END_RE, "${1}Y${2}")
    # Before a letter, at the start or after a character that is no word character (the number
    # marker E, after a digit, counts as one; no other marker stands before a letter).
    return text.str.replace_all(_WORD_START_RE, "${1}W${2}")


def needles(folded_ref: pl.Expr, *, whole_words: bool = False) -> tuple[pl.Expr, pl.Expr]:
    """Return the needle and the second needle (null unless needed) of folded acceptable answers.

    With ``whole_words`` the needles are those of text marked by :func:`mark_words` too.
    """
    if whole_words:
        core = mark_words(mark(folded_ref)).str.strip_chars(MARKERS + WORD_MARKERS)
        word_left = pl.when(folded_ref.str.contains(LETTER_FIRST)).then(pl.lit("W"))
        word_right = pl.when(folded_ref.str.contains(LETTER_LAST)).then(pl.lit("Y"))
    else:
        core = mark(folded_ref).str.strip_chars(MARKERS)
        word_left = word_right = None
    left = (
        pl.when(folded_ref.str.contains(r"^\d"))
        .then(pl.lit("S"))
        .when(folded_ref.str.contains(r"^-\.?\d"))
        .then(pl.lit("N"))
        .when(folded_ref.str.contains(r"^\.\d"))
        .then(pl.lit("Q"))
        .otherwise(pl.lit(""))
    )
    right = pl.when(folded_ref.str.contains(r"\d$")).then(pl.lit("E")).otherwise(pl.lit(""))
    if word_left is not None and word_right is not None:  # a letter is no digit, "-" or "."
        left = word_left.otherwise(left)
        right = word_right.otherwise(right)
    first = left + core + right
    second = pl.when(folded_ref.str.contains(r"\d\.$")).then(
        left + core.str.strip_suffix("E.") + pl.lit(".")
    )
    return first, second
