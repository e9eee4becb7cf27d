"""Verdicts: read a judge's reply or a yes/no reply as a column, and grade by it.

:func:`read_verdict` reads the verdict a grader model wrote at the end of its reasoning ("GRADE:
C", "Y", "[[8]]", ``{"pass": true}``) and, when it cannot, says why (``grader_failure``).
:func:`judge` grades rows by that verdict and keeps the grader's failures apart from the model's
(the failure kind ``grader_failure``).

How a verdict is read, as column operations in linear time:

1. One pass of Polars' regex engine (which never backtracks) over each text finds the
   *candidates*: every place where a marker and its token may stand, written loosely (any case,
   fullwidth forms, zero-width characters, markdown emphasis, one pair of brackets or quotes).
2. Only those short candidates are normalised (fullwidth to ASCII, zero-width characters and
   emphasis removed) and read: the token, its verdict, or that the token is not offered.
3. The last reading wins (``on_conflict="last"``), or two different readings are
   ``conflicting`` (``"fail"``).

The scalar reference of these rules, written with lookarounds on the whole normalised text, is
``tests/reference_verdict.py``; hypothesis holds the column code to it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final, Literal, TypeAlias, TypeVar, get_args

import polars as pl

from gradeframe import kinds
from gradeframe._inputs import (
    IntoExpr,
    Schema,
    check_column,
    check_prefix,
    keep_name,
    to_expr,
)
from gradeframe._record import resolve_record
from gradeframe.matchers._base import check_rows, frame_function

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)
#: A name no input column is expected to have, for the struct a frame function unnests.
_RESULT: Final = "__gradeframe_judge__"

__all__ = ["FAILURES", "JUDGE_COLUMNS", "SCHEMES", "judge", "read_verdict", "with_judge"]

Scheme: TypeAlias = Literal["grade", "yes_no", "scale", "json"]
OnConflict: TypeAlias = Literal["last", "fail"]

#: The schemes :func:`read_verdict` reads.
SCHEMES: Final[tuple[str, ...]] = get_args(Scheme)
_ON_CONFLICT: Final[tuple[str, ...]] = get_args(OnConflict)

EMPTY: Final = "empty"
NO_VERDICT: Final = "no_verdict"
NOT_OFFERED: Final = "not_offered"
OUT_OF_SCALE: Final = "out_of_scale"
TRUNCATED: Final = "truncated"
CONFLICTING: Final = "conflicting"
#: The values of ``grader_failure``.
FAILURES: Final = (EMPTY, NO_VERDICT, NOT_OFFERED, OUT_OF_SCALE, TRUNCATED, CONFLICTING)

#: The struct :func:`read_verdict` returns.
VERDICT_DTYPE: Final = pl.Struct(
    {"verdict": pl.String(), "score": pl.Float64(), "grader_failure": pl.String()}
)
#: The columns :func:`with_judge` adds, before ``prefix``.
JUDGE_COLUMNS: Final = ("correct", "failure_kind", "verdict", "score", "grader_failure")

# --------------------------------------------------------------------------------------------
# Normalisation: fullwidth forms, zero-width characters, emphasis and brackets
# --------------------------------------------------------------------------------------------

#: Zero-width characters, removed anywhere (a character class body).
ZERO_WIDTH: Final = "\u200b-\u200d\u2060\ufeff"
#: Fullwidth forms of the printable ASCII characters (U+FF01-FF5E), and the ideographic space.
FULLWIDTH: Final[dict[str, str]] = {chr(c + 0xFEE0): chr(c) for c in range(0x21, 0x7F)} | {
    "\u3000": " "
}

_Z: Final = f"[{ZERO_WIDTH}]*"
#: Markdown emphasis (and zero-width characters), ignored around markers and tokens.
_EMPHASIS: Final = f"[*_`＊＿｀{ZERO_WIDTH}]*"
#: One opening and one closing bracket, parenthesis or quote.
_OPEN: Final = "[\\[(\"'\u201c\u2018\u00ab［（＂＇]"
_CLOSE: Final = "[\\])\"'\u201d\u2019\u00bb］）＂＇]"
#: Before a marker or a token: emphasis, at most one opening bracket or quote, emphasis.
_BEFORE: Final = f"{_EMPHASIS}{_OPEN}?{_EMPHASIS}"
#: After a marker: emphasis, at most one closing bracket or quote, emphasis.
_AFTER: Final = f"{_EMPHASIS}{_CLOSE}?{_EMPHASIS}"
#: White space (any, line breaks included) and zero-width characters.
_SPACE: Final = f"[\\s{ZERO_WIDTH}]*"
#: White space and emphasis, mixed (between a marker and its colon, a colon and its token).
_GAP: Final = f"[\\s*_`＊＿｀{ZERO_WIDTH}]*"
#: From the end of a marker word to its token: the colon with emphasis, space and brackets.
_TO_TOKEN: Final = f"{_GAP}{_CLOSE}?{_GAP}[:：]{_GAP}{_OPEN}?{_GAP}"
#: White space within one line.
_LINE_SPACE: Final = f"[ \\t\\r\u3000{ZERO_WIDTH}]*"
_COLON: Final = "[:：]"
#: The character before a marker: not a word character, emphasis or zero-width character (a
#: marker glued to a word is no marker: "downgrade", "my_grade").
_START: Final = f"(?:^|[^\\p{{L}}\\p{{N}}_*`＊＿｀{ZERO_WIDTH}])"
#: A word as written: letters, digits, "_" and zero-width characters.
_WORD: Final = f"[\\p{{L}}\\p{{N}}_＿{ZERO_WIDTH}]+"


def _loose(word: str) -> str:
    """Return a pattern for a word in any case, fullwidth or not, zero-width characters inside."""
    parts = []
    for char in word:
        if char == " ":
            parts.append(f"[ \\t\u3000{ZERO_WIDTH}]+")
        else:
            parts.append(f"[{re.escape(char)}{re.escape(chr(ord(char) + 0xFEE0))}]")
    return _Z.join(parts)


def _alternatives(words: Sequence[str]) -> str:
    return "(?:" + "|".join(_loose(w) for w in words) + ")"


def normalise(text: pl.Expr) -> pl.Expr:
    """Read fullwidth forms as ASCII and remove zero-width characters (for short candidates)."""
    return text.str.replace_many(FULLWIDTH).str.replace_all(f"[{ZERO_WIDTH}]", "")


# --------------------------------------------------------------------------------------------
# The schemes
# --------------------------------------------------------------------------------------------

#: The grade scheme's tokens (lower case, one space between words) and the letter each reads.
GRADE_TOKENS: Final = {
    "c": "C",
    "correct": "C",
    "p": "P",
    "partial": "P",
    "partially correct": "P",
    "i": "I",
    "incorrect": "I",
}
GRADE_SCORES: Final = {"C": 1.0, "P": 0.5, "I": 0.0}
#: A reading that names a token the scheme has but ``choices`` leaves out ("CI", or "P" with
#: ``choices=("C", "I")``).
_NOT_OFFERED_READING: Final = "\x00not_offered"

#: A GRADE marker as written (any case, fullwidth, zero-width characters inside).
GRADE_MARKER: Final = "(?i:" + _loose("grade") + ")"
#: A piece of text that begins with a marker: the marker, a colon, and the word after it (or
#: "partially correct" and any letters glued to it).
GRADE_CANDIDATE: Final = (
    "^(?i:"
    + _loose("grade")
    + _TO_TOKEN
    + "(?:"
    + _loose("partially")
    + f"[\\s{ZERO_WIDTH}]+"
    + _loose("correct")
    + "|"
    + _WORD
    + ")"
    + _WORD.replace("+", "*")
    + ")"
)
#: A piece of text that follows a marker: the colon, and the word after it.
GRADE_AFTER_MARKER: Final = GRADE_CANDIDATE.replace("^(?i:" + _loose("grade"), "^(?i:", 1)
#: The marker as it stands in normalised, lower-case text.
_MARKER_LOWER: Final = "grade"
#: How many characters before a marker are looked at for the word it may be glued to.
GLUE_WINDOW: Final = 64
#: The end of the text before a marker when the marker is not glued to a word: a character
#: that is no word character, emphasis or zero-width (or the start), then emphasis and at most
#: one opening bracket.
_UNGLUED: Final = _START + _BEFORE + "$"
#: A character that never stands in a text: marks where each marker begins.
_SPLIT: Final = "\x00"


def _grade_reading(candidate: pl.Expr, choices: tuple[str, ...]) -> pl.Expr:
    """Read one normalised candidate: a letter, the not-offered reading, or null (no token)."""
    token = (
        candidate.str.replace(r"^[^:]*:[\s*_`\[(\"'\u201c\u2018\u00ab]*", "")
        .str.strip_chars_end("_")
        .str.to_lowercase()
        .str.replace_all(r"\s+", " ")
    )
    letter = token.replace_strict(GRADE_TOKENS, default=None, return_dtype=pl.String)
    several = token.str.contains(r"^[cpi]{2,}$")  # "CI": two tokens at once
    offered = letter.is_in(list(choices))
    return (
        pl.when(letter.is_not_null() & offered)
        .then(letter)
        .when(letter.is_not_null() | several)
        .then(pl.lit(_NOT_OFFERED_READING))
    )


#: The yes/no words and the verdict each reads.
YES_NO_WORDS: Final = {"yes": "yes", "y": "yes", "no": "no", "n": "no"}
#: The prefixes of a verdict line ("Verdict: yes").
YES_NO_PREFIXES: Final = (
    "final verdict",
    "final answer",
    "verdict",
    "answer",
    "judgement",
    "judgment",
)
_BULLET: Final = "(?:[-*+\u2022][ \\t]+)?"
_YES_NO: Final = "(?:" + "|".join(_loose(w) for w in ("yes", "no", "y", "n")) + ")"
#: What may follow a verdict word that ends it: not a letter, digit, "/" or "-" ("N/A", "No-one").
_WORD_END: Final = f"{_Z}(?:[^\\p{{L}}\\p{{N}}/\\-{ZERO_WIDTH}]|$)"
#: A line that is only a verdict word (a list item too; a final "." or "!" dropped) ...
_VERDICT_LINE: Final = (
    "^"
    + _LINE_SPACE
    + _BULLET
    + _BEFORE
    + _YES_NO
    + _AFTER
    + "[.!．！]?"
    + _EMPHASIS
    + _LINE_SPACE
    + "$"
)
#: ... or a line that begins with a prefix, a colon and a verdict word.
_PREFIX_LINE: Final = (
    "^"
    + _LINE_SPACE
    + _BULLET
    + _BEFORE
    + _alternatives(YES_NO_PREFIXES)
    + _AFTER
    + _LINE_SPACE
    + _COLON
    + _LINE_SPACE
    + _BEFORE
    + _YES_NO
    + _WORD_END
)
YES_NO_LINE: Final = f"(?im){_VERDICT_LINE}|{_PREFIX_LINE}"
#: The reply's opening word, read when no line holds a verdict.
YES_NO_OPENING: Final = "(?i)^" + _SPACE + _BEFORE + _YES_NO + _WORD_END


def _yes_no_reading(candidate: pl.Expr) -> pl.Expr:
    """Read one normalised candidate: the last verdict word in it."""
    word = candidate.str.extract(
        r"(?i)(?:^|[^\p{L}\p{N}])(yes|no|y|n)[^\p{L}\p{N}]*$"
    ).str.to_lowercase()
    return word.replace_strict(YES_NO_WORDS, default=None, return_dtype=pl.String)


#: A number as a scale verdict: digits, an optional decimal part (fullwidth digits too).
_DIGIT: Final = f"[0-9０-９][0-9０-９{ZERO_WIDTH}]*"
_NUMBER: Final = f"{_DIGIT}(?:[.．]{_Z}{_DIGIT})?"
SCALE_CANDIDATE: Final = (
    "(?i)"
    # [[x]]
    + f"[\\[［]{_Z}[\\[［]{_SPACE}{_NUMBER}{_SPACE}[\\]］]{_Z}[\\]］]"
    # Rating: x, Score: x
    + "|"
    + _START
    + _BEFORE
    + _alternatives(("rating", "score"))
    + _TO_TOKEN
    + _NUMBER
    # x/high, x out of high
    + f"|(?:^|[^\\p{{L}}\\p{{N}}_.．{ZERO_WIDTH}]){_Z}{_NUMBER}{_SPACE}"
    + f"(?:[/／]|{_loose('out')}{_SPACE}{_loose('of')}){_SPACE}[0-9０-９]"
)


def _scale_reading(candidate: pl.Expr) -> pl.Expr:
    """Read one normalised candidate: the number as written (a final "." never is part of it)."""
    number = r"([0-9]+(?:\.[0-9]+)?)"
    return pl.coalesce(
        candidate.str.extract(r"(?i)(?:\[\[|rating|score)[^0-9]*" + number),
        candidate.str.extract(number),
    )


# JSON, as the standard writes it (no normalisation: keys are read in any case).
_JSON_SPACE: Final = "[ \\t\\n\\r]*"
_JSON_STRING: Final = r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"'
_JSON_NUMBER: Final = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
_JSON_SCALAR: Final = f"(?:{_JSON_STRING}|{_JSON_NUMBER}|true|false|null)"


def _json_object(value: str) -> str:
    pair = f"{_JSON_STRING}{_JSON_SPACE}:{_JSON_SPACE}{value}"
    return f"\\{{{_JSON_SPACE}(?:{pair}(?:{_JSON_SPACE},{_JSON_SPACE}{pair})*)?{_JSON_SPACE}\\}}"


def _json_array(value: str) -> str:
    return f"\\[{_JSON_SPACE}(?:{value}(?:{_JSON_SPACE},{_JSON_SPACE}{value})*)?{_JSON_SPACE}\\]"


def _json_value(depth: int) -> str:
    if depth == 0:
        return _JSON_SCALAR
    inner = _json_value(depth - 1)
    return f"(?:{_JSON_SCALAR}|{_json_object(inner)}|{_json_array(inner)})"


#: How deep values inside a verdict object may nest (an object nested deeper is not read).
JSON_DEPTH: Final = 2
#: A JSON object that parses (its values nested at most :data:`JSON_DEPTH` deep).
JSON_OBJECT: Final = _json_object(_json_value(JSON_DEPTH))
#: One key and its value, at the top level of an object matched by :data:`JSON_OBJECT`.
_JSON_PAIR: Final = f"{_JSON_STRING}{_JSON_SPACE}:{_JSON_SPACE}{_json_value(JSON_DEPTH)}"
#: A text that ends inside an object that never closes: an object's start, then anything but
#: braces (strings, inner objects and one last inner object or string left open), to the end.
_JSON_INNER: Final = f'(?:{_JSON_STRING}|[^{{}}"])*'
_JSON_OPEN_STRING: Final = r'"(?:[^"\\]|\\.)*'
JSON_TRUNCATED: Final = (
    f'\\{{{_JSON_SPACE}(?:{_JSON_STRING}(?:{_JSON_STRING}|[^{{}}"]|\\{{{_JSON_INNER}\\}})*'
    f"(?:\\{{{_JSON_INNER})?(?:{_JSON_OPEN_STRING})?|{_JSON_OPEN_STRING})$"
)

_PASS_WORDS: Final = {
    "true": "pass",
    "false": "fail",
    '"pass"': "pass",
    '"fail"': "fail",
    '"yes"': "pass",
    '"no"': "fail",
}


def _json_key(pairs: pl.Expr, key: str) -> pl.Expr:
    """Return the values (as written) of the top-level ``key`` (any case) among the pairs."""
    pattern = f'(?i)^"{key}"{_JSON_SPACE}:{_JSON_SPACE}'
    value = pl.element().str.replace(pattern, "")
    return pairs.list.eval(
        pl.when(pl.element().str.contains(pattern)).then(value).otherwise(None)
    ).list.drop_nulls()


def _json_reading(obj: pl.Expr) -> pl.Expr:
    """Read one object: ``{pass, score}`` (each null when absent), or null without either key."""
    pairs = obj.str.replace(r"^\{", "").str.extract_all(_JSON_PAIR)
    passed = pl.coalesce(
        _json_key(pairs, key)
        .list.last()
        .str.to_lowercase()
        .replace_strict(_PASS_WORDS, default=None, return_dtype=pl.String)
        for key in ("pass", "verdict")
    )
    raw = _json_key(pairs, "score").list.last()
    score = raw.str.strip_chars('"').str.strip_chars(" \t\n\r")
    score = pl.when(score.str.contains(f"^{_JSON_NUMBER}$")).then(score.cast(pl.Float64))
    return pl.when(passed.is_not_null() | score.is_not_null()).then(
        pl.struct(passed=passed, score=score)
    )


# --------------------------------------------------------------------------------------------
# read_verdict
# --------------------------------------------------------------------------------------------


def check_verdict_arguments(
    scheme: object,
    choices: object,
    scale: object,
    on_conflict: object,
) -> tuple[tuple[str, ...], tuple[float, float] | None]:
    """Check read_verdict's arguments; return ``choices`` (upper case) and ``scale``."""
    if scheme not in SCHEMES:
        msg = f"`scheme` must be one of {', '.join(map(repr, SCHEMES))}; got {scheme!r}"
        raise ValueError(msg)
    if on_conflict not in _ON_CONFLICT:
        allowed = ", ".join(map(repr, _ON_CONFLICT))
        msg = f"`on_conflict` must be one of {allowed}; got {on_conflict!r}"
        raise ValueError(msg)
    offered: tuple[str, ...] = ("C", "P", "I")
    if choices is not None:
        if scheme != "grade":
            msg = (
                f"`choices` applies to scheme='grade' only; got choices={choices!r} with "
                f"scheme={scheme!r}"
            )
            raise ValueError(msg)
        if isinstance(choices, str) or not isinstance(choices, Sequence) or not choices:
            msg = f"`choices` must be a non-empty list or tuple of 'C', 'P', 'I'; got {choices!r}"
            raise TypeError(msg)
        offered = tuple(str(c).upper() for c in choices)
        bad = [c for c in choices if not isinstance(c, str) or c.upper() not in GRADE_SCORES]
        if bad:
            msg = f"`choices` may hold 'C', 'P' and 'I' only; got {bad[0]!r} in {choices!r}"
            raise ValueError(msg)
    bounds = None
    if scheme == "scale":
        if scale is None:
            msg = "`scale` is required with scheme='scale': give scale=(low, high), say (1, 10)"
            raise ValueError(msg)
        if (
            isinstance(scale, str)
            or not isinstance(scale, Sequence)
            or len(scale) != 2
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in scale)
            or not scale[0] <= scale[1]
        ):
            msg = f"`scale` must be (low, high), two numbers with low <= high; got {scale!r}"
            raise ValueError(msg)
        bounds = (float(scale[0]), float(scale[1]))
    elif scale is not None:
        msg = f"`scale` applies to scheme='scale' only; got scale={scale!r} with scheme={scheme!r}"
        raise ValueError(msg)
    return offered, bounds


