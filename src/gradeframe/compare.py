"""Paired comparisons of groups on shared items, and agreement between two verdicts.

``compare`` answers "is model B better than model A on these questions, or is that noise?": the
difference of accuracy on the items both answered, with the interval of the paired differences
and McNemar's exact test (two overlapping intervals of accuracy cannot answer it: the items are
shared, so the two accuracies are correlated). ``agreement`` answers "does my old grader agree
with the new one?": the 2×2 table of two verdicts on the same rows, Cohen's kappa and McNemar.

Both are one Polars query (a LazyFrame gives a LazyFrame); the formulas are in
:mod:`gradeframe.stats`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import polars as pl

from gradeframe._inputs import Schema, check_column, dtype_error, frame_schema, item_columns
from gradeframe._summary_inputs import (
    GRADE_FIRST,
    by_columns,
    check_frame,
    column_name,
    correct_expr,
    is_pandas,
    returns_same_kind,
    same_kind,
)
from gradeframe._threads import one_at_a_time
from gradeframe.stats import (
    Z_95,
    Adjustment,
    adjusted_p_value,
    bounded_mean,
    bounded_sum,
    check_adjust,
    cohens_kappa,
    mcnemar_p_value,
    normal_interval,
    paired_t_p_value,
)

__all__ = ["AGREEMENT_COLUMNS", "COMPARE_COLUMNS", "agreement", "compare", "discordant"]

#: The columns of :func:`compare`, in order.
COMPARE_COLUMNS: Final = (
    "a",
    "b",
    "n_items",
    "accuracy_a",
    "accuracy_b",
    "difference",
    "ci_low",
    "ci_high",
    "both_right",
    "only_a",
    "only_b",
    "both_wrong",
    "p_value",
    "p_adjusted",
    "verdict",
)

#: The words of ``verdict`` in :func:`compare`: b is better (the interval of the difference b − a
#: lies above 0 and the adjusted p-value is below :data:`LEVEL`), a is better (below 0, and the
#: same p-value), or neither is shown.
VERDICTS: Final = ("b better", "a better", "not settled")

#: The statistics columns of :func:`agreement`, in order, after the group columns.
AGREEMENT_COLUMNS: Final = (
    "n",
    "both_right",
    "only_a",
    "only_b",
    "both_wrong",
    "agreement",
    "kappa",
    "p_value",
    "n_missing",
)

_TABLE: Final = ("both_right", "only_a", "only_b", "both_wrong")

#: The p-value a verdict other than "not settled" must be below.
LEVEL: Final = 0.05


def _pandas_on(on: Any, frame: Any) -> list[str]:
    """Return the item columns a pandas frame's ``on`` names (the default resolved)."""
    if on is None:
        return item_columns(None, {str(c): pl.Null for c in frame.columns})
    return [on] if isinstance(on, str) else list(on) if isinstance(on, Sequence) else []


def _pandas_pair_frame(
    frame: Any, by: Any, on: Any, correct: Any, answer: Any = None
) -> tuple[pl.DataFrame, Any]:
    """Return the pandas frame's columns that compare/discordant read, as Polars, and its ``on``.

    ``on`` comes back with the default resolved on the pandas columns.
    """
    from gradeframe import _frames

    on_names = _pandas_on(on, frame)
    by_names = list(by) if isinstance(by, list | tuple) else [by]
    arguments = [
        *[("by", c, None) for c in by_names],
        *[("on", c, None) for c in on_names],
        ("correct", correct, None),
        *([] if answer is None else [("answer", answer, None)]),
    ]
    polars_frame = _frames.to_polars(frame, _frames.needed_columns(frame, arguments))
    return polars_frame, on_names or on


def _by_columns(by: Any, schema: Schema) -> tuple[str, list[str]]:
    """Return the compared column and the split columns of ``by`` (a name, or a list of them)."""
    if isinstance(by, list | tuple):
        if not by:
            msg = "`by` must be a column name or a non-empty list of column names, got []"
            raise ValueError(msg)
        names = [column_name(c, "by") for c in by]
        if len(set(names)) != len(names):
            msg = f"`by` names a column more than once: {names!r}"
            raise ValueError(msg)
    else:
        names = [column_name(by, "by")]
    for name in names:
        check_column(schema, name, "by")
    return names[0], names[1:]


