"""failures(): the rows that were graded wrong, with what was compared, shown short."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import polars as pl

from gradeframe._inputs import (
    Schema,
    as_text,
    check_column,
    check_output_names,
    check_prefix,
    frame_schema,
    is_text,
    struct_fields,
)
from gradeframe._limits import CUT_MARK, REFS_SEPARATOR, max_metadata_length
from gradeframe._summary_inputs import (
    GRADE_FIRST,
    check_frame,
    correct_expr,
    default_name,
    is_pandas,
    kind_expr,
)
from gradeframe._threads import one_at_a_time

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["failures"]


# --------------------------------------------------------------------------------------------
# failures
# --------------------------------------------------------------------------------------------


def cut_text(text: pl.Expr, length: int) -> pl.Expr:
    """Cut text to ``length`` characters, the last being the cut mark when anything was cut."""
    return (
        pl.when(text.str.len_chars() > length)
        .then(text.str.slice(0, length - len(CUT_MARK)) + CUT_MARK)
        .otherwise(text)
    )


def _scalar_text(expr: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    if is_text(dtype):
        return as_text(expr, dtype)
    if isinstance(dtype, pl.Struct | pl.List | pl.Array | pl.Object | pl.Binary):
        return pl.lit(None, dtype=pl.String)
    return expr.cast(pl.String)


def _shown(expr: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """Text that shows a value: answer text from an output record, lists joined."""
    fields = struct_fields(dtype)
    if fields:
        parts = [
            _scalar_text(expr.struct.field(name), fields[name])
            for name in ("answer", "text")
            if name in fields and not isinstance(fields[name], pl.Struct | pl.List)
        ]
        record = expr.struct.json_encode()
        return pl.coalesce(*parts, record) if parts else record
    if isinstance(dtype, pl.List | pl.Array):
        listed = expr.arr.to_list() if isinstance(dtype, pl.Array) else expr
        inner = dtype.inner
        if isinstance(inner, pl.Struct | pl.List | pl.Array):
            return listed.cast(pl.String, strict=False)
        return listed.list.eval(_scalar_text(pl.element(), inner)).list.join(REFS_SEPARATOR)
    return _scalar_text(expr, dtype)


def _compared_columns(
    actual: str | bool | None, expected: str | bool | None, schema: Schema, prefix: str
) -> list[tuple[str, str]]:
    """Return (argument, column) for the columns to show; defaults only on answer_contains."""
    graded_by_answer_contains = prefix + "outcome" in schema
    defaults = {"actual": "answer", "expected": "refs"}
    shown = []
    for argument, value in (("actual", actual), ("expected", expected)):
        if value is False:
            continue
        if value is None:
            if not graded_by_answer_contains:
                msg = (
                    f"`{argument}` is needed: this frame has no {prefix + 'outcome'!r} column, "
                    "so it was not graded by answer_contains and gradeframe cannot know which "
                    "columns were compared. Name them: failures(actual=..., expected=...) "
                    f"(or {argument}=False to leave it out)."
                )
                raise ValueError(msg)
            value = defaults[argument]
            advice = (
                f"failures() shows the answer and the acceptable answers that were graded; its "
                f"defaults are actual='answer' and expected='refs'. Name the columns this frame "
                f"was graded on: failures(actual=..., expected=...) (or {argument}=False to leave "
                "it out)."
            )
        else:
            advice = ""
        if not isinstance(value, str):
            kind = type(value).__name__
            msg = f"`{argument}` must be a column name (str), None or False, got {kind}: {value!r}"
            raise TypeError(msg)
        check_column(schema, value, argument, advice)
        shown.append((argument, value))
    return shown


@one_at_a_time
def failures(
    frame: Any,
    *,
    actual: str | bool | None = None,
    expected: str | bool | None = None,
    prefix: str = "",
    correct: str = "correct",
    failure_kind: str = "failure_kind",
    kind: str | Sequence[str] | None = None,
) -> Any:
    """Return the rows that are not right, with the compared values shown short.

    Rows keep their order and every column (so their ``failure_kind``, or a matcher's
    ``expectation``); a null in ``correct`` counts as not right. Two String columns are added,
    each cut to :data:`gradeframe.MAX_METADATA_LENGTH` characters as it is when called (a cut
    value ends with "…"):

    - ``prefix + "actual"``: the answer's text (from an output record: its ``answer`` field,
      else ``text``, else the record as JSON); numbers and booleans as text;
    - ``prefix + "expected"``: the expected value; a list of acceptable answers joined with
      " | ".

    A shown column that already has the output's name (``actual="actual"``) is replaced by its
    shown text; any other clash raises.

    Parameters
    ----------
    frame
        A graded Polars DataFrame or LazyFrame, or a pandas DataFrame.
    actual, expected
        The columns that were compared. The defaults (``"answer"``, ``"refs"``) apply only to
        the output of answer_contains (it has an ``outcome`` column); on a matcher's output they
        must be given, so that a column that was not compared is never shown as the expected
        value. ``False``: leave that column out.
    prefix
        The prefix the frame was graded with: applies to the default names (``correct``,
        ``failure_kind``, ``outcome``) and to the two added columns.
    correct
        The Boolean column that says an answer is right.
    failure_kind
        The String column of failure kinds; needed only with ``kind``.
    kind
        Keep only failures of this kind (or these kinds).

    Returns
    -------
    pl.DataFrame | pl.LazyFrame | pandas.DataFrame
        The same kind of frame as the input; a pandas result keeps the input's index labels.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "answer": ["It made 12,400 units.", "About 145.2 m", "x" * 600, None],
    ...         "refs": [["12400"], ["45.2", "45.2 m"], ["7"], ["7"]],
    ...     }
    ... ).grade.answer_contains()
    >>> out = gf.failures(df)
    >>> out.select("failure_kind", "expected", pl.col("actual").str.len_chars().alias("len"))
    shape: (3, 3)
    ┌───────────────┬───────────────┬──────┐
    │ failure_kind  ┆ expected      ┆ len  │
    │ ---           ┆ ---           ┆ ---  │
    │ str           ┆ str           ┆ u32  │
    ╞═══════════════╪═══════════════╪══════╡
    │ wrong         ┆ 45.2 | 45.2 m ┆ 13   │
    │ wrong         ┆ 7             ┆ 500  │
    │ parse_failure ┆ 7             ┆ null │
    └───────────────┴───────────────┴──────┘

    On a matcher's output, name the compared columns:

    >>> m = pl.DataFrame({"pred": ["B", "c"], "gold": ["B", "A"]}).grade.exact_match("pred", "gold")
    >>> gf.failures(m, actual="pred", expected="gold").select("expectation", "actual", "expected")
    shape: (1, 3)
    ┌─────────────┬────────┬──────────┐
    │ expectation ┆ actual ┆ expected │
    │ ---         ┆ ---    ┆ ---      │
    │ str         ┆ str    ┆ str      │
    ╞═════════════╪════════╪══════════╡
    │ exact match ┆ c      ┆ A        │
    └─────────────┴────────┴──────────┘
    """
    if is_pandas(frame):
        return _failures_pandas(
            frame,
            actual=actual,
            expected=expected,
            prefix=prefix,
            correct=correct,
            failure_kind=failure_kind,
            kind=kind,
        )
    check_frame(frame, "failures")
    check_prefix(prefix)
    schema = frame_schema(frame)
    correct_name, _ = default_name(correct, "correct", prefix, "correct")
    condition = ~correct_expr(correct_name, schema)
    if kind is not None:
        wanted = [kind] if isinstance(kind, str) else list(kind)
        if not wanted or not all(isinstance(k, str) for k in wanted):
            msg = f"`kind` must be a failure kind or a non-empty list of them, got {kind!r}"
            raise TypeError(msg)
        if failure_kind is None:
            msg = "`kind` needs the `failure_kind` column; `failure_kind` is None."
            raise ValueError(msg)
        kind_name, _ = default_name(failure_kind, "failure_kind", prefix, "failure_kind")
        condition = condition & kind_expr(kind_name, schema).is_in(wanted).fill_null(value=False)
    length = max_metadata_length()
    compared = _compared_columns(actual, expected, schema, prefix)
    added = [
        cut_text(_shown(pl.col(name), schema[name]), length).alias(prefix + argument)
        for argument, name in compared
    ]
    # A compared column that already has the output's name is replaced by its shown text.
    replaced = {name for argument, name in compared if name == prefix + argument}
    check_output_names(
        {k: v for k, v in schema.items() if k not in replaced},
        [e.meta.output_name() for e in added],
    )
    return frame.filter(condition).with_columns(*added)


def _failures_pandas(frame: pd.DataFrame, **kwargs: Any) -> pd.DataFrame:
    from gradeframe import _frames

    prefix = kwargs["prefix"]
    check_prefix(prefix)
    present = {str(c): pl.Null() for c in frame.columns}
    correct_name, _ = default_name(kwargs["correct"], "correct", prefix, "correct")
    check_column(present, correct_name, "correct", GRADE_FIRST)
    arguments = [("correct", correct_name, None)]
    shown = _compared_columns(kwargs["actual"], kwargs["expected"], present, prefix)
    arguments += [
        (argument, name, "text" if argument == "actual" else "refs") for argument, name in shown
    ]
    if prefix + "outcome" in present:
        arguments.append(("outcome", prefix + "outcome", None))
    if kwargs["kind"] is not None and kwargs["failure_kind"] is not None:
        kind_name, _ = default_name(kwargs["failure_kind"], "failure_kind", prefix, "failure_kind")
        arguments.append(("failure_kind", kind_name, None))
    columns = _frames.needed_columns(frame, arguments)
    position = "__gradeframe_position__"
    if position in present:  # pragma: no cover - a clash nobody makes
        msg = f"the frame has a column named {position!r}; rename it first."
        raise ValueError(msg)
    polars_frame = _frames.to_polars(frame, columns).with_row_index(position)
    result = failures(polars_frame, **kwargs)
    out = frame.iloc[result.get_column(position).to_numpy()].copy()
    for argument, _ in shown:
        name = prefix + argument
        out[name] = _frames.to_pandas_column(result.get_column(name))
    return out