def _decide(readings: pl.Expr, on_conflict: str) -> tuple[pl.Expr, pl.Expr]:
    """Return (the reading that decides, whether the readings conflict) of a list of readings."""
    readings = readings.list.drop_nulls()
    last = readings.list.last()
    conflict = (readings.list.n_unique() > 1) if on_conflict == "fail" else pl.lit(value=False)
    return last, conflict.fill_null(value=False)


def _result(verdict: pl.Expr, score: pl.Expr, failure: pl.Expr) -> pl.Expr:
    return pl.struct(
        verdict=pl.when(failure.is_null()).then(verdict),
        score=pl.when(failure.is_null()).then(score),
        grader_failure=failure,
    )


def _is_blank(text: pl.Expr) -> pl.Expr:
    return text.is_null() | ~text.str.contains(f"[^\\s{ZERO_WIDTH}]")


def _grade_readings(
    texts: pl.Series, choices: tuple[str, ...], cut: pl.Series | None = None
) -> pl.Series:
    """Return each text's readings, in order (a list per text; one batch, column operations).

    Every text is cut at each marker (in lower case at "grade", a literal search, which is
    fast, when the text is plain ASCII). Each piece but the first follows a marker: its start
    holds the colon and the token, and the end of the piece before says whether the marker is
    glued to a word ("downgrade"; an empty piece before is the end of another marker: glued).
    ``cut`` marks the texts that are the end of a longer text (:data:`GRADE_WINDOW`): their
    first marker is not read (what stands before it may be cut).
    """
    # Plain ASCII texts are cut at "grade" in lower case (a literal search); the others (few)
    # at every marker as written (fullwidth, zero-width characters inside), by the loose pattern.
    wide = (texts.str.len_bytes() != texts.str.len_chars()).fill_null(value=False)
    rows = texts.alias("text").to_frame().with_row_index("row")
    if cut is not None:
        rows = rows.with_columns(cut=cut)
    text = pl.col("text")
    kept = ["row", *(["cut"] if cut is not None else [])]
    pieces = rows.filter(~wide).select(
        *kept, piece=text.str.to_lowercase().str.split(_MARKER_LOWER)
    )
    if wide.any():
        loose = rows.filter(wide).select(
            *kept, piece=text.str.replace_all(GRADE_MARKER, _SPLIT).str.split(_SPLIT)
        )
        pieces = pl.concat([pieces, loose]).sort("row", maintain_order=True)
    pieces = pieces.explode("piece")
    piece, row = pl.col("piece"), pl.col("row")
    # In a cut text, the first marker (the second piece) is not read.
    first_read = (
        ~(pl.col("cut") & (row.shift(2) != row).fill_null(value=True))
        if cut is not None
        else pl.lit(value=True)
    )
    # The piece before, and whether it is the first of its row (the text's start) or an empty
    # one that is not (the end of another marker: glued); the checks run on candidates only.
    candidates = (
        pieces.with_columns(
            candidate=piece.str.extract(GRADE_AFTER_MARKER, 0),
            before=piece.shift(1),
            follows=(row.shift(1) == row).fill_null(value=False),
            before_first=(row.shift(2) != row).fill_null(value=True),
            goes_on=(row.shift(-1) == row).fill_null(value=False),
        )
        .filter(pl.col("candidate").is_not_null() & pl.col("follows") & first_read)
        .filter(
            ((pl.col("before").str.len_bytes() > 0) | pl.col("before_first"))
            & pl.col("before").str.tail(GLUE_WINDOW).str.contains(_UNGLUED)
            # A token word that runs to the end of its piece goes on into the next marker
            # ("GRADE: correctGRADE"): it is no token.
            & ~(pl.col("goes_on") & (pl.col("candidate").str.len_bytes() == piece.str.len_bytes()))
        )
        .select("row", "candidate")
    )
    readings = (
        candidates.select("row", reading=_grade_reading(normalise(pl.col("candidate")), choices))
        .group_by("row", maintain_order=True)
        .agg(pl.col("reading").drop_nulls())
    )
    found = rows.select("row").join(readings, on="row", how="left", maintain_order="left")
    listed = found.get_column("reading").fill_null(pl.lit([], dtype=pl.List(pl.String)))
    return listed.alias(texts.name)


