"""The containment rules of answer_contains.

Literal search, the whole-number (and whole-word) boundary checks, the explanations
(``explain=True``) and the rows whose acceptable answers are a JSON list.
"""

from __future__ import annotations

import functools
import operator
from typing import Final

import polars as pl

from gradeframe._delegate import returns_boolean
from gradeframe._inputs import (
    IntoExpr,
    to_expr,
)
from gradeframe._record import NULL_TEXT
from gradeframe._refs import json_list_refs
from gradeframe._subset import on_rows
from gradeframe.fold import (
    LETTER_FIRST,
    LETTER_LAST,
    NOT_IN_DOCUMENT_LABEL,
    fold,
    mark,
    mark_words,
    needles,
)

#: The columns ``explain=True`` adds after the output columns.
EXPLAIN_COLUMNS: Final = ("matched", "near_miss")


# --------------------------------------------------------------------------------------------
# Containment
# --------------------------------------------------------------------------------------------


# Each stage below reads the fields the stages before it added to one struct (pl.field), so every
# intermediate value is computed once: Polars does not share common subexpressions inside a
# struct on an eager frame, and the rules reuse the folded text many times.

# The boundary rules, checked on the (at most two) characters around one occurrence. They run on
# tiny strings, so they are cheap; see _check_occurrence. A word character is a letter, a number
# or a combining mark (fold.WORD); a digit is a Unicode decimal digit (\d).
#: Before an occurrence that begins with a digit: a digit, ".", or a minus sign ("-" not after a
#: word character; the context is cut at two characters, and "^" is the text's start only when
#: the occurrence is within two characters of it, which is exactly when the cut is shorter).
_BAD_BEFORE_DIGIT: Final = r"[\d.]$|(?:^|[^\p{L}\p{N}\p{M}])-$"
#: Before an occurrence that begins with "-" and a digit (or "-", "." and a digit): a word
#: character or ".".
_BAD_BEFORE_MINUS: Final = r"[\p{L}\p{N}\p{M}.]$"
#: Before an occurrence that begins with "." and a digit: a digit.
_BAD_BEFORE_DOT: Final = r"\d$"
#: After an occurrence that ends with a digit: a digit, or "." and a digit.
_BAD_AFTER_DIGIT: Final = r"^\.?\d"
#: Whole words: before an occurrence that begins with a letter, a word character.
_BAD_BEFORE_LETTER: Final = r"[\p{L}\p{N}\p{M}]$"
#: Whole words: after an occurrence that ends with a letter, a word character.
_BAD_AFTER_LETTER: Final = r"^[\p{L}\p{N}\p{M}]"


#: Acceptable answers longer than this (in bytes) are searched by splitting the text at them:
#: Polars' literal search compiles a regex when the pattern is one value for a whole column (a
#: one-row frame or batch), and a pattern of a few hundred KB exceeds the regex size limit.
LONG_PATTERN: Final = 4096


def contains_literal(text: pl.Expr, pattern: pl.Expr) -> pl.Expr:
    """Return whether ``text`` contains ``pattern`` (a column) as a literal, at any length."""
    return _literal_search(text, pattern, find=False)


def find_literal(text: pl.Expr, pattern: pl.Expr) -> pl.Expr:
    """Return the byte offset of the first literal ``pattern`` in ``text``, at any length."""
    return _literal_search(text, pattern, find=True)


