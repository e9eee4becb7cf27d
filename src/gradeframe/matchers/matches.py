r"""matches: the answer matches a regular expression, with Polars' (Rust) regex semantics.

Polars runs every pattern it accepts. A pattern it rejects (lookaround, backreferences, atomic
groups, ...) runs on the ``regex`` module instead, rewritten so that it means what it would
mean in Rust: ``$`` outside multi-line mode is the very end of the text (Python's ``$`` also
matches before a final newline), written ``\Z`` for the ``regex`` module. The fallback runs once
per distinct pattern over the distinct answers: the one Python loop of a scoring path, over
patterns and distinct texts, never rows.
"""

from __future__ import annotations

import functools
import re
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeAlias

import polars as pl
import regex

from gradeframe._inputs import IntoExpr, Schema, is_text
from gradeframe.matchers import _base
from gradeframe.matchers._base import Input

__all__ = ["MATCHES", "MATCHES_COLUMNS", "matches", "with_matches"]

PatternLike: TypeAlias = str | re.Pattern[str] | regex.Pattern[str]

MATCHES: Final = _base.matcher("matches", {"actual": "mixed", "pattern_column": None})
#: The columns matches adds, before ``prefix``.
MATCHES_COLUMNS: Final = MATCHES.columns

#: Flags of a compiled ``re``/``regex`` pattern that Polars runs as inline flags.
_INLINE_FLAGS: Final = (
    (re.IGNORECASE, "i"),
    (re.MULTILINE, "m"),
    (re.DOTALL, "s"),
    (re.VERBOSE, "x"),
)
#: Flags that change nothing Polars does differently (Unicode is its default; VERSION0 is regex's).
_NEUTRAL_FLAGS: Final = re.UNICODE | regex.VERSION0

#: A backslash escape, matched pairwise so that ``\\Z`` (a backslash, then "Z") is left alone.
_ESCAPE_RE: Final = re.compile(r"\\(.)", re.DOTALL)

#: A group that opens with inline flags: ``(?flags)`` or ``(?flags-flags:``.
_FLAGS_GROUP_RE: Final = re.compile(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])")


def _timeout() -> float:
    """``gradeframe.matchers.REGEX_TIMEOUT``, read when a search runs (it may be changed)."""
    return sys.modules["gradeframe.matchers"].REGEX_TIMEOUT


def _budget() -> float:
    """``gradeframe.matchers.REGEX_BUDGET``, read when a call starts (it may be changed)."""
    return sys.modules["gradeframe.matchers"].REGEX_BUDGET


def deadline() -> float:
    """Return when the regex budget of a call that starts now runs out (``time.monotonic``)."""
    return time.monotonic() + _budget()


def for_polars(source: str, flags: int) -> str | None:
    r"""Return the pattern as Polars should run it, or None when only ``regex`` can.

    Inline flags stand for the compiled pattern's flags; Python's ``\Z`` (end of text) is Rust's
    ``\z``. ``\A`` and ``\z`` mean the same in both engines.
    """
    extra = flags & ~_NEUTRAL_FLAGS
    inline = ""
    for flag, letter in _INLINE_FLAGS:
        if extra & flag:
            inline += letter
            extra &= ~flag
    if extra:
        return None  # ASCII, LOCALE, regex's V1, FULLCASE, ...: only the regex module has them
    body = _ESCAPE_RE.sub(lambda m: r"\z" if m.group(1) == "Z" else m.group(0), source)
    return f"(?{inline}){body}" if inline else body