def _staged(readings: pl.Expr, text: pl.Expr, on_conflict: str) -> pl.Expr:
    """Stage the readings once: fields ``last``, ``conflict`` and ``blank``."""
    stages = pl.struct(readings=readings, blank=_is_blank(text))
    last, conflict = _decide(pl.field("readings"), on_conflict)
    return stages.struct.with_fields(last=last, conflict=conflict)


#: With ``on_conflict="last"``, a longer text is read in its last this many characters first;
#: only when they hold no reading is the whole text read (the last reading of a text is in
#: its end whenever its end holds one).
GRADE_WINDOW: Final = 512


def _last_readings(texts: pl.Series, choices: tuple[str, ...]) -> pl.Series:
    """Return readings whose last is each text's last reading, reading the texts' ends first."""
    cut = (texts.str.len_chars() > GRADE_WINDOW).fill_null(value=False)
    if not cut.any():
        return _grade_readings(texts, choices)
    readings = _grade_readings(texts.str.tail(GRADE_WINDOW), choices, cut=cut)
    again = cut & (readings.list.len() == 0)
    if not again.any():
        return readings
    where = again.arg_true()
    whole = pl.DataFrame({"row": where, "whole": _grade_readings(texts.gather(where), choices)})
    frame = pl.DataFrame({"row": pl.int_range(len(texts), eager=True, dtype=pl.UInt32)})
    merged = frame.with_columns(end=readings).join(
        whole.with_columns(pl.col("row").cast(pl.UInt32)),
        on="row",
        how="left",
        maintain_order="left",
    )
    return merged.select(pl.coalesce("whole", "end")).to_series().alias(texts.name)


