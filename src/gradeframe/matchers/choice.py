r"""choice: the option letters a multiple-choice answer chose equal the expected letters.

How an answer is read (each rule is a regex Polars runs; the first source that yields letters
wins):

1. the last line that begins with ``ANSWER:`` (any case; also ``Answer:``, ``Final answer:``,
   ``ANSWERS:``, markdown bold or heading marks around it);
2. else the last ``answer is`` (``the answer is (B)``, ``The correct answer is C because ...``);
3. else the whole answer;
4. else its last line, when that is a bare list of letters (a reasoning that ends on "C");
5. else its first line (a letter, then the reasons: "B\nBecause ...").

The text a source gives is read as a *bare list* of letters ("B", "b", "(B)", "B.", "[B]",
"A, C", "A and C", "A & C"; run together only in capitals, distinct and in the order of the
option letters: "AC" and "ABD" choose, "BAD", "CAB", "AA" and "ab" choose nothing, since they
are words or no list), else as a *leading option label* followed by its text ("B) Paris",
"(B) Paris", "B. Paris", "B: Paris"); either may start with the word "option" or "choice"
("Option B"). After ``answer is`` a capital letter followed by anything but a letter also
counts ("The answer is C because ..."), except the pronoun "I" followed by a word ("the answer
is I think B" does not choose I). A letter inside a word never counts ("Don't know"
chose nothing, "None of the above" chose nothing).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

import polars as pl

from gradeframe._inputs import IntoExpr, Schema, as_text, is_text
from gradeframe._subset import on_rows
from gradeframe.matchers import _base
from gradeframe.matchers._base import Input

__all__ = ["CHOICE", "CHOICE_COLUMNS", "DEFAULT_LETTERS", "choice", "with_choice"]

CHOICE: Final = _base.matcher(
    "choice", {"actual": "text", "expected": "refs"}, chosen=pl.List(pl.String)
)
#: The columns choice adds, before ``prefix``.
CHOICE_COLUMNS: Final = CHOICE.columns

#: The option letters of up to ten options.
DEFAULT_LETTERS: Final = "ABCDEFGHIJ"

#: A line that begins with an answer marker (the marker may wear markdown), to its end.
_ANSWER_LINE_RE: Final = r"(?im)^[ \t>*#_]*(?:final[ \t]+)?answers?[ \t*_]*:[^\n]*"
#: The marker at the start of such a line, with what surrounds it.
_ANSWER_MARKER_RE: Final = r"(?i)^[ \t>*#_]*(?:final[ \t]+)?answers?[ \t*_]*:[ \t*_]*"
#: "answer is" / "answers are", to the end of its line.
_ANSWER_IS_LINE_RE: Final = r"(?i)\banswers?[ \t]+(?:is|are)\b[^\n]*"
#: A line up to its last "answer is" and what follows it (the greedy ``.*`` makes it the
#: last); removed, it leaves the text after it. Such a line always matches (it begins with
#: "answer is" and holds no line break), and removing the match is several times faster than
#: capturing the rest with ``(.*)``, for the same text.
_ANSWER_IS_RE: Final = r"(?i)\A.*\banswers?[ \t]+(?:is|are)[ \t]*:?[ \t*_]*"
#: "I" followed by a word: the pronoun, not option I.
_PRONOUN_RE: Final = r"^I +\p{Ll}"


class _Patterns:
    """The patterns that read letters, built from the option letters."""

    def __init__(self, letters: str) -> None:
        self.upper = letters.upper()
        both = re.escape(self.upper + letters.lower())
        caps = re.escape(self.upper)
        token = rf"[(\[]?[{both}][)\]]?"
        #: "Option B", "choice (B)": the word before the letters is dropped.
        word = r"(?:(?i:options?|choices?)[ \t]+)?"
        separator = r"(?:[ \t]*[,;/&][ \t]*|[ \t]+(?i:and)[ \t]+|[ \t]+)"
        #: A bare list of letters, the whole text ("B", "(B).", "A, C", "A and C").
        self.bare = rf"^{word}{token}(?:{separator}{token})*[.!]?$"
        #: Capitals run together, the whole text ("AC", "(AC)"): two or more distinct letters
        #: in the order of ``letters`` ("BAD", "CA", "AA" and "CAFE" are no run). Written as
        #: an alternation on the first two letters, each followed by the later ones, optional.
        #: One option letter has no run: then a bare list is the only form.
        runs = _ordered_runs(self.upper)
        self.run = rf"^[(\[]?(?:{runs})[)\]]?[.!]?$" if runs else None
        #: Either of the two.
        self.bare_or_run = self.bare if self.run is None else f"{self.bare}|{self.run}"
        #: A leading option label followed by its text ("B) Paris", "(B) Paris", "B. Paris",
        #: "[B] Paris", "B: Paris").
        self.label = rf"^{word}[(\[]?([{both}])[)\].:][ \t]+\S"
        #: A leading capital not followed by a letter, digit or apostrophe ("C because").
        self.lead = rf"^{word}\(?([{caps}])\)?(?:$|[^\p{{L}}\p{{N}}'’])"
        #: Anything in an upper-cased bare list that is not a letter ("AND", brackets, commas).
        self.not_letter = rf"^(?:OPTIONS?|CHOICES?)[ \t]+|\bAND\b|[^{caps}]"


def _ordered_runs(upper: str) -> str:
    """Return a regex for runs of two or more distinct letters of ``upper``, in its order.

    Empty for one letter (no run exists; Polars' regex engine has no lookaround to write a
    pattern that never matches).
    """
    runs = []
    for i, first in enumerate(upper):
        for j in range(i + 1, len(upper)):
            later = "".join(f"{re.escape(c)}?" for c in upper[j + 1 :])
            runs.append(re.escape(first) + re.escape(upper[j]) + later)
    return "|".join(runs)


def _clean(text: pl.Expr) -> pl.Expr:
    """Trim white space and markdown emphasis around a text."""
    return text.str.strip_chars(" \t\r\n*_`")


def sorted_letters(compact: pl.Expr, upper: str) -> pl.Expr:
    """Return the distinct option letters of a text of capitals, in the order of ``upper``.

    One literal search per option letter (a short text, a handful of letters): this is much
    cheaper than sorting a list in every row.
    """
    return pl.concat_str(
        [
            pl.when(compact.str.contains(letter, literal=True))
            .then(pl.lit(letter))
            .otherwise(pl.lit(""))
            for letter in upper
        ]
    )


def _nulls(frame: pl.DataFrame) -> pl.Series:
    # pl.repeat, not a Python list of None: that took about 20 ms per million rows
    return pl.repeat(None, frame.height, dtype=pl.String, eager=True)


def _bare_letters(bare: pl.Expr, patterns: _Patterns) -> pl.Expr:
    """Return the letters of a bare list, as one text of capitals in order."""
    compact = bare.str.to_uppercase().str.replace_all(patterns.not_letter, "")
    return sorted_letters(compact, patterns.upper)


def _read(
    text: pl.Expr, patterns: _Patterns, *, after_phrase: bool = False, label: bool = True
) -> pl.Expr:
    """Return the letters a text chose, as one text of capitals in order, or null when none.

    Each value is a struct field, computed once.
    """
    field = pl.field("text")
    staged = pl.struct(text=text).struct.with_fields(bare=field.str.contains(patterns.bare_or_run))
    # Only the (short) bare lists are taken apart: the other rows become "" first, since a
    # regex over masked rows would still read their text. Bare lists repeat ("B", "(B)",
    # "A, C") and the other rows are all "", so each distinct one is taken apart once: upper
    # case, a replace and ten literal searches on every row cost more than finding them.
    only_bare = pl.when(pl.field("bare")).then(field).otherwise(pl.lit(""))
    letters = _base.on_repeats(
        only_bare, lambda bare: _bare_letters(bare, patterns), return_dtype=pl.String()
    )
    listed = pl.when(pl.field("bare")).then(letters)
    parts = [listed]
    if label:
        parts.append(field.str.extract(patterns.label, group_index=1).str.to_uppercase())
    if after_phrase:
        lead = field.str.extract(patterns.lead, group_index=1)
        parts.append(pl.when(~field.str.contains(_PRONOUN_RE)).then(lead))
    # Each part is a letter or letters, or null (a bare list always holds a letter).
    return staged.struct.with_fields(found=pl.coalesce(parts)).struct.field("found")


def _read_part(
    text: pl.Expr, patterns: _Patterns, *, after_phrase: bool = False, label: bool = True
) -> pl.Expr:
    """:func:`_read` on a part of the replies (a line), once per distinct part when they repeat.

    Even when every reply differs (long reasonings), the parts read repeat ("ANSWER: B" ends
    many of them), and reading one is the costly step.
    """
    return _base.on_repeats(
        text,
        lambda t: _read(t, patterns, after_phrase=after_phrase, label=label),
        return_dtype=pl.String(),
    )


def chosen_text(text: pl.Expr, letters: str = DEFAULT_LETTERS) -> pl.Expr:
    """Return the option letters an answer chose, as one text of capitals ("" when none).

    See the module docstring for the reading rules. Null reads as "" (nothing chosen).
    Multiple-choice replies often repeat ("B", "(B)", "The answer is (B)."): when those of a
    batch do, each distinct reply is read once (:func:`gradeframe.matchers._base.on_repeats`
    decides from a sample, so that all-distinct replies do not pay for the deduping).
    """
    return _base.on_repeats(text, lambda t: _chosen_text(t, letters), return_dtype=pl.String())


def _chosen_text(text: pl.Expr, letters: str) -> pl.Expr:
    """:func:`chosen_text` on every row."""
    patterns = _Patterns(letters)
    whole = pl.field("whole")
    staged = pl.struct(whole=_clean(text.fill_null("")))
    # The marker sources, read on the rows that hold the word "answer" at all.
    text_column = pl.col("text")
    # Each marker line is found by a search without captures (fast); only the last one is
    # taken apart, so the captures run on one short line, never on the whole reply.
    line = _clean(
        text_column.str.extract_all(_ANSWER_LINE_RE).list.last().str.replace(_ANSWER_MARKER_RE, "")
    )
    phrase = _clean(
        text_column.str.extract_all(_ANSWER_IS_LINE_RE).list.last().str.replace(_ANSWER_IS_RE, "")
    )
    by_marker = on_rows(
        whole.str.contains(r"(?i)answer"),
        {"text": whole},
        pl.coalesce([_read_part(line, patterns), _read_part(phrase, patterns, after_phrase=True)]),
        otherwise=_nulls,
        dtype=pl.String(),
    )
    staged = staged.struct.with_fields(marker=by_marker, read=_read(whole, patterns))
    # The last line (a bare list: a reasoning that ends on its letter), then the first line
    # (a letter, then its reasons), read on the rows that have more than one line (the others
    # were read whole) and where neither the markers nor the whole text chose anything (on the
    # other rows the coalesce below drops what the lines read). The text is split at its line
    # breaks once, for both (about twice as fast as capturing ``\n([^\n]*)\z`` and
    # ``\A([^\n]*)``; the same lines).
    lines = pl.field("lines")
    last = _clean(lines.list.last())
    first = _clean(lines.list.first())
    unread = pl.field("marker").is_null() & pl.field("read").is_null()
    by_line = on_rows(
        unread & whole.str.contains("\n", literal=True),
        {"text": whole},
        pl.struct(lines=text_column.str.split("\n"))
        .struct.with_fields(
            found=pl.coalesce(
                [_read_part(last, patterns, label=False), _read_part(first, patterns)]
            )
        )
        .struct.field("found"),
        otherwise=_nulls,
        dtype=pl.String(),
    )
    found = pl.coalesce([pl.field("marker"), pl.field("read"), by_line, pl.lit("")])
    return staged.struct.with_fields(found=found).struct.field("found")


def _as_list(chosen: pl.Expr, letters: str) -> pl.Expr:
    """Return a text of capitals as the list of letters, as the caller wrote them."""
    if letters != letters.upper():
        chosen = chosen.str.replace_many(list(letters.upper()), list(letters))
    return chosen.str.split("")


def _check_letters(letters: object) -> str:
    if not isinstance(letters, str):
        msg = (
            f"`letters` must be a str of option letters, got {type(letters).__name__}: {letters!r}"
        )
        raise TypeError(msg)
    if not letters or not all(c.isalnum() for c in letters):
        msg = (
            "`letters` must be one or more letters or digits, one per option (for example "
            f"'ABCD'), got {letters!r}"
        )
        raise ValueError(msg)
    if len(set(letters.upper())) != len(letters):
        msg = f"`letters` must not repeat a letter (in any case), got {letters!r}"
        raise ValueError(msg)
    return letters


@_base.shares_parameters
def choice(
    actual: IntoExpr,
    expected: IntoExpr | Sequence[str],
    *,
    letters: str = DEFAULT_LETTERS,
    label: str | None = None,
    prefix: str = "",
    schema: Schema | None = None,
) -> pl.Expr:
    r"""Check the option letters a multiple-choice answer chose.

    The answer's letters are read from the last ``ANSWER: ...`` line, else from the last
    ``answer is ...``, else from the whole answer: a bare letter or list of letters ("B", "(B)",
    "B.", "A, C", "AC", "A and C") or a leading option label followed by its text ("B) Paris",
    "(B) Paris", "B. Paris"). A letter inside a word never counts ("Don't know" chose nothing).
    The row is right when the set of chosen letters equals the set of expected letters.

    Parameters
    ----------
    actual
        The answers: a column name or an expression (text; a null chose nothing).
    expected
        The right letters: a column name or expression of String (a letter, or letters such as
        "AC" or "A, C") or List(String); or a Python list of letters, the same for every row.
        An empty string or list means no option is right. A null, or a letter that is not one
        of ``letters``, raises naming the row.
    letters
        The option letters, in order (case is ignored when reading).
    label
        Replaces the default description ``"choice"``.

    Returns
    -------
    pl.Expr
        A struct expression named ``prefix + "choice"`` with the fields ``correct``,
        ``expectation`` and ``chosen`` (List(String): the letters read, sorted; empty when
        none).

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "reply": ["B) Paris", "ANSWER: D\nWait.\nANSWER: B", "Don't know", "A and C", None],
    ...         "key": ["B", "B", "D", "CA", "A"],
    ...     }
    ... )
    >>> df.grade.choice("reply", "key").select("correct", "chosen")
    shape: (5, 2)
    ┌─────────┬────────────┐
    │ correct ┆ chosen     │
    │ ---     ┆ ---        │
    │ bool    ┆ list[str]  │
    ╞═════════╪════════════╡
    │ true    ┆ ["B"]      │
    │ true    ┆ ["B"]      │
    │ false   ┆ []         │
    │ true    ┆ ["A", "C"] │
    │ false   ┆ []         │
    └─────────┴────────────┘
    """
    letters = _check_letters(letters)
    arguments = {
        "actual": (actual, _base.into(actual, "actual")),
        "expected": _base.expected_argument(expected, "a letter"),
    }
    return _base.expression(
        CHOICE,
        arguments,
        lambda inputs: _rule(inputs, letters),
        expectation=_base.expectation(label, "choice"),
        prefix=prefix,
        schema=schema,
    )


def _expected_letters(source: Input, letters: str) -> pl.Expr:
    """Return the expected letters as one text of capitals in order, checked row by row."""
    dtype = source.dtype
    if is_text(dtype) or dtype == pl.Null:
        text = as_text(source.expr, dtype) if dtype != pl.Null else source.expr.cast(pl.String)
    elif isinstance(dtype, pl.List) and (is_text(dtype.inner) or dtype.inner == pl.Null):
        text = source.expr.cast(pl.List(pl.String)).list.join("")
    else:
        raise source.error("String (letters) or List(String)")
    # Expected letters repeat (a handful of keys over many rows): each distinct text is read
    # once, and the rows take its value and problem by a join.
    return _base.check_rows(
        _base.on_distinct(text, lambda t: _letters_and_problem(t, letters)),
        matcher="choice",
        return_dtype=pl.String,
    )


def _letters_and_problem(text: pl.Expr, letters: str) -> pl.Expr:
    """Return the struct (value: the letters in order, problem: what is wrong, or null)."""
    upper = letters.upper()
    # One struct, each stage computed once: the text, its letters run together, the first
    # character that is not an option letter, then the letters in order and the problem.
    compact = (
        text.str.to_uppercase()
        .str.replace_all(" AND ", " ", literal=True)
        .str.replace_all(r"[\s,;/&()\[\].]+", "")
    )
    staged = pl.struct(text=text, compact=compact)
    staged = staged.struct.with_fields(
        outside=pl.field("compact").str.extract(f"([^{re.escape(upper)}])", group_index=1)
    )
    problem = (
        pl.when(pl.field("text").is_null())
        .then(pl.lit("is null; every row needs its letters (an empty text means none)."))
        .when(pl.field("outside").is_not_null())
        .then(
            pl.lit("is '")
            + pl.field("text")
            + pl.lit("': '")
            + pl.field("outside")
            + pl.lit(f"' is not one of the option letters '{letters}'.")
        )
    )
    staged = staged.struct.with_fields(
        value=sorted_letters(pl.field("compact"), upper), problem=problem
    )
    return pl.struct(value=staged.struct.field("value"), problem=staged.struct.field("problem"))


def _rule(inputs: dict[str, Input], letters: str) -> pl.Expr:
    stages = pl.struct(
        found=chosen_text(inputs["actual"].text(), letters),
        wanted=_expected_letters(inputs["expected"], letters),
    )
    return stages.struct.with_fields(
        correct=(pl.field("found") == pl.field("wanted")).fill_null(value=False),
        chosen=_as_list(pl.field("found"), letters),
    )


with_choice = _base.frame_function(
    CHOICE.columns,
    choice,
    "Add ``correct``, ``expectation`` and ``chosen`` to a frame; see :func:`choice`.",
)