def _literal_search(text: pl.Expr, pattern: pl.Expr, *, find: bool) -> pl.Expr:
    # Polars' own literal search, batch by batch; only a batch holding a long pattern takes the
    # slower split for those rows (one check per batch: the common case costs nothing more).
    text_col, pattern_col = pl.col("text"), pl.col("pattern")
    if find:
        plain = text_col.str.find(pattern_col, literal=True)
    else:
        plain = text_col.str.contains(pattern_col, literal=True)
    long = pattern_col.str.len_bytes() > LONG_PATTERN
    split = pl.when(long).then(text_col).str.splitn(pattern_col, 2)
    hit = split.struct.field("field_1").is_not_null()
    by_split = (
        pl.when(hit).then(split.struct.field("field_0").str.len_bytes().cast(pl.UInt32))
        if find
        else hit
    )
    masked = text_col.str.find if find else text_col.str.contains
    short = masked(pl.when(~long).then(pattern_col), literal=True)
    safe = pl.when(long).then(by_split).otherwise(short)

    def run(batch: pl.Series) -> pl.Series:
        frame = batch.struct.unnest()
        lengths = frame.get_column("pattern").str.len_bytes()
        needs_split = bool((lengths > LONG_PATTERN).any())
        return frame.select((safe if needs_split else plain).alias(batch.name)).to_series()

    dtype = pl.UInt32() if find else pl.Boolean()
    return pl.struct(text=text, pattern=pattern).map_batches(
        run, return_dtype=dtype, is_elementwise=True
    )


def _ref_rules(ref: pl.Expr, *, whole_words: bool = False) -> pl.Expr:
    """Work out everything about acceptable answers that does not depend on the answer."""
    # The folded text is a struct field that the rules read, so it is folded once (Polars does
    # not share a subexpression between the fields of a struct).
    folded = pl.field("ref")
    words = (
        {
            "letter_first": folded.str.contains(LETTER_FIRST).fill_null(value=False),
            "letter_last": folded.str.contains(LETTER_LAST).fill_null(value=False),
        }
        if whole_words
        else {}
    )
    return pl.struct(ref=fold(ref)).struct.with_fields(
        **words,
        usable=(folded.is_not_null() & (folded != "")).fill_null(value=False),
        label=(folded == NOT_IN_DOCUMENT_LABEL).fill_null(value=False),
        digit_first=folded.str.contains(r"^\d").fill_null(value=False),
        minus_first=folded.str.contains(r"^-\.?\d").fill_null(value=False),
        dot_first=folded.str.contains(r"^\.\d").fill_null(value=False),
        digit_last=folded.str.contains(r"\d$").fill_null(value=False),
        first_bytes=folded.str.head(1).str.len_bytes(),
    )


def ref_info(refs: pl.Expr, *, whole_words: bool = False) -> pl.Expr:
    """Apply :func:`_ref_rules` once per distinct acceptable answer (they repeat across rows)."""
    distinct = refs.unique(maintain_order=True)  # the same order on both sides of the mapping
    rules = _ref_rules(distinct, whole_words=whole_words)
    return refs.replace_strict(distinct, rules, default=None)


_RULES: Final = ("digit_first", "minus_first", "dot_first", "digit_last")
#: The rules of whole words (``whole_words=True``).
_WORD_RULES: Final = ("letter_first", "letter_last")


def _rules(*, whole_words: bool) -> tuple[str, ...]:
    return _RULES + _WORD_RULES if whole_words else _RULES


def match_stages(base: pl.Expr, *, whole_words: bool = False) -> pl.Expr:
    """Add ``found``, ``usable`` and ``label`` to a struct with ``outcome`` and ``info``.

    A literal search over every row; then, on the rows with an occurrence alone, the boundary
    rules on the two characters around the first one (:func:`_check_occurrence`), and, on the
    rows where it breaks a rule, a second search (:func:`_rescan`).
    """
    info = pl.field("info")

    def rule(name: str) -> pl.Expr:
        return info.struct.field(name).fill_null(value=False)

    searched = pl.when(rule("usable") & ~rule("label")).then(pl.field("outcome"))
    staged = base.struct.with_fields(
        plain=contains_literal(searched, info.struct.field("ref")).fill_null(value=False),
        usable=rule("usable"),
        label=rule("label"),
    )
    found = on_rows(
        pl.field("plain"),
        {
            "outcome": pl.field("outcome"),
            "ref": info.struct.field("ref"),
            "first_bytes": info.struct.field("first_bytes"),
            **{name: rule(name) for name in _rules(whole_words=whole_words)},
        },
        _check_occurrence(whole_words=whole_words),
        otherwise=_none_found,
        dtype=pl.Boolean(),
    )
    return staged.struct.with_fields(found=found)