def _read_grade(text: pl.Expr, choices: tuple[str, ...], on_conflict: str) -> pl.Expr:
    read = _last_readings if on_conflict == "last" else _grade_readings
    readings = text.map_batches(
        lambda batch: read(batch, choices),
        return_dtype=pl.List(pl.String),
        is_elementwise=True,
    )
    last = pl.field("last")
    failure = (
        pl.when(pl.field("blank"))
        .then(pl.lit(EMPTY))
        .when(pl.field("conflict"))
        .then(pl.lit(CONFLICTING))
        .when(last.is_null())
        .then(pl.lit(NO_VERDICT))
        .when(last == _NOT_OFFERED_READING)
        .then(pl.lit(NOT_OFFERED))
    )
    result = _result(last, last.replace_strict(GRADE_SCORES, default=None), failure)
    return (
        _staged(readings, text, on_conflict)
        .struct.with_fields(result.alias("_r"))
        .struct.field("_r")
    )


def _read_yes_no(text: pl.Expr, on_conflict: str) -> pl.Expr:
    lines = text.str.extract_all(YES_NO_LINE)
    readings = lines.list.eval(_yes_no_reading(normalise(pl.element())))
    last, conflict = _decide(readings, on_conflict)
    opening = _yes_no_reading(normalise(text.str.extract(f"({YES_NO_OPENING})")))
    verdict = pl.coalesce(last, opening)
    failure = (
        pl.when(_is_blank(text))
        .then(pl.lit(EMPTY))
        .when(conflict)
        .then(pl.lit(CONFLICTING))
        .when(verdict.is_null())
        .then(pl.lit(NO_VERDICT))
    )
    score = verdict.replace_strict({"yes": 1.0, "no": 0.0}, default=None)
    return _result(verdict, score, failure)