def _pair_columns(
    frame: Any, by: Any, on: Any, function: str, outputs: Sequence[str]
) -> tuple[Schema, str, list[str], list[str]]:
    """Check the frame, ``by`` and ``on`` of compare/discordant.

    Returns the schema, the compared column, the split columns (the rest of ``by``) and the
    item columns.
    """
    check_frame(frame, function)
    schema = frame_schema(frame)
    group, splits = _by_columns(by, schema)
    items = _on_columns(item_columns(None, schema) if on is None else on, schema)
    for name in (group, *splits):
        if name in items:
            msg = f"`by`: {name!r} is also an `on` column."
            raise ValueError(msg)
    clash = sorted(set(splits) & {*outputs, "a", "b"})
    if clash:
        msg = f"`by`: the split column(s) {clash!r} share a name with {function}'s columns."
        raise ValueError(msg)
    return schema, group, splits, items


def _check_baseline(frame: Any, group: str, baseline: Any) -> None:
    """Raise when a DataFrame's ``by`` column does not hold ``baseline``."""
    if baseline is None or not isinstance(frame, pl.DataFrame):
        return
    present = frame.select((pl.col(group) == pl.lit(baseline)).any()).item()
    if not present:
        shown = frame.get_column(group).drop_nulls().unique().sort().head(20).to_list()
        msg = f"`baseline={baseline!r}` is not a value of {group!r}; it has {shown!r}."
        raise ValueError(msg)


def _answer_text(answer: Any, schema: Schema) -> pl.Expr:
    """Return the answer text :func:`discordant` lists.

    ``answer`` is a String column or expression, or a struct output record (its ``answer``
    field, else its ``text``).
    """
    if isinstance(answer, pl.Expr):
        return answer.cast(pl.String)
    name = column_name(answer, "answer")
    check_column(schema, name, "answer")
    dtype = schema[name]
    if isinstance(dtype, pl.Struct):
        fields = [f.name for f in dtype.fields if f.name in ("answer", "text")]
        if not fields:
            raise dtype_error("answer", name, dtype, "String, or a record with an answer field")
        return pl.coalesce([pl.col(name).struct.field(f).cast(pl.String) for f in fields])
    if dtype not in (pl.String, pl.Categorical, pl.Null) and not isinstance(dtype, pl.Enum):
        raise dtype_error("answer", name, dtype, "String (the answer text)")
    return pl.col(name).cast(pl.String)


def _wanted(baseline: Any) -> pl.Expr:
    """Return the filter that keeps the compared pairs (a, b)."""
    if baseline is None:
        return pl.col("a") < pl.col("b")
    return (pl.col("a") == pl.lit(baseline)) & (pl.col("b") != pl.lit(baseline))


def _on_columns(on: str | Sequence[str], schema: Schema) -> list[str]:
    names = [on] if isinstance(on, str) else on
    if not isinstance(names, Sequence) or not names or not all(isinstance(c, str) for c in names):
        msg = f"`on` must be a column name or a non-empty list of column names, got {on!r}"
        raise TypeError(msg)
    return by_columns(list(names), schema, "on")  # each once, each in the frame


def _sd(values: pl.Expr) -> pl.Expr:
    """Return the sd (ddof = 1) of values in [-1, 1]: two passes in fixed point; null below two."""
    squares = bounded_sum((values - bounded_mean(values)) ** 2, bound=4.0)
    count = values.count()
    return pl.when(count >= 2).then((squares / (count - 1).cast(pl.Float64)).sqrt())