def _for_regex(source: str, flags: int) -> str:
    r"""Rewrite a pattern so that the ``regex`` module gives Rust's answers.

    Outside multi-line mode, Rust's ``$`` is the very end of the text; Python's also matches
    before a final newline. Each ``$`` that is not escaped, not in a character class and not
    in multi-line mode becomes ``\Z``. Multi-line mode comes from the flags, a global ``(?m)``
    (the ``regex`` module applies inline flags to the whole pattern), or a scoped ``(?m:...)``.
    """
    multiline = bool(flags & re.MULTILINE) or any(
        "m" in m.group(1) and m.group(3) == ")" for m in _FLAGS_GROUP_RE.finditer(source)
    )
    out: list[str] = []
    scopes: list[bool] = []  # multi-line mode of each open group
    current = multiline
    i = 0
    while i < len(source):
        char = source[i]
        if char == "\\":
            out.append(source[i : i + 2])
            i += 2
            continue
        if char == "[":
            end = _class_end(source, i)
            out.append(source[i:end])
            i = end
            continue
        if char == "(":
            scopes.append(current)
            group = _FLAGS_GROUP_RE.match(source, i)
            if group is not None and group.group(3) == ":":
                if "m" in group.group(1):
                    current = True
                if "m" in (group.group(2) or ""):
                    current = False
        elif char == ")":
            current = scopes.pop() if scopes else multiline
        elif char == "$" and not current:
            out.append(r"\Z")
            i += 1
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _class_end(source: str, start: int) -> int:
    """Return the index just past the character class that opens at ``start``."""
    i = start + 1
    if i < len(source) and source[i] == "^":
        i += 1
    if i < len(source) and source[i] == "]":
        i += 1  # a leading "]" is a literal
    while i < len(source):
        if source[i] == "\\":
            i += 2
            continue
        if source[i] == "[":  # a nested set (regex V1) or a POSIX class: skip it whole
            i = _class_end(source, i)
            continue
        if source[i] == "]":
            return i + 1
        i += 1
    return len(source)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


#: Patterns at least this long are checked against Polars' regex size limit before the
#: fallback: Polars' limit is reached by patterns of a few hundred KB, and the ``regex`` module
#: takes minutes on those (its search timeout is not checked inside a long literal).
_LONG_PATTERN: Final = 10_000


def _over_size_limit(source: str, flags: int) -> bool:
    polars_pattern = for_polars(source, flags) or source
    try:
        pl.select(pl.lit("", dtype=pl.String).str.contains(polars_pattern))
    except pl.exceptions.PolarsError as exc:
        return "size limit" in str(exc)
    return False


def compile_fallback(source: str, flags: int, where: str) -> regex.Pattern[str]:
    if len(source) >= _LONG_PATTERN and _over_size_limit(source, flags):
        msg = (
            f"{where}: the pattern ({len(source):,} characters, starting {source[:40]!r}) is "
            "over Polars' regex size limit, and the regex module would take minutes on it. "
            "To find literal text, use includes(), which finds a needle of any length."
        )
        raise ValueError(msg)
    try:
        regex.compile(source, flags)  # the error, if any, is about the pattern as written
        return regex.compile(_for_regex(source, flags), flags)
    except (regex.error, ValueError, TypeError) as exc:
        msg = f"{where}: {source!r} is not a valid regular expression ({_first_line(exc)})."
        raise ValueError(msg) from None


def polars_accepts(pattern: str) -> bool:
    try:
        pl.select(pl.lit("", dtype=pl.String).str.contains(pattern))
    except pl.exceptions.PolarsError:
        return False
    return True


def per_distinct(
    text: pl.Series,
    compute: Callable[[str, float], Any],
    dtype: pl.DataType,
    *,
    shown: str,
    where: str,
    on: str,
    until: float | None = None,
) -> pl.Series:
    """Run a ``regex`` computation once per distinct text and spread the results back.

    ``compute(text, timeout)`` runs the pattern on one text; a null text gives null. A run past
    :data:`REGEX_TIMEOUT` raises naming the pattern (``shown``, given as ``where``) and the text
    (``on`` says what a text is: "answer", "text"). The searches of one call share a budget,
    :data:`REGEX_BUDGET` seconds, which ends at ``until`` (a ``time.monotonic`` value; default:
    the budget from now): past it the call raises naming the pattern and how many rows were
    done, so many slow texts cannot add up to minutes.
    """
    if text.is_empty():
        return pl.Series(text.name, [], dtype=dtype)
    until = deadline() if until is None else until
    distinct = text.drop_nulls().unique()
    values = distinct.to_list()
    results: list[Any] = []
    timeout = _timeout()
    for value in values:
        left = until - time.monotonic()
        try:
            if left <= 0:
                raise TimeoutError
            results.append(compute(value, min(timeout, left)))
        except TimeoutError:
            if left < timeout:
                done = int(text.is_in(pl.Series(values[: len(results)], dtype=text.dtype)).sum())
                msg = (
                    f"{where}: {shown!r} used up the regex time budget of one call "
                    f"(gradeframe.matchers.REGEX_BUDGET = {_budget()} s) after {done:,} of "
                    f"{text.len():,} rows ({len(results):,} of {len(values):,} distinct {on}s); "
                    "the pattern is slow on these texts. Rewrite it, or raise "
                    "gradeframe.matchers.REGEX_BUDGET."
                )
                raise ValueError(msg) from None
            cut = value if len(value) <= 80 else value[:77] + "..."
            msg = (
                f"{where}: {shown!r} took longer than {timeout} s on one {on} "
                f"({cut!r}); the pattern backtracks catastrophically. Rewrite it, or raise "
                "gradeframe.matchers.REGEX_TIMEOUT."
            )
            raise ValueError(msg) from None
    return text.replace_strict(
        distinct, pl.Series(results, dtype=dtype), default=None, return_dtype=dtype
    )