def _check_occurrence(*, whole_words: bool = False) -> pl.Expr:
    """Check the boundary rules around the first occurrence, and search again where it fails.

    It reads ``outcome``, ``ref``, ``first_bytes`` and the four rules of ``ref`` (six with
    ``whole_words``), on rows where ``ref`` occurs in ``outcome``. Each value is a struct field,
    computed once.
    """
    position = pl.field("position")
    raw = pl.field("outcome").cast(pl.Binary)  # find gives bytes; cut at character boundaries
    rules = _rules(whole_words=whole_words)
    staged = pl.struct("outcome", "ref", "first_bytes", *rules).struct.with_fields(
        position=find_literal(pl.field("outcome"), pl.field("ref"))
    )
    after = raw.bin.slice(position + pl.field("ref").str.len_bytes())
    staged = staged.struct.with_fields(  # a field each: the four rules below read them
        before=raw.bin.head(position).cast(pl.String).str.tail(2),
        after=after.cast(pl.String).str.head(2),
    )
    before, after = pl.field("before"), pl.field("after")
    broken = (
        (pl.field("digit_first") & before.str.contains(_BAD_BEFORE_DIGIT))
        | (pl.field("minus_first") & before.str.contains(_BAD_BEFORE_MINUS))
        | (pl.field("dot_first") & before.str.contains(_BAD_BEFORE_DOT))
        | (pl.field("digit_last") & after.str.contains(_BAD_AFTER_DIGIT))
    )
    if whole_words:
        broken = (
            broken
            | (pl.field("letter_first") & before.str.contains(_BAD_BEFORE_LETTER))
            | (pl.field("letter_last") & after.str.contains(_BAD_AFTER_LETTER))
        )
    broken = broken.fill_null(value=False)
    staged = staged.struct.with_fields(broken=broken)
    rescanned = on_rows(
        pl.field("broken"),
        {
            "outcome": pl.field("outcome"),
            "ref": pl.field("ref"),
            "after": position + pl.field("first_bytes"),
        },
        _rescan(whole_words=whole_words),
        otherwise=_none_found,
        dtype=pl.Boolean(),
    )
    return staged.struct.with_fields(found=~pl.field("broken") | rescanned).struct.field("found")


def _rescan(*, whole_words: bool = False) -> pl.Expr:
    """Search again, on the rows whose first occurrence broke a rule (about one in ten).

    It reads ``outcome``, ``ref`` and ``after`` (the byte offset just past the first character
    of the first occurrence). Only the rows with another occurrence after the first (overlapping
    ones too; a few in ten thousand) are marked and searched for the needle, which finds any
    occurrence that keeps the rules: marking costs several regex passes.
    """
    later = pl.col("outcome").cast(pl.Binary).bin.slice(pl.col("after")).cast(pl.String)
    first, second = needles(pl.col("ref"), whole_words=whole_words)
    marked = mark(pl.col("outcome"))
    if whole_words:
        marked = mark_words(marked)
    hit = contains_literal(marked, first) | contains_literal(marked, second).fill_null(value=False)
    return on_rows(
        contains_literal(later, pl.col("ref")),
        {"outcome": pl.col("outcome"), "ref": pl.col("ref")},
        hit.fill_null(value=False),
        otherwise=_none_found,
        dtype=pl.Boolean(),
    )