@one_at_a_time
def compare(
    frame: Any,
    by: str | Sequence[str] = "model",
    on: str | Sequence[str] | None = None,
    *,
    correct: str = "correct",
    baseline: Any = None,
    adjust: Adjustment = "holm",
) -> Any:
    r"""Compare the groups of ``by`` pairwise on the items they share.

    An item is a value of ``on`` (one or more columns); for each group its rows are averaged
    first (several epochs give a per-item accuracy between 0 and 1; a null ``correct`` is not
    right). A pair compares the items both groups have. One row per pair: ``baseline`` against
    each other group, or, when ``baseline`` is None, every pair ``a < b`` in sorted order. A pair
    with no shared item has ``n_items`` 0 and null statistics. Rows whose ``by`` value is null
    are left out.

    Columns (after the split columns when ``by`` is a list):

    - ``a``, ``b``: the two groups; ``n_items`` (Int64): the items they share;
    - ``accuracy_a``, ``accuracy_b``: mean per-item accuracy on those items;
    - ``difference``: :math:`\bar d`, the mean of the per-item differences
      :math:`d_i = b_i - a_i` (so ``accuracy_b - accuracy_a``);
    - ``ci_low``, ``ci_high``: :math:`\bar d \pm 1.959964\, s_d / \sqrt n` (sd with ddof = 1),
      clipped to [-1, 1]; null with fewer than two items;
    - ``both_right``, ``only_a``, ``only_b``, ``both_wrong`` (Int64): items, by each side's
      majority verdict (per-item mean ≥ 0.5 is right);
    - ``p_value``: McNemar's exact test on ``only_a`` and ``only_b`` when every shared item has
      exactly one row on each side (:func:`gradeframe.stats.mcnemar_p_value`); otherwise the
      paired t-test on the per-item differences (:func:`gradeframe.stats.paired_t_p_value`);
    - ``p_adjusted``: the p-values of the call's pairs adjusted for their number
      (:func:`gradeframe.stats.adjusted_p_value`; within each split when ``by`` is a list); with
      one pair, or ``adjust=None``, it equals ``p_value``;
    - ``verdict`` (String), in words for a reader who is no statistician: ``"b better"`` when
      ``ci_low > 0`` and ``p_adjusted < 0.05``, ``"a better"`` when ``ci_high < 0`` and
      ``p_adjusted < 0.05``, else ``"not settled"`` (also when there is no interval: fewer than
      two shared items). The words never contradict the p-value.

    Parameters
    ----------
    frame
        A graded Polars DataFrame or LazyFrame, or a pandas DataFrame.
    by
        The column whose values are compared (say the model), or a list of columns: the first
        names the compared groups, the others split the comparisons (``["model", "task"]``
        compares the models within each task; the split columns come first in the output).
    on
        The column or columns that name an item (say the question). None (the default): the
        frame's ``question_id``, else ``task`` and ``sample_id`` together (the log readers'
        frames, whose sample ids repeat across tasks), else ``sample_id``; else it raises
        naming these choices.
    correct
        The Boolean column that says an answer is right.
    baseline
        A value of ``by`` to compare every other group against (as ``a``); it must occur in the
        frame (checked on a DataFrame; on a LazyFrame an absent baseline gives no rows).
    adjust
        How ``p_adjusted`` accounts for the number of pairs: ``"holm"`` (the default, Holm's
        step-down), ``"bonferroni"``, or None (no adjustment).

    Returns
    -------
    pl.DataFrame | pl.LazyFrame | pandas.DataFrame
        The same kind of frame as the input, sorted by the split columns, ``a`` and ``b``.

    Examples
    --------
    Three more right answers out of six is a difference of 0.5, but McNemar's p is 0.25: not
    settled.

    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "model": ["old"] * 6 + ["new"] * 6,
    ...         "question_id": list("uvwxyz") * 2,
    ...         "correct": [True, False, False, True, False, False]
    ...         + [True, True, True, True, False, True],
    ...     }
    ... )
    >>> out = gf.compare(df, baseline="old")
    >>> out.select("a", "b", "difference", "ci_low", "p_value", "verdict").with_columns(
    ...     pl.selectors.float().round(4)
    ... )
    shape: (1, 6)
    ┌─────┬─────┬────────────┬────────┬─────────┬─────────────┐
    │ a   ┆ b   ┆ difference ┆ ci_low ┆ p_value ┆ verdict     │
    │ --- ┆ --- ┆ ---        ┆ ---    ┆ ---     ┆ ---         │
    │ str ┆ str ┆ f64        ┆ f64    ┆ f64     ┆ str         │
    ╞═════╪═════╪════════════╪════════╪═════════╪═════════════╡
    │ old ┆ new ┆ 0.5        ┆ 0.0617 ┆ 0.25    ┆ not settled │
    └─────┴─────┴────────────┴────────┴─────────┴─────────────┘
    """
    adjust = check_adjust(adjust)
    if is_pandas(frame):
        from gradeframe import _frames

        if isinstance(correct, str):
            check_column(dict.fromkeys(map(str, frame.columns)), correct, "correct", GRADE_FIRST)  # type: ignore[arg-type]
        polars_frame, on = _pandas_pair_frame(frame, by, on, correct)
        result = compare(polars_frame, by, on, correct=correct, baseline=baseline, adjust=adjust)
        return _frames.to_pandas_frame(result)
    schema, group, splits, items = _pair_columns(frame, by, on, "compare", COMPARE_COLUMNS)
    right = correct_expr(column_name(correct, "correct"), schema)
    lazy = frame.lazy().filter(pl.col(group).is_not_null())
    _check_baseline(frame, group, baseline)

    keys = [f"__gf_on{i}" for i in range(len(items))]
    per_item = _per_item(lazy, group, splits, items, keys, right)
    wanted = _wanted(baseline)
    paired = _paired(per_item, splits, keys, wanted)
    pairs = _pairs(lazy, group, splits, wanted)
    low, high, p_value, verdict = _pair_statistics()
    out = (
        pairs.join(paired, on=[*splits, "a", "b"], how="left", nulls_equal=True)
        .with_columns(pl.col("n_items", *_TABLE).fill_null(0))
        .select(
            *splits,
            "a",
            "b",
            "n_items",
            "accuracy_a",
            "accuracy_b",
            "difference",
            low,
            high,
            *_TABLE,
            p_value.alias("p_value"),
        )
        .with_columns(adjusted_p_value("p_value", adjust, over=splits))
        .with_columns(verdict.alias("verdict"))
        .sort(*splits, "a", "b", nulls_last=True)
    )
    return same_kind(out, frame)