def _read_scale(text: pl.Expr, bounds: tuple[float, float], on_conflict: str) -> pl.Expr:
    candidates = text.str.extract_all(SCALE_CANDIDATE)
    readings = candidates.list.eval(_scale_reading(normalise(pl.element())))
    last, conflict = _decide(readings.list.eval(pl.element().cast(pl.Float64)), on_conflict)
    written = readings.list.drop_nulls().list.last()
    low, high = bounds
    failure = (
        pl.when(_is_blank(text))
        .then(pl.lit(EMPTY))
        .when(conflict)
        .then(pl.lit(CONFLICTING))
        .when(last.is_null())
        .then(pl.lit(NO_VERDICT))
        .when((last < low) | (last > high))
        .then(pl.lit(OUT_OF_SCALE))
    )
    return _result(written, last, failure)


def _read_json(text: pl.Expr, on_conflict: str) -> pl.Expr:
    objects = text.str.extract_all(JSON_OBJECT)
    readings = objects.list.eval(_json_reading(pl.element())).list.drop_nulls()
    last = readings.list.last()
    passes = readings.list.eval(pl.element().struct.field("passed")).list.drop_nulls()
    conflict = (
        (passes.list.n_unique() > 1).fill_null(value=False)
        if on_conflict == "fail"
        else pl.lit(value=False)
    )
    failure = (
        pl.when(_is_blank(text))
        .then(pl.lit(EMPTY))
        .when(text.str.contains(JSON_TRUNCATED))
        .then(pl.lit(TRUNCATED))
        .when(conflict)
        .then(pl.lit(CONFLICTING))
        .when(last.is_null())
        .then(pl.lit(NO_VERDICT))
    )
    return _result(last.struct.field("passed"), last.struct.field("score"), failure)