@returns_boolean
def occurs_but_rejected(outcome: IntoExpr, ref: IntoExpr, *, whole_words: bool = False) -> pl.Expr:
    """Return whether an acceptable answer occurs in the outcome only where a rule rejects it.

    For ``explain=True``'s ``near_miss``: true where the folded acceptable answer occurs in
    the folded answer as plain text, but every occurrence breaks a whole-number rule (or, with
    ``whole_words``, a whole-word rule): "45.2" in "it is 145.2 m.", "uk" in "ukraine". False
    where it is found by the rules, does not occur at all, or is blank or the unanswerable
    label; null where ``outcome`` is null. Internal: the same stages as answer_contains, one
    acceptable answer (String) per row.

    Parameters
    ----------
    outcome
        The folded answer (String), as answer_contains' ``outcome``.
    ref
        One acceptable answer per row (String; folded here).
    whole_words
        Apply the whole-word rule too.

    Examples
    --------
    >>> import polars as pl
    >>> from gradeframe.answer import occurs_but_rejected
    >>> df = pl.DataFrame(
    ...     {
    ...         "outcome": ["it is 145.2 m.", "in ukraine", "the uk", None],
    ...         "ref": ["45.2", "UK", "UK", "7"],
    ...     }
    ... )
    >>> near = occurs_but_rejected("outcome", "ref", whole_words=True)
    >>> df.select(near)["occurs_but_rejected"].to_list()
    [True, True, False, None]
    """
    check_whole_words(whole_words)
    text = to_expr(outcome, "outcome")
    item = pl.struct(outcome=text, info=_ref_rules(to_expr(ref, "ref"), whole_words=whole_words))
    staged = match_stages(item, whole_words=whole_words)
    rejected = staged.struct.field("plain") & ~staged.struct.field("found")
    return pl.when(text.is_not_null()).then(rejected).alias("occurs_but_rejected")


def _none_found(frame: pl.DataFrame) -> pl.Series:
    return pl.zeros(frame.height, dtype=pl.Boolean, eager=True)


#: The flags one item of a list gives its row, as bits: any item with the flag sets it.
_ITEM_FLAGS: Final = {"found": 1, "usable": 2, "label": 4}


def match_unrolled(
    row: pl.Expr, width: int, *, explain: bool = False, whole_words: bool = False
) -> pl.Expr:
    """Match a list of at most ``width`` acceptable answers row by row (streams: no explode).

    Each item is matched by its own expression on the row (none nests in another, which keeps
    planning linear in ``width``) and packs its flags into bits, OR-ed across the items. With
    ``explain``, each item is a field of the row (computed once) that also gives its
    explanations, and the first item's that has one is the row's.
    """
    codes, items = [], {}
    for i in range(width):
        given = pl.field("refs").list.get(i, null_on_oob=True)
        item = pl.struct(
            outcome=pl.field("outcome"),
            info=_ref_rules(given, whole_words=whole_words),
            **({"refs": given} if explain else {}),
        )
        code = sum(
            (pl.field(flag).cast(pl.Int8) * bit for flag, bit in _ITEM_FLAGS.items()),
            start=pl.lit(0, dtype=pl.Int8),
        )
        staged = match_stages(item, whole_words=whole_words).struct.with_fields(code=code)
        if not explain:
            codes.append(staged.struct.field("code"))
            continue
        items[f"__item{i}"] = _explained(staged)
        codes.append(pl.field(f"__item{i}").struct.field("code"))
    if items:
        row = row.struct.with_fields(**items)
    either = functools.reduce(operator.or_, codes, pl.lit(0, dtype=pl.Int8))  # bitwise
    row = row.struct.with_fields(codes=either)
    row = row.struct.with_fields(
        **{flag: (pl.field("codes") & bit) > 0 for flag, bit in _ITEM_FLAGS.items()}
    )
    if not explain:
        return row
    first = {
        name: pl.coalesce([pl.field(item).struct.field(name) for item in items])
        if items
        else NULL_TEXT
        for name in EXPLAIN_COLUMNS
    }
    return row.struct.with_fields(**first)