def _per_item(
    lazy: pl.LazyFrame,
    group: str,
    splits: list[str],
    items: list[str],
    keys: list[str],
    right: pl.Expr,
) -> pl.LazyFrame:
    """Average each group's rows per item: the share right (``__gf_s``) and the rows (``__gf_r``).

    The group becomes ``__gf_g`` and the item columns are renamed to ``keys``.
    """
    return (
        lazy.group_by(group, *splits, *items)
        .agg(right.cast(pl.Float64).mean().alias("__gf_s"), pl.len().alias("__gf_r"))
        .select(
            pl.col(group).alias("__gf_g"),
            *splits,
            *[pl.col(c).alias(k) for c, k in zip(items, keys, strict=True)],
            "__gf_s",
            "__gf_r",
        )
    )


def _paired(
    per_item: pl.LazyFrame, splits: list[str], keys: list[str], wanted: pl.Expr
) -> pl.LazyFrame:
    """Join each wanted pair's sides on the items they share, and sum up the pair over them."""
    side_a = per_item.rename({"__gf_g": "a", "__gf_s": "__gf_sa", "__gf_r": "__gf_ra"})
    side_b = per_item.rename({"__gf_g": "b", "__gf_s": "__gf_sb", "__gf_r": "__gf_rb"})
    sa, sb = pl.col("__gf_sa"), pl.col("__gf_sb")
    right_a, right_b = sa >= 0.5, sb >= 0.5
    difference = sb - sa
    return (
        side_a.join(side_b, on=[*splits, *keys], how="inner", nulls_equal=True)
        .filter(wanted)
        .group_by(*splits, "a", "b")
        .agg(
            pl.len().cast(pl.Int64).alias("n_items"),
            # Fixed-point sums (bounded_mean), not Polars' float sums, whose last bits depend on
            # threads and chunks: the same call gives the same bits every time.
            bounded_mean(sa).alias("accuracy_a"),
            bounded_mean(sb).alias("accuracy_b"),
            bounded_mean(difference).alias("difference"),
            _sd(difference).alias("__gf_sd"),
            (right_a & right_b).sum().cast(pl.Int64).alias("both_right"),
            (right_a & ~right_b).sum().cast(pl.Int64).alias("only_a"),
            (~right_a & right_b).sum().cast(pl.Int64).alias("only_b"),
            (~right_a & ~right_b).sum().cast(pl.Int64).alias("both_wrong"),
            ((pl.col("__gf_ra") == 1) & (pl.col("__gf_rb") == 1)).all().alias("__gf_single"),
        )
    )


