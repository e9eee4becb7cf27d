"""Reports on graded frames: accuracy with its Wilson interval, failure counts, failure listings.

Everything is a Polars expression over the graded columns (``correct`` and ``failure_kind``, as
:func:`gradeframe.answer_contains` adds them). A pandas frame goes through Arrow to Polars and
its result comes back as a new pandas frame; the chart is built from the report.

Carried failure kinds (any non-null ``failure_kind`` that is not one of
:data:`gradeframe.KINDS`) become columns of the report, so their names must be known before the
query runs. On a LazyFrame, :func:`report` finds them by collecting the distinct values of the
``failure_kind`` column alone (one pass over the input, no more memory than the distinct kinds);
pass ``carried_kinds=[...]`` to name them yourself and keep the query entirely lazy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, TypeAlias

import polars as pl

from gradeframe import kinds
from gradeframe._inputs import (
    IntoExpr,
    Schema,
    as_text,
    check_column,
    check_output_names,
    check_prefix,
    dtype_error,
    frame_schema,
    is_text,
    struct_fields,
    to_expr,
)
from gradeframe._limits import MAX_METADATA_LENGTH

if TYPE_CHECKING:  # pragma: no cover
    import altair as alt
    import pandas as pd

__all__ = ["WILSON_Z", "chart", "failures", "report", "wilson_interval"]

Frame: TypeAlias = pl.DataFrame | pl.LazyFrame
By: TypeAlias = str | Sequence[str] | None

#: The normal quantile for a two-sided 95 % interval.
WILSON_Z: Final = 1.959963984540054

#: The statistics columns of a report, in order, after the group columns.
STAT_COLUMNS: Final = ("n", "n_correct", "accuracy", "ci_low", "ci_high")

#: What :func:`failures` puts between acceptable answers when it shows a list of them.
REFS_SEPARATOR: Final = " | "

#: What marks a shown value that was cut to MAX_METADATA_LENGTH characters.
CUT_MARK: Final = "…"


# --------------------------------------------------------------------------------------------
# Wilson interval
# --------------------------------------------------------------------------------------------


def wilson_interval(
    n_correct: IntoExpr, n: IntoExpr, *, z: float = WILSON_Z
) -> tuple[pl.Expr, pl.Expr]:
    r"""Return the Wilson score interval of a proportion, as two Float64 expressions.

    With :math:`\hat p = k / n`, the interval is
    :math:`\frac{\hat p + z^2/2n \pm z \sqrt{\hat p(1-\hat p)/n + z^2/4n^2}}{1 + z^2/n}`.
    It is exactly 0 at the low end when ``k = 0`` and exactly 1 at the high end when ``k = n``.
    It is null when ``n`` is 0 or null: no answers say nothing about accuracy.

    Parameters
    ----------
    n_correct
        The number right (a column name or an integer expression).
    n
        The number of answers.
    z
        The normal quantile; the default gives a 95 % interval.

    Returns
    -------
    tuple[pl.Expr, pl.Expr]
        The low and high ends, named ``ci_low`` and ``ci_high``.

    Examples
    --------
    >>> import polars as pl
    >>> from gradeframe.report import wilson_interval
    >>> df = pl.DataFrame({"k": [0, 8, 10, 0], "n": [10, 10, 10, 0]})
    >>> df.with_columns(*wilson_interval("k", "n")).with_columns(pl.selectors.float().round(4))
    shape: (4, 4)
    ┌─────┬─────┬────────┬─────────┐
    │ k   ┆ n   ┆ ci_low ┆ ci_high │
    │ --- ┆ --- ┆ ---    ┆ ---     │
    │ i64 ┆ i64 ┆ f64    ┆ f64     │
    ╞═════╪═════╪════════╪═════════╡
    │ 0   ┆ 10  ┆ 0.0    ┆ 0.2775  │
    │ 8   ┆ 10  ┆ 0.4902 ┆ 0.9433  │
    │ 10  ┆ 10  ┆ 0.7225 ┆ 1.0     │
    │ 0   ┆ 0   ┆ null   ┆ null    │
    └─────┴─────┴────────┴─────────┘
    """
    k = to_expr(n_correct, "n_correct").cast(pl.Float64)
    total = to_expr(n, "n").cast(pl.Float64)
    z2 = z * z
    p = k / total
    denominator = 1.0 + z2 / total
    centre = (p + z2 / (2.0 * total)) / denominator
    half = z * (p * (1.0 - p) / total + z2 / (4.0 * total * total)).sqrt() / denominator
    some = total > 0
    low = pl.when(some & (k <= 0)).then(0.0).when(some).then((centre - half).clip(0.0, 1.0))
    high = pl.when(some & (k >= total)).then(1.0).when(some).then((centre + half).clip(0.0, 1.0))
    return low.alias("ci_low"), high.alias("ci_high")


# --------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------


def _group_columns(by: By, schema: Schema) -> list[str]:
    if by is None:
        return []
    names = [by] if isinstance(by, str) else by
    if not isinstance(names, Sequence) or not all(isinstance(b, str) for b in names):
        msg = f"`by` must be None, a column name or a list of column names, got {by!r}"
        raise TypeError(msg)
    names = list(names)
    if len(set(names)) != len(names):
        msg = f"`by` names a column more than once: {names!r}"
        raise ValueError(msg)
    for name in names:
        check_column(schema, name, "by")
    return names


def _correct_expr(correct: str, schema: Schema) -> pl.Expr:
    if not isinstance(correct, str):
        msg = f"`correct` must be a column name (str), got {type(correct).__name__}: {correct!r}"
        raise TypeError(msg)
    check_column(schema, correct, "correct")
    dtype = schema[correct]
    if dtype not in (pl.Boolean, pl.Null):
        raise dtype_error("correct", correct, dtype, "Boolean (as answer_contains adds it)")
    # A null is not right: it is counted in n and not in n_correct.
    return pl.col(correct).cast(pl.Boolean).fill_null(value=False)


def _kind_expr(failure_kind: str, schema: Schema) -> pl.Expr:
    if not isinstance(failure_kind, str):
        kind = type(failure_kind).__name__
        msg = f"`failure_kind` must be a column name (str), got {kind}: {failure_kind!r}"
        raise TypeError(msg)
    check_column(schema, failure_kind, "failure_kind")
    dtype = schema[failure_kind]
    if dtype == pl.Null:
        return pl.lit(None, dtype=pl.String)
    if not is_text(dtype):
        raise dtype_error("failure_kind", failure_kind, dtype, "String")
    return as_text(pl.col(failure_kind), dtype)


def _carried_kinds(frame: Frame, kind: pl.Expr, carried_kinds: Sequence[str] | None) -> list[str]:
    if carried_kinds is not None:
        if isinstance(carried_kinds, str) or not all(isinstance(k, str) for k in carried_kinds):
            msg = f"`carried_kinds` must be a list of failure kinds (str), got {carried_kinds!r}"
            raise TypeError(msg)
        return sorted(set(carried_kinds) - set(kinds.KINDS))
    distinct = frame.lazy().select(kind.drop_nulls().unique().alias("kind")).collect()
    return sorted(set(distinct.get_column("kind").to_list()) - set(kinds.KINDS))


# --------------------------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------------------------


def report(
    frame: Any,
    by: By = None,
    *,
    correct: str = "correct",
    failure_kind: str = "failure_kind",
    carried_kinds: Sequence[str] | None = None,
) -> Any:
    """Summarise a graded frame: accuracy with its Wilson interval, and failures by kind.

    One row per group, sorted by the group columns (nulls last), with the columns

    - the group columns (none without ``by``: one row for the whole frame);
    - ``n`` (Int64): answers in the group; ``n_correct`` (Int64): right ones (a null in
      ``correct`` counts as not right);
    - ``accuracy`` (Float64), ``ci_low``, ``ci_high``: its 95 % Wilson interval (see
      :func:`wilson_interval`); all three null when ``n`` is 0, which only happens without
      ``by`` on an empty frame (a group is never empty);
    - one Int64 count per failure kind: the seven of :data:`gradeframe.KINDS`, always, in
      table order, then the carried kinds (any other non-null ``failure_kind``), sorted.

    Parameters
    ----------
    frame
        A graded Polars DataFrame or LazyFrame, or a pandas DataFrame.
    by
        None, a column name, or a list of column names to group by.
    correct
        The Boolean column that says an answer is right.
    failure_kind
        The String column that names the failure kind (null when right).
    carried_kinds
        The carried kinds to give columns, when you know them. By default they are found in the
        data; on a LazyFrame that collects the distinct values of ``failure_kind`` (the rest of
        the report stays lazy). When given, other carried kinds are not counted in any column.

    Returns
    -------
    pl.DataFrame | pl.LazyFrame | pandas.DataFrame
        The same kind of frame as the input (a LazyFrame gives a LazyFrame).

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "model": ["a", "a", "a", "b", "b"],
    ...         "correct": [True, False, False, False, False],
    ...         "failure_kind": [None, "wrong", "timeout", "refusal", None],
    ...     }
    ... )
    >>> out = gf.report(df, "model")
    >>> out.select("model", "n", "n_correct", "accuracy", "ci_low", "ci_high").with_columns(
    ...     pl.selectors.float().round(3)
    ... )
    shape: (2, 6)
    ┌───────┬─────┬───────────┬──────────┬────────┬─────────┐
    │ model ┆ n   ┆ n_correct ┆ accuracy ┆ ci_low ┆ ci_high │
    │ ---   ┆ --- ┆ ---       ┆ ---      ┆ ---    ┆ ---     │
    │ str   ┆ i64 ┆ i64       ┆ f64      ┆ f64    ┆ f64     │
    ╞═══════╪═════╪═══════════╪══════════╪════════╪═════════╡
    │ a     ┆ 3   ┆ 1         ┆ 0.333    ┆ 0.061  ┆ 0.792   │
    │ b     ┆ 2   ┆ 0         ┆ 0.0      ┆ 0.0    ┆ 0.658   │
    └───────┴─────┴───────────┴──────────┴────────┴─────────┘
    >>> out.columns[6:]
    ['no_reference', 'error', 'parse_failure', 'budget_stop', 'refusal', 'not_in_document',
     'wrong', 'timeout']
    """
    if _is_pandas(frame):
        from gradeframe import _pandas

        polars_frame = _pandas.to_polars(frame, _pandas_columns(frame, by, correct, failure_kind))
        result = report(
            polars_frame,
            by,
            correct=correct,
            failure_kind=failure_kind,
            carried_kinds=carried_kinds,
        )
        return _to_pandas(result)
    _check_frame(frame, "report")
    schema = frame_schema(frame)
    group = _group_columns(by, schema)
    right = _correct_expr(correct, schema)
    kind = _kind_expr(failure_kind, schema)
    carried = _carried_kinds(frame, kind, carried_kinds)
    counts = [*kinds.KINDS, *carried]
    clash = sorted(set(group) & {*STAT_COLUMNS, *counts})
    if clash:
        msg = (
            f"`by`: the group column(s) {clash!r} share a name with report columns; rename "
            "them first."
        )
        raise ValueError(msg)
    clash = sorted(set(carried) & set(STAT_COLUMNS))
    if clash:
        msg = f"`failure_kind`: carried kind(s) {clash!r} share a name with report columns."
        raise ValueError(msg)

    n = pl.len().cast(pl.Int64).alias("n")
    n_correct = right.sum().cast(pl.Int64).alias("n_correct")
    per_kind = [
        (kind == name).fill_null(value=False).sum().cast(pl.Int64).alias(name) for name in counts
    ]
    lazy = frame.lazy()
    if group:
        out = lazy.group_by(group).agg(n, n_correct, *per_kind).sort(group, nulls_last=True)
    else:
        out = lazy.select(n, n_correct, *per_kind)
    low, high = wilson_interval("n_correct", "n")
    accuracy = pl.when(pl.col("n") > 0).then(pl.col("n_correct") / pl.col("n")).alias("accuracy")
    out = out.select(*group, "n", "n_correct", accuracy, low, high, *counts)
    return out if isinstance(frame, pl.LazyFrame) else out.collect()


# --------------------------------------------------------------------------------------------
# failures
# --------------------------------------------------------------------------------------------


def _cut(text: pl.Expr, length: int) -> pl.Expr:
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


def failures(
    frame: Any,
    *,
    answer: str | None = "answer",
    refs: str | None = "refs",
    correct: str = "correct",
    failure_kind: str | None = "failure_kind",
    kind: str | Sequence[str] | None = None,
    prefix: str = "",
) -> Any:
    """Return the rows that are not right, with the answer and acceptable answers shown short.

    Rows keep their order and every column; a null in ``correct`` counts as not right. Two
    String columns are added, each cut to :data:`gradeframe.MAX_METADATA_LENGTH` characters
    (a cut value ends with "…"):

    - ``prefix + "actual"``: the answer's text (from an output record: its ``answer`` field,
      else ``text``, else the record as JSON); numbers and booleans as text;
    - ``prefix + "expected"``: the acceptable answers, a list joined with " | ".

    Parameters
    ----------
    frame
        A graded Polars DataFrame or LazyFrame, or a pandas DataFrame.
    answer
        The column shown as ``actual`` (None: not added).
    refs
        The column shown as ``expected`` (None: not added).
    correct
        The Boolean column that says an answer is right.
    failure_kind
        The String column of failure kinds; needed only with ``kind``.
    kind
        Keep only failures of this kind (or these kinds).
    prefix
        Put before the names of the two added columns.

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
    """
    if _is_pandas(frame):
        return _failures_pandas(
            frame,
            answer=answer,
            refs=refs,
            correct=correct,
            failure_kind=failure_kind,
            kind=kind,
            prefix=prefix,
        )
    _check_frame(frame, "failures")
    check_prefix(prefix)
    schema = frame_schema(frame)
    condition = ~_correct_expr(correct, schema)
    if kind is not None:
        wanted = [kind] if isinstance(kind, str) else list(kind)
        if not wanted or not all(isinstance(k, str) for k in wanted):
            msg = f"`kind` must be a failure kind or a non-empty list of them, got {kind!r}"
            raise TypeError(msg)
        if failure_kind is None:
            msg = "`kind` needs the `failure_kind` column; `failure_kind` is None."
            raise ValueError(msg)
        condition = condition & _kind_expr(failure_kind, schema).is_in(wanted).fill_null(
            value=False
        )
    added = []
    for argument, name, out in ((answer, "answer", "actual"), (refs, "refs", "expected")):
        if argument is None:
            continue
        if not isinstance(argument, str):
            kind_name = type(argument).__name__
            msg = f"`{name}` must be a column name (str) or None, got {kind_name}: {argument!r}"
            raise TypeError(msg)
        check_column(schema, argument, name)
        shown = _shown(pl.col(argument), schema[argument])
        added.append(_cut(shown, MAX_METADATA_LENGTH).alias(prefix + out))
    check_output_names(schema, [e.meta.output_name() for e in added])
    return frame.filter(condition).with_columns(*added)


def _failures_pandas(frame: pd.DataFrame, **kwargs: Any) -> pd.DataFrame:
    from gradeframe import _pandas

    arguments = [
        ("correct", kwargs["correct"], None),
        ("answer", kwargs["answer"], "text"),
        ("refs", kwargs["refs"], "refs"),
    ]
    if kwargs["kind"] is not None:
        arguments.append(("failure_kind", kwargs["failure_kind"], None))
    columns = _pandas.needed_columns(frame, arguments)
    position = "__gradeframe_position__"
    polars_frame = _pandas.to_polars(frame, columns).with_row_index(position)
    if position in map(str, frame.columns):  # pragma: no cover - a clash nobody makes
        msg = f"the frame has a column named {position!r}; rename it first."
        raise ValueError(msg)
    result = failures(polars_frame, **kwargs)
    out = frame.iloc[result.get_column(position).to_numpy()].copy()
    for name in result.columns:
        if name not in polars_frame.columns:
            out[name] = _pandas.to_pandas_column(result.get_column(name))
    return out


# --------------------------------------------------------------------------------------------
# chart
# --------------------------------------------------------------------------------------------


def chart(
    frame: Any,
    by: By = None,
    *,
    correct: str = "correct",
    failure_kind: str = "failure_kind",
    title: str | None = None,
) -> alt.HConcatChart:
    """Chart failures by kind per group, beside accuracy with its Wilson interval.

    Left: one stacked bar per group, a segment per failure kind (standard kinds in table order,
    then carried kinds). Right: accuracy per group as a point with its 95 % interval. Needs the
    optional Altair dependency: ``pip install 'gradeframe[chart]'``.

    Parameters
    ----------
    frame
        A graded Polars DataFrame or LazyFrame (collected), or a pandas DataFrame.
    by
        None, a column name or a list of them; several are shown joined with " / ".
    correct, failure_kind
        The graded columns, as in :func:`report`.
    title
        A title over both panels.

    Returns
    -------
    altair.HConcatChart
        Displays in a notebook; ``.to_dict()`` gives its Vega-Lite spec, ``.save(path)`` writes
        it (HTML, JSON, or PNG/SVG with ``vl-convert-python``).

    Examples
    --------
    >>> import gradeframe as gf
    >>> c = gf.chart(gf.example().grade.answer_contains(), "model")
    >>> [layer["mark"]["type"] for layer in c.to_dict()["hconcat"][1]["layer"]]
    ['rule', 'point']
    """
    try:
        import altair as alt
    except ImportError:
        msg = (
            "gradeframe.chart needs Altair, an optional dependency. Install it with: "
            "pip install 'gradeframe[chart]'"
        )
        raise ImportError(msg) from None
    if _is_pandas(frame):
        from gradeframe import _pandas

        frame = _pandas.to_polars(frame, _pandas_columns(frame, by, correct, failure_kind))
    elif isinstance(frame, pl.LazyFrame):
        frame = frame.collect()
    table = report(frame, by, correct=correct, failure_kind=failure_kind)
    group = table.columns[: table.columns.index("n")]
    label = (
        pl.concat_str([pl.col(c).cast(pl.String).fill_null("null") for c in group], separator=" / ")
        if group
        else pl.lit("all")
    )
    group_title = " / ".join(group) if group else "group"
    kind_columns = table.columns[table.columns.index("ci_high") + 1 :]
    table = table.with_columns(label.alias("group"))
    order = table.get_column("group").to_list()
    long = table.unpivot(
        index=["group", "n"], on=kind_columns, variable_name="failure_kind", value_name="count"
    ).filter(pl.col("count") > 0)
    long = long.with_columns(
        pl.col("failure_kind")
        .replace_strict(kind_columns, list(range(len(kind_columns))), return_dtype=pl.Int64)
        .alias("kind_order")
    )
    y = alt.Y("group:N", sort=order, title=group_title)
    bars = (
        alt.Chart(alt.Data(values=long.to_dicts()))
        .mark_bar()
        .encode(
            y=y,
            x=alt.X("sum(count):Q", title="failures"),
            color=alt.Color("failure_kind:N", sort=kind_columns, title="failure kind"),
            order=alt.Order("kind_order:Q"),
            tooltip=["group:N", "failure_kind:N", "count:Q", "n:Q"],
        )
        .properties(title="Failures by kind", width=320)
    )
    points = table.select("group", "n", "n_correct", "accuracy", "ci_low", "ci_high").to_dicts()
    base = alt.Chart(alt.Data(values=points)).encode(y=y)
    scale = alt.Scale(domain=[0, 1])
    interval = base.mark_rule().encode(
        x=alt.X("ci_low:Q", scale=scale, title="accuracy (95% Wilson interval)"),
        x2="ci_high:Q",
    )
    dots = base.mark_point(filled=True, size=60).encode(
        x=alt.X("accuracy:Q", scale=scale),
        tooltip=["group:N", "n:Q", "n_correct:Q", "accuracy:Q", "ci_low:Q", "ci_high:Q"],
    )
    accuracy = alt.layer(interval, dots).properties(title="Accuracy", width=240)
    out = alt.hconcat(bars, accuracy)
    if title is not None:
        out = out.properties(title=title)
    return out


# --------------------------------------------------------------------------------------------
# Frame types
# --------------------------------------------------------------------------------------------


def _is_pandas(frame: Any) -> bool:
    module = type(frame).__module__
    if not module.startswith("pandas"):
        return False
    import pandas as pd

    return isinstance(frame, pd.DataFrame)


def _check_frame(frame: Any, function: str) -> None:
    if not isinstance(frame, pl.DataFrame | pl.LazyFrame):
        msg = (
            f"`{function}` takes a Polars DataFrame or LazyFrame or a pandas DataFrame, "
            f"got {type(frame).__name__}"
        )
        raise TypeError(msg)


def _pandas_by(by: By) -> list[str]:
    if by is None:
        return []
    return [by] if isinstance(by, str) else list(by)


def _pandas_columns(frame: Any, by: By, correct: str, failure_kind: str) -> dict[str, None]:
    """Return the columns a report needs from a pandas frame, a missing one named by argument."""
    from gradeframe import _pandas

    arguments = [("by", name, None) for name in _pandas_by(by)]
    arguments += [("correct", correct, None), ("failure_kind", failure_kind, None)]
    return _pandas.needed_columns(frame, arguments)  # type: ignore[return-value]


def _to_pandas(frame: pl.DataFrame) -> pd.DataFrame:
    """Return a new pandas frame: Int64 as int64, String as the pandas string dtype."""
    import pandas as pd

    from gradeframe import _pandas

    return pd.DataFrame(
        {name: _pandas.to_pandas_column(frame.get_column(name)) for name in frame.columns}
    )
