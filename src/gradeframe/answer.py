"""answer_contains: containment with whole numbers, the unanswerable label and the failure kinds.

Everything is a Polars expression; :func:`answer_contains` returns one struct expression, and
:func:`with_answer_contains` adds its three fields to a frame. The not-found detector lives in
:mod:`gradeframe.not_found`, the refusal detector (``refusal=``) in :mod:`gradeframe.refusal`,
the failure kinds and their chain in :mod:`gradeframe.kinds`. ``whole_words=True`` extends the
whole-number rules with whole-word ones (see :mod:`gradeframe.fold`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeAlias

import polars as pl

from gradeframe import kinds
from gradeframe._containment import (
    EXPLAIN_COLUMNS,
    after_match_one,
    check_explain,
    check_whole_words,
    explanation,
    match_any,
    match_one,
    match_stages,
    match_unrolled,
    ref_info,
)

# Names that lived in this module before the output record, the acceptable answers as text and
# the containment rules got modules of their own (the `X as X` imports here and below):
# `gradeframe.answer.<name>` keeps working.
from gradeframe._containment import LONG_PATTERN as LONG_PATTERN
from gradeframe._containment import contains_literal as contains_literal
from gradeframe._containment import find_literal as find_literal
from gradeframe._containment import occurs_but_rejected as occurs_but_rejected
from gradeframe._deferred import broadcast, deferred
from gradeframe._inputs import (
    IntoExpr,
    Schema,
    check_output_names,
    check_prefix,
    frame_schema,
    to_expr,
)
from gradeframe._judges import NotFound, Refusal, judges
from gradeframe._record import BY_NAME as BY_NAME
from gradeframe._record import Reader as Reader
from gradeframe._record import resolve_record, warn_unread_statuses
from gradeframe._refs import JSON_LIST_RE as JSON_LIST_RE
from gradeframe._refs import json_list_refs, resolve_refs
from gradeframe._refs import number_text as number_text
from gradeframe._threads import one_at_a_time
from gradeframe.fold import fold
from gradeframe.not_found import (
    DEFAULT_NOT_FOUND_PHRASES,
    is_not_found,
)
from gradeframe.refusal import (
    DEFAULT_REFUSAL_PHRASES,
    is_refusal,
)

__all__ = [
    "DEFAULT_NOT_FOUND_PHRASES",
    "DEFAULT_REFUSAL_PHRASES",
    "OUTPUT_COLUMNS",
    "answer_contains",
    "is_not_found",
    "is_refusal",
    "json_list_refs",
    "with_answer_contains",
]

Frame: TypeAlias = pl.DataFrame | pl.LazyFrame

#: The struct column the stages are kept in while a frame is graded.
_STATE: Final = "__gradeframe_answer_contains__"


#: The columns answer_contains adds, before ``prefix``.
OUTPUT_COLUMNS: Final = ("correct", "failure_kind", "outcome")


def output_columns(*, explain: bool = False) -> tuple[str, ...]:
    """Return the columns answer_contains adds (before ``prefix``)."""
    return OUTPUT_COLUMNS + EXPLAIN_COLUMNS if explain else OUTPUT_COLUMNS


# --------------------------------------------------------------------------------------------
# answer_contains
# --------------------------------------------------------------------------------------------


def answer_contains(
    answer: IntoExpr = "answer",
    refs: IntoExpr = "refs",
    *,
    partial: IntoExpr | None = None,
    notes: IntoExpr | None = None,
    trace: IntoExpr | None = None,
    status: IntoExpr | None = None,
    failure_kind: IntoExpr | None = None,
    not_found: NotFound = None,
    refusal: Refusal = None,
    whole_words: bool = False,
    explain: bool = False,
    prefix: str = "",
    schema: Schema | None = None,
) -> pl.Expr:
    r"""Score answers against acceptable answers, with numbers matched whole.

    Returns one struct expression with the fields ``correct`` (Boolean, never null),
    ``failure_kind`` (String, null when correct) and ``outcome`` (the folded answer), each
    named ``prefix + name``. The frame method ``df.grade.answer_contains`` adds the same three
    columns to the frame; it also reads struct output records and checks every column first, and
    it is the fast path on large frames (it runs the same stages one at a time; as one
    expression, Polars evaluates a struct again for each stage that is not elementwise, which
    costs most with lists of acceptable answers).

    Parameters
    ----------
    answer
        The answer: a String column, or (with ``schema``, as the frame methods pass) a struct
        column holding the output record (fields ``answer``, ``text``, ``partial``, ``notes``,
        ``trace``, ``status``, ``failure_kind``).
    refs
        The acceptable answers: String, a number, or a List of them (any one is right).
        ``NOT_IN_DOCUMENT`` marks an unanswerable item; blank ones are ignored.
    partial, notes, trace, status, failure_kind
        Flat columns that win over the struct fields of the same name.
    not_found
        Who decides that an answer reports "not in the document": a Boolean column name or
        expression, or a list of regex phrases replacing :data:`DEFAULT_NOT_FOUND_PHRASES`.
    refusal
        Who decides that an answer refuses the request (failure kind ``refusal``), besides the
        trace and status: None (no one: the trace and status alone), True (the default detector,
        :func:`is_refusal`), a Boolean column name or expression, or a list of regex phrases
        replacing :data:`DEFAULT_REFUSAL_PHRASES`. An answer whose acceptable answer was found
        is right whatever it says.
    whole_words
        Match words whole: an acceptable answer that begins with a letter must not follow a word
        character (a letter, a number or a combining mark; not "_"), and one that ends with a
        letter must not be followed by one ("UK" is not in "Ukraine", "No" is not in "I know",
        "Everest" is in "Everest's"). Numbers keep their own rules.
    explain
        Also add ``matched`` (String: the first acceptable answer found, as given) and
        ``near_miss`` (String: an acceptable answer whose folded text occurs in the answer only
        where a whole-number rule rejects it, such as "45.2" in "It is 145.2 m."); both null
        for unanswerable items, and ``near_miss`` null where an answer was found. Off by
        default, at no cost.
    prefix
        Put before each output name.
    schema
        The frame's schema. Without it, ``answer`` is read as String and ``refs`` as String or
        List(String); the frame methods always pass it.

    Returns
    -------
    pl.Expr
        A struct expression named ``prefix + "answer_contains"``.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "answer": ["It made 12,400 units.", "About 145.2 m", "NOT_IN_DOCUMENT", None],
    ...         "refs": ["12400", "45.2", "NOT_IN_DOCUMENT", "7"],
    ...     }
    ... )
    >>> df.select(gf.answer_contains("answer", "refs")).unnest("answer_contains")
    shape: (4, 3)
    ┌─────────┬───────────────┬──────────────────────┐
    │ correct ┆ failure_kind  ┆ outcome              │
    │ ---     ┆ ---           ┆ ---                  │
    │ bool    ┆ str           ┆ str                  │
    ╞═════════╪═══════════════╪══════════════════════╡
    │ true    ┆ null          ┆ it made 12400 units. │
    │ false   ┆ wrong         ┆ about 145.2 m        │
    │ true    ┆ null          ┆ not_in_document      │
    │ false   ┆ parse_failure ┆ null                 │
    └─────────┴───────────────┴──────────────────────┘
    """
    check_whole_words(whole_words)
    given = {
        "partial": partial,
        "notes": notes,
        "trace": trace,
        "status": status,
        "failure_kind": failure_kind,
        "not_found": not_found,
        "refusal": refusal,
    }
    check_explain(explain)
    if schema is None:
        return _deferred(
            answer, refs, prefix=prefix, explain=explain, whole_words=whole_words, **given
        )
    # Scalars (pl.lit) are repeated to the frame's height, as in the matchers.
    answer, refs = (broadcast(v) if isinstance(v, pl.Expr) else v for v in (answer, refs))
    given = {k: broadcast(v) if isinstance(v, pl.Expr) else v for k, v in given.items()}
    plan = _plan(
        answer,
        refs,
        prefix=prefix,
        schema=schema,
        explain=explain,
        whole_words=whole_words,
        **given,  # type: ignore[arg-type]
    )
    match = functools.partial(match_any, explain=explain, whole_words=whole_words)
    return _as_one_expression(plan, match).alias(prefix + "answer_contains")


def _deferred(
    answer: IntoExpr,
    refs: IntoExpr,
    *,
    prefix: str,
    explain: bool,
    whole_words: bool,
    **flat: object,
) -> pl.Expr:
    """Grade when the data arrives, knowing its dtypes (the expression form without a schema).

    The matchers' mechanism (:mod:`gradeframe._deferred`): the plan built from the batch's
    schema runs stage by stage (:func:`_stages`; never the frame function, which takes the
    grading lock), so struct records and numeric acceptable answers are read as on a frame.
    """
    check_prefix(prefix)
    arguments = {"answer": answer, "refs": refs, **flat}
    for option in ("not_found", "refusal"):
        if not isinstance(flat.get(option), str | pl.Expr):
            arguments.pop(option, None)  # phrases, True or None: not a column
    inputs: dict[str, pl.Expr] = {}
    names: dict[str, str] = {}
    for argument, value in arguments.items():
        if value is None:
            continue
        name = value if isinstance(value, str) else f"__gradeframe_{argument}__"
        inputs[name] = to_expr(value, argument)
        names[argument] = name
    options = {**flat, **names, "prefix": prefix, "explain": explain, "whole_words": whole_words}

    def grade(frame: pl.DataFrame) -> pl.Series:
        # The plan built from the batch's schema, run stage by stage as on a DataFrame.
        plan = _plan(**options, schema=frame.schema)  # type: ignore[arg-type]
        warn_unread_statuses(frame.lazy(), plan.status)  # as the frame function does
        result = pl.col(_STATE).struct.field("__result").alias(prefix + "answer_contains")
        return _stages(frame.lazy(), plan).select(result).collect().to_series()

    dtype = pl.Struct(
        {
            prefix + name: pl.Boolean if name == "correct" else pl.String
            for name in output_columns(explain=explain)
        }
    )
    return deferred(inputs, grade, return_dtype=dtype, name=prefix + "answer_contains")


@dataclass(frozen=True)
class _Plan:
    """answer_contains as stages over one struct: run as one expression or stage by stage."""

    status: pl.Expr  # the status as read (trimmed, lower case), over the frame
    base: pl.Expr  # the struct of inputs: text, refs, partial, budget_notes, ...
    refs: pl.Expr  # the acceptable answers, as String or List(String)
    folding: dict[str, pl.Expr]  # adds outcome
    listed: bool  # refs is a list of acceptable answers (else one per row)
    json_text: bool  # refs is text, one per row: a row's may be a JSON list
    explain: bool  # add matched and near_miss
    whole_words: bool  # match words whole too
    verdict: tuple[dict[str, pl.Expr], ...]  # after matching: not_found, correct, failure_kind
    result: pl.Expr  # the output struct, from the fields


def _as_one_expression(plan: _Plan, match_list: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
    """Run the plan's stages as one struct expression (the expression form, a LazyFrame).

    ``match_list`` matches a row against a list of acceptable answers; a row with one answer
    (or a text one, maybe a JSON list) is matched by :func:`match_one`.
    """
    row = plan.base.struct.with_fields(**plan.folding)
    row = (
        match_list(row)
        if plan.listed
        else match_one(
            row, explain=plan.explain, json_text=plan.json_text, whole_words=plan.whole_words
        )
    )
    for fields in plan.verdict:
        row = row.struct.with_fields(**fields)
    return row.struct.with_fields(__result=plan.result).struct.field("__result")


def _plan(
    answer: IntoExpr,
    refs: IntoExpr,
    *,
    partial: IntoExpr | None,
    notes: IntoExpr | None,
    trace: IntoExpr | None,
    status: IntoExpr | None,
    failure_kind: IntoExpr | None,
    not_found: NotFound,
    refusal: Refusal,
    whole_words: bool,
    prefix: str,
    schema: Schema | None,
    explain: bool = False,
) -> _Plan:
    check_prefix(prefix)
    record = resolve_record(
        answer,
        {
            "partial": partial,
            "notes": notes,
            "trace": trace,
            "status": status,
            "failure_kind": failure_kind,
        },
        schema,
    )
    ref_expr, listed, json_text = resolve_refs(refs, schema)
    judge, verdict_first = judges(not_found, refusal, schema)
    status_field = pl.field("status")
    error = status_field.is_in(kinds.ERROR_STATUSES).fill_null(value=False)
    refused = pl.field("trace_refusal") | status_field.is_in(kinds.REFUSAL_STATUSES).fill_null(
        value=False
    )
    if "text_refusal" in verdict_first:
        refused = refused | pl.field("text_refusal")
    # a token budget ended the reply: a stop, as a partial run whose notes name a limit
    budget_stop = (pl.field("partial") & pl.field("budget_notes")) | status_field.is_in(
        kinds.BUDGET_STATUSES
    ).fill_null(value=False)
    outcome = pl.field("outcome")
    parse_failure = (outcome.is_null() | (outcome == "")).fill_null(value=True)
    correct = (
        pl.field("usable")
        & pl.field("carried").is_null()
        & ~error
        & ~parse_failure
        & (
            pl.field("found")
            | (pl.field("label") & pl.field("not_found") & ~budget_stop & ~refused)
        )
    )
    kind = kinds.failure_chain(
        correct=pl.field("correct"),
        no_reference=~pl.field("usable"),
        carried=pl.field("carried"),
        error=error,
        budget_stop=budget_stop,
        refusal=refused,
        parse_failure=parse_failure,
        not_in_document=~pl.field("label") & pl.field("not_found"),
    )
    base = pl.struct(
        text=record.text,
        refs=ref_expr,
        partial=record.partial,
        budget_notes=record.budget_notes,
        trace_refusal=record.trace_refusal,
        status=record.status,
        carried=record.carried,
        **judge,
    )
    return _Plan(
        status=record.status,
        base=base,
        refs=ref_expr,
        folding={"outcome": fold(pl.field("text"))},
        listed=listed,
        json_text=json_text,
        explain=explain,
        whole_words=whole_words,
        verdict=(
            verdict_first,
            {"correct": correct},
            {"failure_kind": kind},
        ),
        result=pl.struct(
            pl.field("correct").alias(prefix + "correct"),
            pl.field("failure_kind").alias(prefix + "failure_kind"),
            pl.field("outcome").alias(prefix + "outcome"),
            *(explanation(name).alias(prefix + name) for name in EXPLAIN_COLUMNS if explain),
        ),
    )


@one_at_a_time
def with_answer_contains(
    frame: Frame,
    answer: IntoExpr = "answer",
    refs: IntoExpr = "refs",
    *,
    partial: IntoExpr | None = None,
    notes: IntoExpr | None = None,
    trace: IntoExpr | None = None,
    status: IntoExpr | None = None,
    failure_kind: IntoExpr | None = None,
    not_found: NotFound = None,
    refusal: Refusal = None,
    whole_words: bool = False,
    explain: bool = False,
    prefix: str = "",
) -> Frame:
    """Add ``correct``, ``failure_kind`` and ``outcome`` to a DataFrame or LazyFrame.

    Same rows, same order, input columns untouched; a LazyFrame stays lazy. Columns and dtypes
    are checked now, not at ``collect()``. See :func:`answer_contains` for the parameters.
    """
    check_prefix(prefix)
    check_explain(explain)
    check_whole_words(whole_words)
    names = [prefix + name for name in output_columns(explain=explain)]
    check_output_names(frame_schema(frame), names)
    # Expressions become temporary columns first, so that their dtypes are known and checked
    # now, like those of named columns, instead of failing deep inside Polars at collect().
    given = {
        "answer": answer,
        "refs": refs,
        "partial": partial,
        "notes": notes,
        "trace": trace,
        "status": status,
        "failure_kind": failure_kind,
        "not_found": not_found,
        "refusal": refusal,
    }
    temporary = {
        f"__gradeframe_{argument}__": value.alias(f"__gradeframe_{argument}__")
        for argument, value in given.items()
        if isinstance(value, pl.Expr)
    }
    named = {
        argument: f"__gradeframe_{argument}__" if isinstance(value, pl.Expr) else value
        for argument, value in given.items()
    }
    staged = frame.with_columns(*temporary.values()) if temporary else frame
    plan = _plan(
        **named,  # type: ignore[arg-type]
        prefix=prefix,
        schema=frame_schema(staged),
        explain=explain,
        whole_words=whole_words,
    )
    # Status values no vocabulary reads are named in one warning, now: one query over the
    # status alone (a LazyFrame's too, as for the longest list of acceptable answers below).
    warn_unread_statuses(staged.lazy(), plan.status)
    state = _STATE
    if isinstance(staged, pl.LazyFrame):
        width = _list_width(staged, plan) if plan.listed else 0
        if width <= MAX_UNROLLED_REFS:
            match = functools.partial(
                match_unrolled, width=width, explain=explain, whole_words=whole_words
            )
            row = _as_one_expression(plan, match)
            return (
                staged.with_columns(row.alias(state))
                .with_columns(pl.col(state).struct.unnest())
                .drop(state, *temporary)
            )

    lazy = (
        _stages(staged.lazy(), plan)
        .with_columns(pl.col(state).struct.field("__result").struct.unnest())
        .drop(state, *temporary)
    )
    return lazy.collect() if isinstance(staged, pl.DataFrame) else lazy


def _stages(lazy: pl.LazyFrame, plan: _Plan) -> pl.LazyFrame:
    """Add the plan's stages one at a time to the struct column ``_STATE`` (``__result``: out).

    Each stage kept as a column: a stage that is not elementwise (the distinct acceptable
    answers, the explode of a list) would otherwise make Polars evaluate the struct again.
    """
    explain, whole_words, state = plan.explain, plan.whole_words, _STATE

    def stage(frame: pl.LazyFrame, fields: dict[str, pl.Expr]) -> pl.LazyFrame:
        return frame.with_columns(pl.col(state).struct.with_fields(**fields))

    lazy = stage(lazy.with_columns(plan.base.alias(state)), plan.folding)
    if plan.listed:
        lazy = lazy.with_columns(match_any(pl.col(state), explain=explain, whole_words=whole_words))
    else:
        lazy = stage(lazy, {"info": ref_info(pl.field("refs"), whole_words=whole_words)})
        lazy = lazy.with_columns(match_stages(pl.col(state), whole_words=whole_words))
        if explain or plan.json_text:
            matched = after_match_one(
                pl.col(state), explain=explain, json_text=plan.json_text, whole_words=whole_words
            )
            lazy = lazy.with_columns(matched)
    for fields in plan.verdict:
        lazy = stage(lazy, fields)
    return lazy.with_columns(pl.col(state).struct.with_fields(__result=plan.result))


#: On a LazyFrame, lists of up to this many acceptable answers are matched row by row, so that
#: the query streams; longer lists are exploded (fast, but the query no longer streams).
MAX_UNROLLED_REFS: Final = 16


def _list_width(frame: pl.LazyFrame, plan: _Plan) -> int:
    """Return the longest list of acceptable answers (one cheap query of that column)."""
    longest = frame.select(plan.refs.list.len().max()).collect().item()
    return int(longest or 0)