def read_verdict(
    text: IntoExpr,
    *,
    scheme: Scheme = "grade",
    choices: Sequence[str] | None = None,
    scale: tuple[float, float] | None = None,
    on_conflict: OnConflict = "last",
) -> pl.Expr:
    r"""Read the verdict a grader wrote (a judge's reply, or a yes/no reply), or say why not.

    Before reading, markers and tokens are normalised: fullwidth forms read as ASCII
    ("ＧＲＡＤＥ：Ｃ" is "GRADE:C"), zero-width characters are removed, and markdown emphasis
    and one pair of brackets, parentheses or quotes around a marker or a token are ignored
    (``**GRADE:** C``, ``GRADE: [C]``). Markers and tokens are whole words in any case:
    "downgrade: C" holds no marker, and "GRADE: Correctly" no verdict. The time is linear in
    the text's length.

    Schemes:

    - ``"grade"``: ``GRADE``, ``:`` (white space on either side, a line break too), then a token:
      ``C``, ``P``, ``I``, or ``correct``, ``partially correct``, ``partial``, ``incorrect``.
      ``verdict`` is the letter, ``score`` 1, 0.5 or 0. A token ``choices`` leaves out (and
      "CI", two tokens at once) is ``not_offered``; a word that is no token is not read.
    - ``"yes_no"``: the last line that is only ``yes``, ``no``, ``y`` or ``n`` (a list item too,
      a final "." or "!" dropped), or that begins with ``verdict:``, ``final verdict:``,
      ``answer:``, ``final answer:``, ``judgement:`` or ``judgment:`` and such a word; without
      one, the reply's opening word ("Yes, because ..."). "N/A" is no verdict. ``verdict`` is
      "yes" or "no", ``score`` 1 or 0.
    - ``"scale"``: the last of ``[[x]]``, ``Rating: x``, ``Score: x``, ``x/n`` and ``x out of
      n`` (x an integer or a decimal); ``verdict`` is x as written, ``score`` its value; outside
      ``scale=(low, high)`` it is ``out_of_scale``.
    - ``"json"``: the last JSON object (bare or in a fence; values nested at most two deep)
      with a ``pass``, ``verdict`` or ``score`` key, in any case. ``pass`` (true/false,
      "pass"/"fail"/"yes"/"no") gives ``verdict`` "pass" or "fail"; a number ``score`` (or a
      numeric string) gives ``score``. A text that ends inside an unclosed object is
      ``truncated``; an object that does not parse is skipped.

    ``grader_failure`` is null when a verdict was read, else ``empty`` (null or blank text),
    ``no_verdict``, ``not_offered``, ``out_of_scale``, ``truncated`` or ``conflicting`` (two
    readings differ, under ``on_conflict="fail"``; under ``"last"`` the last one wins).

    Parameters
    ----------
    text
        The grader's replies: a column name or a String expression.
    scheme
        ``"grade"``, ``"yes_no"``, ``"scale"`` or ``"json"``.
    choices
        For ``"grade"``: the letters offered (default ``("C", "P", "I")``).
    scale
        For ``"scale"`` (required there): ``(low, high)``.
    on_conflict
        ``"last"`` (the last reading wins) or ``"fail"`` (differing readings are
        ``conflicting``).

    Returns
    -------
    pl.Expr
        A struct expression with the fields ``verdict`` (String), ``score`` (Float64) and
        ``grader_failure`` (String), named after ``text``.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {"judge": ["Fine. **GRADE:** C", "GRADE: [P]", "downgrade: C", "GRADE: CI", None]}
    ... )
    >>> df.select(gf.read_verdict("judge")).unnest("judge")
    shape: (5, 3)
    ┌─────────┬───────┬────────────────┐
    │ verdict ┆ score ┆ grader_failure │
    │ ---     ┆ ---   ┆ ---            │
    │ str     ┆ f64   ┆ str            │
    ╞═════════╪═══════╪════════════════╡
    │ C       ┆ 1.0   ┆ null           │
    │ P       ┆ 0.5   ┆ null           │
    │ null    ┆ null  ┆ no_verdict     │
    │ null    ┆ null  ┆ not_offered    │
    │ null    ┆ null  ┆ empty          │
    └─────────┴───────┴────────────────┘
    >>> replies = pl.DataFrame({"reply": ["Yes, there is no doubt.", "Y\nNote: units omitted."]})
    >>> replies.select(gf.read_verdict("reply", scheme="yes_no")).unnest("reply")
    shape: (2, 3)
    ┌─────────┬───────┬────────────────┐
    │ verdict ┆ score ┆ grader_failure │
    │ ---     ┆ ---   ┆ ---            │
    │ str     ┆ f64   ┆ str            │
    ╞═════════╪═══════╪════════════════╡
    │ yes     ┆ 1.0   ┆ null           │
    │ yes     ┆ 1.0   ┆ null           │
    └─────────┴───────┴────────────────┘
    """
    offered, bounds = check_verdict_arguments(scheme, choices, scale, on_conflict)
    source = to_expr(text, "text")
    value = source.cast(pl.String)
    if scheme == "grade":
        result = _read_grade(value, offered, on_conflict)
    elif scheme == "yes_no":
        result = _read_yes_no(value, on_conflict)
    elif scheme == "scale":
        result = _read_scale(value, bounds, on_conflict)  # type: ignore[arg-type]
    else:
        result = _read_json(value, on_conflict)
    return keep_name(result.cast(VERDICT_DTYPE), source)