def _pairs(lazy: pl.LazyFrame, group: str, splits: list[str], wanted: pl.Expr) -> pl.LazyFrame:
    """Return every wanted pair (``a``, ``b``) of groups, within each split: shared items or not."""
    groups = lazy.select(*splits, group).unique()
    side = [groups.rename({group: name}) for name in ("a", "b")]
    if splits:
        pairs = side[0].join(side[1], on=splits, how="inner", nulls_equal=True)
    else:
        pairs = side[0].join(side[1], how="cross")
    return pairs.filter(wanted)


def _pair_statistics() -> tuple[pl.Expr, pl.Expr, pl.Expr, pl.Expr]:
    """Return a pair's interval (low, high), its p-value and its verdict, as expressions."""
    n = pl.col("n_items")
    se = pl.when(n >= 2).then(pl.col("__gf_sd") / n.cast(pl.Float64).sqrt())
    low, high = normal_interval("difference", se, z=Z_95, clip=(-1.0, 1.0))
    p_value = (
        pl.when(n == 0)
        .then(None)
        .when(pl.col("__gf_single"))
        .then(mcnemar_p_value("only_a", "only_b"))
        .otherwise(paired_t_p_value("difference", "__gf_sd", "n_items"))
    )
    b_better, a_better, unsettled = (pl.lit(v, dtype=pl.String) for v in VERDICTS)
    shown = pl.col("p_adjusted") < LEVEL
    verdict = (
        pl.when((pl.col("ci_low") > 0) & shown)
        .then(b_better)
        .when((pl.col("ci_high") < 0) & shown)
        .then(a_better)
        .otherwise(unsettled)
    )
    return low, high, p_value, verdict


def _verdict(name: Any, argument: str, schema: Schema) -> pl.Expr:
    name = column_name(name, argument)
    check_column(schema, name, argument)
    dtype = schema[name]
    if dtype not in (pl.Boolean, pl.Null):
        raise dtype_error(argument, name, dtype, "Boolean (a verdict per row)")
    return pl.col(name).cast(pl.Boolean)