def match_one(
    row: pl.Expr, *, explain: bool = False, json_text: bool = False, whole_words: bool = False
) -> pl.Expr:
    """Match one acceptable answer per row, row by row: the row struct is the item.

    ``json_text``: the acceptable answers are text, so a row's may be a JSON list
    (:func:`_json_rows` matches those rows' items).
    """
    info = _ref_rules(pl.field("refs"), whole_words=whole_words)
    row = match_stages(row.struct.with_fields(info=info), whole_words=whole_words)
    return after_match_one(row, explain=explain, json_text=json_text, whole_words=whole_words)


def after_match_one(
    row: pl.Expr, *, explain: bool, json_text: bool, whole_words: bool = False
) -> pl.Expr:
    """Add the explanations and the JSON-list rows to a row matched against one answer."""
    if explain:
        row = _explained(row)
    if json_text:
        row = _json_rows(row, explain=explain, whole_words=whole_words)
    return row


def check_explain(explain: object) -> None:
    """Raise a TypeError unless ``explain`` is a bool."""
    if not isinstance(explain, bool):
        msg = f"`explain` must be True or False, got {type(explain).__name__}: {explain!r}"
        raise TypeError(msg)


def check_whole_words(whole_words: object) -> None:
    """Raise unless ``whole_words`` is a bool."""
    if not isinstance(whole_words, bool):
        kind = type(whole_words).__name__
        msg = f"`whole_words` must be True or False, got {kind}: {whole_words!r}"
        raise TypeError(msg)


# --------------------------------------------------------------------------------------------
# Explanations (explain=True) and JSON-list rows
# --------------------------------------------------------------------------------------------


def _explained(item: pl.Expr) -> pl.Expr:
    """Add ``matched`` and ``near_miss`` to a matched item (fields ``refs``, ``plain``, ``found``).

    ``matched`` is the acceptable answer as given where it was found; ``near_miss`` is it where
    its folded text occurs in the folded answer (``plain``) but no occurrence keeps the boundary
    rules of :func:`_check_occurrence` (the whole-number rules). Any rule that rejects an
    occurrence there shows here the same way: the whole-word rule of ``whole_words=True``
    belongs in that check, and then needs nothing here.
    """
    given = pl.field("refs")
    return item.struct.with_fields(
        matched=pl.when(pl.field("found")).then(given),
        near_miss=pl.when(pl.field("plain") & ~pl.field("found")).then(given),
    )


#: The bit of a JSON-list row's code that says the row's acceptable answer is a JSON list (the
#: other bits are _ITEM_FLAGS).
_JSON_BIT: Final = 8


def _json_rows(row: pl.Expr, *, explain: bool, whole_words: bool = False) -> pl.Expr:
    """Match the items of JSON-list acceptable answers, on those rows only (:func:`on_rows`).

    ``row`` was matched against its acceptable answer as one text. Rows whose acceptable answer
    holds no "[" (one literal search) are left as they are; on the others,
    :func:`json_list_refs` reads the list and :func:`match_any` matches its items, and where
    it is a list its flags (and explanations) replace the row's.
    """
    columns = {"outcome": pl.field("outcome"), "refs": pl.field("refs")}
    listed = pl.struct(outcome=pl.col("outcome"), refs=json_list_refs(pl.col("refs")))
    listed = listed.struct.with_fields(__json=pl.field("refs").is_not_null())
    matched = match_any(listed, explain=explain, whole_words=whole_words)
    flags = {**_ITEM_FLAGS, "__json": _JSON_BIT}
    code = sum(
        (pl.field(flag).cast(pl.Int8) * bit for flag, bit in flags.items()),
        start=pl.lit(0, dtype=pl.Int8),
    )
    codes = on_rows(
        pl.field("refs").str.contains("[", literal=True),
        columns,
        matched.struct.with_fields(__code=code).struct.field("__code"),
        otherwise=_no_code,
        dtype=pl.Int8(),
    )
    row = row.struct.with_fields(__json=codes)
    is_json = (pl.field("__json") & _JSON_BIT) > 0
    row = row.struct.with_fields(
        **{
            flag: pl.when(is_json).then((pl.field("__json") & bit) > 0).otherwise(pl.field(flag))
            for flag, bit in _ITEM_FLAGS.items()
        }
    )
    if not explain:
        return row
    texts = {
        name: on_rows(
            is_json,
            columns,
            matched.struct.field(name),
            otherwise=_no_text,
            dtype=pl.String(),
        )
        for name in EXPLAIN_COLUMNS
    }
    return row.struct.with_fields(
        **{
            name: pl.when(is_json).then(text).otherwise(pl.field(name))
            for name, text in texts.items()
        }
    )