# --------------------------------------------------------------------------------------------
# judge
# --------------------------------------------------------------------------------------------

#: Verdicts that are one answer to a yes/no question, whatever the spelling (any case).
_SAME_VERDICT: Final = {
    "yes": "yes",
    "y": "yes",
    "true": "yes",
    "pass": "yes",
    "no": "no",
    "n": "no",
    "false": "no",
    "fail": "no",
}


def _canonical(value: pl.Expr) -> pl.Expr:
    """Return a verdict or expected value as one spelling: "yes"/"no", or a lower-case letter."""
    word = value.cast(pl.String).str.strip_chars().str.to_lowercase()
    return word.replace(_SAME_VERDICT)


def _check_pass_score(pass_score: object, scheme: str, expected: object) -> None:
    if pass_score is not None:
        if isinstance(pass_score, bool) or not isinstance(pass_score, int | float):
            msg = f"`pass_score` must be a number or None, got {pass_score!r}"
            raise TypeError(msg)
        if scheme in ("grade", "yes_no"):
            msg = (
                f"`pass_score` applies to scheme='scale' and 'json' only; got "
                f"pass_score={pass_score!r} with scheme={scheme!r} (under 'grade' only C passes)"
            )
            raise ValueError(msg)
        if expected is not None:
            msg = "give `expected` or `pass_score`, not both"
            raise ValueError(msg)
    elif scheme == "scale" and expected is None:
        msg = "`pass_score` is required with scheme='scale': say pass_score=4 on scale=(1, 5)"
        raise ValueError(msg)


def _checked_yes_no(expected: pl.Expr) -> pl.Expr:
    """Pass expected yes/no verdicts through; raise naming the first row that holds none.

    A missing or unreadable expected verdict is the eval's mistake, not the model's.
    """
    word = _canonical(expected)
    problem = pl.when(~word.is_in(["yes", "no"]).fill_null(value=False)).then(
        pl.lit("is ")
        + pl.coalesce(pl.lit("'") + expected.cast(pl.String) + pl.lit("'"), pl.lit("null"))
        + pl.lit('; a yes/no item\'s expected verdict is "yes"/"y"/"true" or "no"/"n"/"false".')
    )
    checked = pl.struct(value=word, problem=problem)
    return check_rows(checked, matcher="judge", return_dtype=pl.String)


def _passes(scheme: str, expected: pl.Expr | None, pass_score: float | None) -> pl.Expr:
    """Whether the verdict read (fields ``verdict``, ``score``) passes; null when none was read."""
    verdict, score = pl.field("verdict"), pl.field("score")
    if expected is not None:
        if scheme == "scale":
            return pl.when(score.is_not_null()).then(score == expected.cast(pl.Float64))
        if scheme == "yes_no":
            expected = _checked_yes_no(expected)
        return pl.when(verdict.is_not_null()).then(_canonical(verdict) == _canonical(expected))
    if scheme == "grade":
        return pl.when(verdict.is_not_null()).then(verdict == "C")
    if scheme == "yes_no":
        return pl.when(verdict.is_not_null()).then(verdict == "yes")
    by_score = score >= pass_score if pass_score is not None else pl.lit(None, pl.Boolean)
    if scheme == "scale":
        return by_score
    return pl.when(verdict.is_not_null()).then(verdict == "pass").otherwise(by_score)


#: The parts of the model's output record that judge reads (besides its text).
_RECORD_PARTS: Final = ("partial", "notes", "trace", "status", "failure_kind")