@one_at_a_time
@returns_same_kind
def agreement(
    frame: Any,
    a: str,
    b: str,
    *,
    by: str | Sequence[str] | None = None,
) -> Any:
    r"""Compare two Boolean verdicts of the same rows: counts, agreement, kappa, McNemar.

    Say ``a`` is an evaluation tool's own verdict and ``b`` gradeframe's. One row per group of
    ``by`` (one row without it), sorted by the group columns (nulls last), with

    - ``n`` (Int64): rows where both verdicts are present (a row with a null verdict is left
      out of every column);
    - ``both_right``, ``only_a``, ``only_b``, ``both_wrong`` (Int64): the 2×2 table;
    - ``agreement``: the share of equal verdicts, :math:`(n_{11} + n_{00})/n`;
    - ``kappa``: Cohen's kappa (:func:`gradeframe.stats.cohens_kappa`), null when both verdicts
      are one constant (agreement expected by chance is then 1);
    - ``p_value``: McNemar's exact test on ``only_a`` and ``only_b``
      (:func:`gradeframe.stats.mcnemar_p_value`): small when one verdict says "right" more
      often than the other, beyond chance;
    - ``n_missing`` (Int64): rows left out because either verdict is null (say a tool whose
      grader failed).

    All null (counts 0) when ``n`` is 0.

    Parameters
    ----------
    frame
        A Polars DataFrame or LazyFrame, or a pandas DataFrame.
    a, b
        The two Boolean verdict columns.
    by
        None, a column name, or a list of column names to group by.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "tool_correct": [True, True, False, True, False, None],
    ...         "correct": [True, False, False, True, False, True],
    ...     }
    ... )
    >>> gf.agreement(df, "tool_correct", "correct").with_columns(pl.selectors.float().round(4))
    shape: (1, 9)
    ┌─────┬────────────┬────────┬────────┬───┬───────────┬────────┬─────────┬───────────┐
    │ n   ┆ both_right ┆ only_a ┆ only_b ┆ … ┆ agreement ┆ kappa  ┆ p_value ┆ n_missing │
    │ --- ┆ ---        ┆ ---    ┆ ---    ┆   ┆ ---       ┆ ---    ┆ ---     ┆ ---       │
    │ i64 ┆ i64        ┆ i64    ┆ i64    ┆   ┆ f64       ┆ f64    ┆ f64     ┆ i64       │
    ╞═════╪════════════╪════════╪════════╪═══╪═══════════╪════════╪═════════╪═══════════╡
    │ 5   ┆ 2          ┆ 1      ┆ 0      ┆ … ┆ 0.8       ┆ 0.6154 ┆ 1.0     ┆ 1         │
    └─────┴────────────┴────────┴────────┴───┴───────────┴────────┴─────────┴───────────┘
    """
    if is_pandas(frame):
        from gradeframe import _frames

        arguments = [("a", a, None), ("b", b, None)]
        group_names = [by] if isinstance(by, str) else list(by or [])
        arguments += [("by", name, None) for name in group_names]
        polars_frame = _frames.to_polars(frame, _frames.needed_columns(frame, arguments))
        return _frames.to_pandas_frame(agreement(polars_frame, a, b, by=by))
    check_frame(frame, "agreement")
    schema = frame_schema(frame)
    group = by_columns(by, schema)
    verdict_a, verdict_b = _verdict(a, "a", schema), _verdict(b, "b", schema)
    clash = sorted(set(group) & set(AGREEMENT_COLUMNS))
    if clash:
        msg = f"`by`: the group column(s) {clash!r} share a name with agreement columns."
        raise ValueError(msg)
    both = verdict_a.is_not_null() & verdict_b.is_not_null()
    cells = [
        (both & verdict_a & verdict_b).sum().alias("both_right"),
        (both & verdict_a & ~verdict_b).sum().alias("only_a"),
        (both & ~verdict_a & verdict_b).sum().alias("only_b"),
        (both & ~verdict_a & ~verdict_b).sum().alias("both_wrong"),
    ]
    aggregations = [
        both.sum().cast(pl.Int64).alias("n"),
        *(c.cast(pl.Int64) for c in cells),
        (~both).sum().cast(pl.Int64).alias("n_missing"),
    ]
    lazy = frame.lazy()
    if group:
        counted = lazy.group_by(group).agg(*aggregations).sort(group, nulls_last=True)
    else:
        counted = lazy.select(*aggregations)
    some = pl.col("n") > 0
    out = counted.select(
        *group,
        "n",
        *_TABLE,
        pl.when(some)
        .then((pl.col("both_right") + pl.col("both_wrong")) / pl.col("n"))
        .alias("agreement"),
        cohens_kappa(*_TABLE),
        pl.when(some).then(mcnemar_p_value("only_a", "only_b")).alias("p_value"),
        "n_missing",
    )
    return same_kind(out, frame)