def _search_distinct(
    compiled: regex.Pattern[str],
    shown: str,
    where: str,
    text: pl.Series,
    *,
    until: float | None = None,
) -> pl.Series:
    """Run a ``regex`` search once per distinct text and spread the answers back."""
    return per_distinct(
        text,
        lambda value, timeout: compiled.search(value, timeout=timeout) is not None,
        pl.Boolean(),
        shown=shown,
        where=where,
        on="answer",
        until=until,
    )


def pattern_source(pattern: object) -> tuple[str, int]:
    if isinstance(pattern, re.Pattern | regex.Pattern):
        if not isinstance(pattern.pattern, str):
            msg = f"`pattern` must be a text pattern, got a bytes pattern: {pattern!r}"
            raise TypeError(msg)
        return pattern.pattern, pattern.flags
    if isinstance(pattern, str):
        return pattern, 0
    msg = (
        "`pattern` must be a str, re.Pattern or regex.Pattern, "
        f"got {type(pattern).__name__}: {pattern!r}"
    )
    raise TypeError(msg)


def _match_one(text: pl.Expr, pattern: object) -> pl.Expr:
    """One pattern for every row: Polars runs it if it can, else the regex module does."""
    source, flags = pattern_source(pattern)
    where = "`pattern`"
    polars_pattern = for_polars(source, flags)
    if polars_pattern is not None and polars_accepts(polars_pattern):
        return text.str.contains(polars_pattern)
    compiled = compile_fallback(source, flags, where)
    search = functools.partial(_search_distinct, compiled, source, where)
    return text.map_batches(search, return_dtype=pl.Boolean)


def _match_column(series: Sequence[pl.Series]) -> pl.Series:
    """Per-row patterns, run once per distinct pattern over the rows that carry it.

    Rows are sorted by pattern, so each distinct pattern is one contiguous run: Polars runs it
    on that run with the pattern as a literal (compiled once), or the regex module does. The
    Python loop is over distinct patterns, never rows. (Polars' per-row ``str.contains`` with a
    pattern column recompiles whenever the pattern changes from one row to the next: minutes
    per million rows with a hundred interleaved patterns.)
    """
    text, patterns = series
    height = max(len(text), len(patterns))
    text = text if len(text) == height else text.new_from_index(0, height)
    patterns = patterns if len(patterns) == height else patterns.new_from_index(0, height)
    if patterns.null_count():
        row = patterns.is_null().arg_true()[0]
        msg = f"`pattern_column`: row {row} has no pattern (null); every row needs one."
        raise ValueError(msg)
    if height == 0:
        return pl.Series(dtype=pl.Boolean)
    until = deadline()  # one budget for every pattern of the call
    order = patterns.arg_sort()
    sorted_text = text.gather(order)
    runs = patterns.gather(order).rle().struct.unnest()
    chunks = []
    start = 0
    for length, source in runs.iter_rows():
        part = sorted_text.slice(start, length)
        polars_pattern = for_polars(source, 0)
        try:
            chunks.append(part.str.contains(polars_pattern))
        except pl.exceptions.PolarsError:
            row = order.slice(start, length).min()
            where = f"`pattern_column` row {row}"
            compiled = compile_fallback(source, 0, where)
            chunks.append(_search_distinct(compiled, source, where, part, until=until))
        start += length
    return pl.concat(chunks).gather(order.arg_sort())