def _no_code(frame: pl.DataFrame) -> pl.Series:
    return pl.zeros(frame.height, dtype=pl.Int8, eager=True)


def _no_text(frame: pl.DataFrame) -> pl.Series:
    return pl.repeat(None, frame.height, dtype=pl.String, eager=True)


def explanation(name: str) -> pl.Expr:
    """Return the output ``matched`` or ``near_miss``.

    Both are null for unanswerable items, and ``near_miss`` is null where an answer was found.
    """
    unanswerable = pl.field("label")
    if name == "near_miss":
        unanswerable = unanswerable | pl.field("matched").is_not_null()
    return pl.when(~unanswerable).then(pl.field(name))


def match_any(row: pl.Expr, *, explain: bool = False, whole_words: bool = False) -> pl.Expr:
    """Match a list of acceptable answers per row: one item per (row, acceptable answer).

    Every row explodes to at least one item (a null for an empty or null list), so the items of
    row i end at ``ends[i]``; the running count of each flag at the row ends, less the one at the
    previous row's end, says whether any item of the row has it. With ``explain``, each item
    also carries the first explanation of its row from the row's first item on (a backward fill
    read at the row's first item, carried forward to its last), read at the row ends too.
    """
    row = row.struct.with_fields(
        counts=pl.field("refs").list.len().fill_null(0).cast(pl.Int64).clip(lower_bound=1)
    )
    rows = pl.int_range(pl.len(), dtype=pl.Int64).repeat_by(pl.field("counts")).explode()
    refs = pl.field("refs").explode(empty_as_null=True, keep_nulls=True)
    given = {"refs": refs, "__row": rows} if explain else {}
    items = match_stages(
        pl.struct(
            outcome=pl.field("outcome").gather(rows),
            info=ref_info(refs, whole_words=whole_words),
            **given,
        ),
        whole_words=whole_words,
    )
    flags: tuple[str, ...] = ("found", "usable", "label")
    if explain:
        items = _explained(items)
        start = (pl.field("__row") != pl.field("__row").shift(1)).fill_null(value=True)
        firsts = {
            name: pl.when(start).then(pl.field(name).backward_fill()).forward_fill()
            for name in EXPLAIN_COLUMNS
        }
        flags = (*flags, *EXPLAIN_COLUMNS)
        items = items.struct.with_fields(
            **{f"__first_{name}": first for name, first in firsts.items()}
        )
    running = items.struct.with_fields(
        **{flag: pl.field(flag).is_not_null().cast(pl.Int64).cum_sum() for flag in flags[3:]},
        **{flag: pl.field(flag).cast(pl.Int64).cum_sum() for flag in flags[:3]},
    )
    row = row.struct.with_fields(running=running.gather(pl.field("counts").cum_sum() - 1))

    def any_item(flag: str) -> pl.Expr:
        total = pl.field("running").struct.field(flag)
        return (total - total.shift(1, fill_value=0)) > 0

    row = row.struct.with_fields(**{flag: any_item(flag) for flag in flags})
    if not explain:
        return row
    return row.struct.with_fields(
        **{
            name: pl.when(pl.field(name)).then(pl.field("running").struct.field(f"__first_{name}"))
            for name in EXPLAIN_COLUMNS
        }
    )