@returns_same_kind
def discordant(
    frame: Any,
    by: str | Sequence[str] = "model",
    on: str | Sequence[str] | None = None,
    *,
    correct: str = "correct",
    baseline: Any = None,
    answer: str | pl.Expr | None = None,
) -> Any:
    """List the items of each pair of :func:`compare` on which the two groups disagree.

    The same pairs, items and majority verdicts as :func:`compare` (an item's rows are averaged
    per group; a mean ≥ 0.5 is right): one row per pair and item where exactly one side is
    right, so each pair has ``only_a + only_b`` rows of :func:`compare`. Columns: the split
    columns (when ``by`` is a list), ``a``, ``b``, the ``on`` columns, ``accuracy_a`` and
    ``accuracy_b`` (the item's mean on each side) and ``only`` (``"a"`` or ``"b"``: the side
    that was right). Sorted by the split columns, ``a``, ``b``, ``only`` and the ``on`` columns
    (nulls last). With ``answer``, ``answers_a`` and ``answers_b`` (List(String)) hold each
    side's distinct answers to the item, in the order of the rows (nulls left out), so the two
    can be read side by side.

    Parameters
    ----------
    frame, by, on, correct, baseline
        As in :func:`compare`.
    answer
        None, or the answer text: a String column name or expression (a struct output record
        is read by its ``answer`` field, else ``text``).

    Examples
    --------
    >>> import polars as pl
    >>> from gradeframe.compare import discordant
    >>> df = pl.DataFrame(
    ...     {
    ...         "model": ["old"] * 3 + ["new"] * 3,
    ...         "question_id": ["u", "v", "w"] * 2,
    ...         "correct": [True, False, True, False, True, True],
    ...     }
    ... )
    >>> discordant(df, baseline="old").select("a", "b", "question_id", "only")
    shape: (2, 4)
    ┌─────┬─────┬─────────────┬──────┐
    │ a   ┆ b   ┆ question_id ┆ only │
    │ --- ┆ --- ┆ ---         ┆ ---  │
    │ str ┆ str ┆ str         ┆ str  │
    ╞═════╪═════╪═════════════╪══════╡
    │ old ┆ new ┆ u           ┆ a    │
    │ old ┆ new ┆ v           ┆ b    │
    └─────┴─────┴─────────────┴──────┘
    """
    if is_pandas(frame):
        from gradeframe import _frames

        polars_frame, on = _pandas_pair_frame(frame, by, on, correct, answer)
        result = discordant(polars_frame, by, on, correct=correct, baseline=baseline, answer=answer)
        return _frames.to_pandas_frame(result)
    outputs = ("accuracy_a", "accuracy_b", "only", "answers_a", "answers_b")
    schema, group, splits, items = _pair_columns(frame, by, on, "discordant", outputs)
    clash = sorted(set(items) & {"a", "b", *outputs})
    if clash:
        msg = f"`on`: the column(s) {clash!r} share a name with discordant's columns."
        raise ValueError(msg)
    right = correct_expr(column_name(correct, "correct"), schema)
    _check_baseline(frame, group, baseline)
    said = [] if answer is None else [_answer_text(answer, schema).alias("__gf_answers")]
    per_item = (
        frame.lazy()
        .filter(pl.col(group).is_not_null())
        .group_by(group, *splits, *items)
        .agg(right.cast(pl.Float64).mean().alias("__gf_s"), *said)
    )
    if said:
        distinct = pl.col("__gf_answers").list.drop_nulls().list.unique(maintain_order=True)
        per_item = per_item.with_columns(distinct)
    side_a = per_item.rename(
        {group: "a", "__gf_s": "accuracy_a", "__gf_answers": "answers_a"}, strict=False
    )
    side_b = per_item.rename(
        {group: "b", "__gf_s": "accuracy_b", "__gf_answers": "answers_b"}, strict=False
    )
    right_a, right_b = pl.col("accuracy_a") >= 0.5, pl.col("accuracy_b") >= 0.5
    out = (
        side_a.join(side_b, on=[*splits, *items], how="inner", nulls_equal=True)
        .filter(_wanted(baseline), right_a != right_b)
        .select(
            *splits,
            "a",
            "b",
            *items,
            "accuracy_a",
            "accuracy_b",
            pl.when(right_a).then(pl.lit("a")).otherwise(pl.lit("b")).alias("only"),
            *(["answers_a", "answers_b"] if said else []),
        )
        .sort(*splits, "a", "b", "only", *items, nulls_last=True)
    )
    return same_kind(out, frame)