@_base.shares_parameters
def matches(
    actual: IntoExpr,
    pattern: PatternLike | None = None,
    *,
    pattern_column: IntoExpr | None = None,
    label: str | None = None,
    prefix: str = "",
    schema: Schema | None = None,
) -> pl.Expr:
    r"""Check that answers match a regular expression (anywhere in the text, like ``search``).

    Give exactly one of ``pattern`` (the same for every row) and ``pattern_column`` (one per
    row). Patterns mean what they mean in Polars (Rust's regex engine): Polars runs every
    pattern it accepts; a pattern it rejects (lookaround, backreferences, atomic groups, ...)
    runs on the ``regex`` module instead and gives the same answers: ``$`` (outside multi-line
    mode) is the very end of the text, so ``"x\n"`` matches neither ``x$`` nor ``(?=x)x$``.
    ``\A`` is the start of the text and ``\z`` (or Python's ``\Z``) its end. The fallback runs
    once per distinct pattern over the distinct answers, each search limited to
    ``gradeframe.matchers.REGEX_TIMEOUT`` seconds and all the searches of one call to
    ``gradeframe.matchers.REGEX_BUDGET`` seconds, so a catastrophic pattern raises naming it
    (and how many rows were done) instead of hanging. A null answer reads as ``""``; a number
    or boolean is read as text.

    Parameters
    ----------
    actual
        The answers: a column name or an expression.
    pattern
        A regular expression (str), or a compiled ``re.Pattern``/``regex.Pattern`` whose
        IGNORECASE, MULTILINE, DOTALL and VERBOSE flags are kept (as inline flags for Polars;
        other flags make the ``regex`` module run it). Never a column name.
    pattern_column
        A String column name or expression holding one pattern per row. A null or invalid
        pattern raises naming the row.
    label
        Replaces the default description ``"matches expected pattern"``.

    Returns
    -------
    pl.Expr
        A struct expression named ``prefix + "matches"`` with the fields ``correct`` and
        ``expectation``.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame({"code": ["AB-1234", "ab-1234", "AB-1234\n", None]})
    >>> df.select(gf.matches("code", r"\A[A-Z]{2}-\d{4}\z")).unnest("matches")
    shape: (4, 2)
    ┌─────────┬──────────────────────────┐
    │ correct ┆ expectation              │
    │ ---     ┆ ---                      │
    │ bool    ┆ str                      │
    ╞═════════╪══════════════════════════╡
    │ true    ┆ matches expected pattern │
    │ false   ┆ matches expected pattern │
    │ false   ┆ matches expected pattern │
    │ false   ┆ matches expected pattern │
    └─────────┴──────────────────────────┘
    """
    if (pattern is None) == (pattern_column is None):
        given = "neither" if pattern is None else "both"
        msg = (
            "`matches` needs exactly one of `pattern` (one for every row) and `pattern_column` "
            f"(one per row), and was given {given}."
        )
        raise ValueError(msg)
    expectation = _base.expectation(label, "matches expected pattern")
    arguments = {"actual": (actual, _base.into(actual, "actual"))}
    if pattern is not None:
        pattern_source(pattern)  # type errors now
    else:
        arguments["pattern_column"] = (
            pattern_column,
            _base.into(pattern_column, "pattern_column"),
        )
    return _base.expression(
        MATCHES,
        arguments,
        lambda inputs: _rule(inputs, pattern),
        expectation=expectation,
        prefix=prefix,
        schema=schema,
    )


def _rule(inputs: dict[str, Input], pattern: PatternLike | None) -> pl.Expr:
    text = inputs["actual"].text()
    if pattern is not None:
        correct = _match_one(text, pattern)
    else:
        column = inputs["pattern_column"]
        if not (is_text(column.dtype) or column.dtype == pl.Null):
            raise column.error("String")
        correct = pl.map_batches(
            [text, column.expr.cast(pl.String)], _match_column, return_dtype=pl.Boolean
        )
    return pl.struct(correct=correct.fill_null(value=False))


with_matches = _base.frame_function(
    MATCHES.columns,
    matches,
    "Add ``correct`` and ``expectation`` to a frame; see :func:`matches`.",
)