def judge(
    text: IntoExpr = "judge",
    *,
    scheme: Scheme = "grade",
    expected: IntoExpr | None = None,
    answer: IntoExpr | None = None,
    pass_score: float | None = None,
    choices: Sequence[str] | None = None,
    scale: tuple[float, float] | None = None,
    on_conflict: OnConflict = "last",
    prefix: str = "",
    schema: Schema | None = None,
) -> pl.Expr:
    r"""Grade each row by the verdict read from a grader's text, its failures apart.

    The verdict is read as :func:`read_verdict` reads it. ``correct`` is true when the verdict
    passes: ``C`` under ``"grade"`` (P is partial credit: ``score`` 0.5), ``yes`` under
    ``"yes_no"``, ``pass`` under ``"json"``, or ``score >= pass_score`` (required for
    ``"scale"``; for ``"json"`` when the object has no ``pass`` key). With ``expected`` (say
    yes/no questions graded from the model's own reply) it is true when the verdict equals the
    expected one: "yes", "y", "true" are one verdict, "no", "n", "false" another, in any case.

    ``failure_kind`` is null when right, else the first that applies: with ``answer`` (the
    model's output record, read as :func:`answer_contains` reads it), the carried kind,
    ``error``, ``budget_stop``, ``refusal``, ``parse_failure`` (the model's own failure wins);
    then ``grader_failure`` (no verdict was read: the grader failed, not the model); then
    ``wrong``. A stopped or refused run whose verdict passes is right; an errored, carried-kind
    or empty reply never is. Reports leave ``grader_failure`` rows out of the accuracy.

    Parameters
    ----------
    text
        The grader's replies (a column name or String expression).
    scheme, choices, scale, on_conflict
        As for :func:`read_verdict`.
    expected
        A column of expected verdicts (or None).
    answer
        The model's output record (a text column or a struct with ``answer``/``text``,
        ``status``, ``partial``, ``notes``, ``trace``, ``failure_kind``), or None.
    pass_score
        The lowest passing ``score`` (``"scale"``, ``"json"``).
    prefix
        Put before each output name.
    schema
        The frame's schema, to check columns now (the frame functions pass it).

    Returns
    -------
    pl.Expr
        A struct named ``prefix + "judge"`` with ``correct`` (never null), ``failure_kind``,
        ``verdict``, ``score`` and ``grader_failure`` (each ``prefix + name``).

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame({"judge": ["Right. GRADE: C", "GRADE: [I]", "GRADE: CI", None]})
    >>> gf.with_judge(df).drop("judge")
    shape: (4, 5)
    ┌─────────┬────────────────┬─────────┬───────┬────────────────┐
    │ correct ┆ failure_kind   ┆ verdict ┆ score ┆ grader_failure │
    │ ---     ┆ ---            ┆ ---     ┆ ---   ┆ ---            │
    │ bool    ┆ str            ┆ str     ┆ f64   ┆ str            │
    ╞═════════╪════════════════╪═════════╪═══════╪════════════════╡
    │ true    ┆ null           ┆ C       ┆ 1.0   ┆ null           │
    │ false   ┆ wrong          ┆ I       ┆ 0.0   ┆ null           │
    │ false   ┆ grader_failure ┆ null    ┆ null  ┆ not_offered    │
    │ false   ┆ grader_failure ┆ null    ┆ null  ┆ empty          │
    └─────────┴────────────────┴─────────┴───────┴────────────────┘
    """
    check_prefix(prefix)
    check_verdict_arguments(scheme, choices, scale, on_conflict)
    _check_pass_score(pass_score, scheme, expected)
    for argument, value in (("text", text), ("expected", expected)):
        if isinstance(value, str) and schema is not None:
            check_column(schema, value, argument)
    read = read_verdict(text, scheme=scheme, choices=choices, scale=scale, on_conflict=on_conflict)
    expected_expr = None if expected is None else to_expr(expected, "expected")
    passes = _passes(scheme, expected_expr, pass_score)
    if answer is not None:
        # The output record as answer_contains reads it (flat columns by name, struct fields).
        record = resolve_record(answer, dict.fromkeys(_RECORD_PARTS), schema)
        model = {
            "carried": record.carried,
            "error": (record.status == "error").fill_null(value=False),
            "budget_stop": record.partial & record.budget_notes,
            "refusal": record.trace_refusal | (record.status == "refused").fill_null(value=False),
            "parse_failure": _is_blank(record.text),
        }
    else:
        model = {
            "carried": pl.lit(None, pl.String),
            "error": pl.lit(value=False),
            "budget_stop": pl.lit(value=False),
            "refusal": pl.lit(value=False),
            "parse_failure": pl.lit(value=False),
        }
    stages = read.struct.with_fields(**model).struct.with_fields(passes=passes)
    grader_failure = pl.coalesce(
        pl.field("grader_failure"),
        pl.when(pl.field("passes").is_null()).then(pl.lit(NO_VERDICT)),
    )
    stages = stages.struct.with_fields(
        grader_failure=grader_failure,
        correct=(
            pl.field("passes").fill_null(value=False)
            & pl.field("carried").is_null()
            & ~pl.field("error")
            & ~pl.field("parse_failure")
        ),
    )
    kind = kinds.failure_chain(
        correct=pl.field("correct"),
        no_reference=pl.lit(value=False),
        carried=pl.field("carried"),
        error=pl.field("error"),
        budget_stop=pl.field("budget_stop"),
        refusal=pl.field("refusal"),
        parse_failure=pl.field("parse_failure"),
        not_in_document=pl.lit(value=False),
        grader_failure=pl.field("grader_failure").is_not_null(),
    )
    result = pl.struct(
        *(
            (kind if name == "failure_kind" else pl.field(name)).alias(prefix + name)
            for name in JUDGE_COLUMNS
        )
    )
    return (
        stages.struct.with_fields(result.alias("_out")).struct.field("_out").alias(prefix + "judge")
    )


with_judge = frame_function(
    JUDGE_COLUMNS,
    judge,
    """Add ``correct``, ``failure_kind``, ``verdict``, ``score``, ``grader_failure``.

    See :func:`judge`.
    """,
)
