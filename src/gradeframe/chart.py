"""Altair charts of the reports (an optional extra: ``pip install 'gradeframe[chart]'``).

Altair is imported when a chart is drawn, never when gradeframe is imported. Each chart is
built from the report it shows (:func:`gradeframe.report`, :func:`gradeframe.compare`,
:func:`gradeframe.pass_at_k`), so the
numbers drawn are the numbers in the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

import polars as pl

from gradeframe import compare as compare_rules
from gradeframe import kinds
from gradeframe import report as report_rules
from gradeframe import samples as sample_rules
from gradeframe._delegate import insert_section
from gradeframe._summary_inputs import is_pandas, on_pandas, pandas_report_columns
from gradeframe._threads import one_at_a_time
from gradeframe.report import By
from gradeframe.samples import Groups, On

if TYPE_CHECKING:  # pragma: no cover
    import altair as alt

__all__ = ["chart", "compare_chart", "pass_at_k_chart"]


#: The last parameter and the Returns section of the charts of a summary's pairs or curves
#: (:func:`compare_chart`, :func:`pass_at_k_chart`), written once.
_TITLE_AND_RETURNS: Final = """    title
        A title over the chart.

    Returns
    -------
    altair.LayerChart
        Displays in a notebook; ``.to_dict()`` gives its Vega-Lite spec.
"""


def _titled(function: Any) -> Any:
    """Put :data:`_TITLE_AND_RETURNS` into a chart function's docstring, before Examples."""
    return insert_section(function, _TITLE_AND_RETURNS, "\n    Examples\n    --------\n")


def _altair() -> Any:
    try:
        import altair as alt
    except ImportError:
        msg = (
            "gradeframe's charts need Altair, an optional dependency. Install it with: "
            "pip install 'gradeframe[chart]'"
        )
        raise ImportError(msg) from None
    return alt


def _numbers(alt: Any, names: Sequence[str]) -> list[Any]:
    """Return the tooltips of numeric columns, written with three decimals."""
    return [alt.Tooltip(f"{name}:Q", format=".3f") for name in names]


def _collected(table: Any) -> pl.DataFrame:
    if isinstance(table, pl.LazyFrame):
        return table.collect()
    return table


@one_at_a_time
def chart(
    frame: Any,
    by: By = None,
    *,
    correct: str = "correct",
    failure_kind: str = "failure_kind",
    prefix: str = "",
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
    correct, failure_kind, prefix
        The graded columns, as in :func:`gradeframe.report`. On a matcher's output (no
        failure-kind column) the left panel is empty.
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
    if is_pandas(frame):  # converted once (a chart is not converted back)
        columns = pandas_report_columns(frame, by, correct, failure_kind, prefix, None, None)
        options = {"correct": correct, "failure_kind": failure_kind, "prefix": prefix}
        return on_pandas(frame, columns, lambda polars: chart(polars, by, title=title, **options))
    alt = _altair()
    table = _collected(
        report_rules.report(frame, by, correct=correct, failure_kind=failure_kind, prefix=prefix)
    )
    group = table.columns[: table.columns.index("n")]
    label = (
        pl.concat_str([pl.col(c).cast(pl.String).fill_null("null") for c in group], separator=" / ")
        if group
        else pl.lit("all")
    )
    group_title = " / ".join(group) if group else "group"
    known = {
        *group,
        *report_rules.STAT_COLUMNS,
        *report_rules.CLUSTER_COLUMNS,
        *report_rules.SCORE_COLUMNS,
        "n_graded",
    }
    kind_columns = [c for c in table.columns if c not in known]
    table = table.with_columns(label.alias("group"))
    order = table.get_column("group").to_list()
    long = table.unpivot(
        index=["group", "n"], on=kind_columns, variable_name="failure_kind", value_name="count"
    ).filter(pl.col("count") > 0)
    long = long.with_columns(
        pl.col("failure_kind")
        .replace_strict(kind_columns, list(range(len(kind_columns))), return_dtype=pl.Int64)
        .alias("kind_order"),
        # The grader's failures (verdicts) are told apart from the model's: a lighter bar.
        pl.when(pl.col("failure_kind") == kinds.GRADER_FAILURE)
        .then(pl.lit("grader"))
        .otherwise(pl.lit("model"))
        .alias("failed"),
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
            opacity=alt.Opacity(
                "failed:N",
                scale=alt.Scale(domain=["model", "grader"], range=[1.0, 0.4]),
                title="who failed",
            ),
            tooltip=["group:N", "failure_kind:N", "failed:N", "count:Q", "n:Q"],
        )
        .properties(title="Failures by kind", width=320)
    )
    accuracy = _accuracy_panel(alt, table, y)
    out = alt.hconcat(bars, accuracy)
    if title is not None:
        out = out.properties(title=title)
    return out


def _accuracy_panel(alt: Any, table: pl.DataFrame, y: Any) -> Any:
    """Accuracy per group as a point with its 95 % Wilson interval (the chart's right panel)."""
    graded = ["n_graded"] if "n_graded" in table.columns else []
    points = table.select(
        "group", "n", *graded, "n_correct", "accuracy", "ci_low", "ci_high"
    ).to_dicts()
    base = alt.Chart(alt.Data(values=points)).encode(y=y)
    scale = alt.Scale(domain=[0, 1])
    interval = base.mark_rule().encode(
        x=alt.X("ci_low:Q", scale=scale, title="accuracy (95% Wilson interval)"),
        x2="ci_high:Q",
    )
    dots = base.mark_point(filled=True, size=60).encode(
        x=alt.X("accuracy:Q", scale=scale),
        tooltip=[
            "group:N",
            "n:Q",
            *(f"{c}:Q" for c in graded),
            "n_correct:Q",
            "accuracy:Q",
            "ci_low:Q",
            "ci_high:Q",
        ],
    )
    return alt.layer(interval, dots).properties(title="Accuracy", width=240)


@one_at_a_time
@_titled
def compare_chart(
    frame: Any,
    by: str = "model",
    on: str | Sequence[str] | None = None,
    *,
    correct: str = "correct",
    baseline: Any = None,
    title: str | None = None,
) -> alt.LayerChart:
    """Chart the paired differences of :func:`gradeframe.compare`, each with its interval.

    One row per pair, labelled "b − a": the difference in accuracy as a point, its 95 %
    interval as a rule, and a vertical line at 0 (an interval that crosses it does not show
    that ``b`` differs from ``a``). The tooltip has the accuracies, the item count and the
    p-value. Needs the optional Altair dependency: ``pip install 'gradeframe[chart]'``.

    Parameters
    ----------
    frame
        A graded Polars DataFrame or LazyFrame (collected), or a pandas DataFrame.
    by, on, correct, baseline
        As in :func:`gradeframe.compare`.

    Examples
    --------
    >>> import gradeframe as gf
    >>> graded = gf.example().grade.answer_contains()
    >>> c = gf.compare_chart(graded, baseline="atlas-large")
    >>> [layer["mark"]["type"] for layer in c.to_dict()["layer"]]
    ['rule', 'rule', 'point']
    """
    if is_pandas(frame):  # converted once (a chart is not converted back)
        columns, _, items = sample_rules.pandas_columns(frame, by, on, correct, None)
        options = {"correct": correct, "baseline": baseline, "title": title}
        return on_pandas(frame, columns, lambda polars: compare_chart(polars, by, items, **options))
    alt = _altair()
    table = _collected(compare_rules.compare(frame, by, on, correct=correct, baseline=baseline))
    label = pl.concat_str(
        [pl.col("b").cast(pl.String), pl.lit(" − "), pl.col("a").cast(pl.String)]
    ).alias("pair")
    table = table.with_columns(label)
    order = table.get_column("pair").to_list()
    rates = ("accuracy_a", "accuracy_b", "difference", "ci_low", "ci_high")
    values = table.select("pair", "a", "b", "n_items", *rates, "p_value").to_dicts()
    y = alt.Y("pair:N", sort=order, title=f"{by}: b − a")
    base = alt.Chart(alt.Data(values=values)).encode(y=y)
    axis_title = "difference in accuracy (b − a), 95% interval of paired differences"
    interval = base.mark_rule().encode(x=alt.X("ci_low:Q", title=axis_title), x2="ci_high:Q")
    zero = (
        alt.Chart(alt.Data(values=[{"zero": 0.0}]))
        .mark_rule(strokeDash=[4, 4], color="gray")
        .encode(x="zero:Q")
    )
    p_value = alt.Tooltip("p_value:Q", format=".4f")
    dots = base.mark_point(filled=True, size=60).encode(
        x="difference:Q", tooltip=["a:N", "b:N", "n_items:Q", *_numbers(alt, rates), p_value]
    )
    out = alt.layer(zero, interval, dots).properties(width=360)
    if title is not None:
        out = out.properties(title=title)
    return out


def _default_ks(frame: Any, by: Groups, on: On, correct: str) -> list[int]:
    """1, 2, 4, ... up to the fewest samples any item has (and that number itself)."""
    _, _, counts, _ = sample_rules.prepare(
        frame, "pass_at_k_chart", by, on, correct, None, sample_rules.PASS_AT_K_COLUMNS
    )
    fewest = counts.select(pl.col("__gf_n").min()).collect().item()
    if fewest is None:
        return [1]
    ks = [2**i for i in range(fewest.bit_length()) if 2**i <= fewest]
    return sorted({*ks, fewest})


@one_at_a_time
@_titled
def pass_at_k_chart(
    frame: Any,
    k: int | Sequence[int] | None = None,
    *,
    by: Groups = ...,
    on: On = None,
    correct: str = "correct",
    title: str | None = None,
) -> alt.LayerChart:
    """Chart pass@k against k, a line per group, each point with its 95 % interval.

    The numbers are :func:`gradeframe.pass_at_k`'s (a k where some item has fewer than k
    samples has no point). The tooltip has ``n_items``, the interval and ``pass_all_k``. Needs
    the optional Altair dependency: ``pip install 'gradeframe[chart]'``.

    Parameters
    ----------
    frame
        A graded Polars DataFrame or LazyFrame (collected), or a pandas DataFrame.
    k
        The values of k; None: 1, 2, 4, ... up to the fewest samples an item has (and that
        number).
    by, on, correct
        As in :func:`gradeframe.pass_at_k`.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "model": ["a"] * 8 + ["b"] * 8,
    ...         "question_id": ["q1"] * 4 + ["q2"] * 4 + ["q1"] * 4 + ["q2"] * 4,
    ...         "correct": [True, False, False, False] * 2 + [True, True, False, False] * 2,
    ...     }
    ... )
    >>> c = gf.pass_at_k_chart(df)
    >>> [layer["mark"]["type"] for layer in c.to_dict()["layer"]]
    ['rule', 'line', 'point']
    """
    if is_pandas(frame):  # converted once (a chart is not converted back)
        columns, groups, items = sample_rules.pandas_columns(frame, by, on, correct, None)
        options = {"by": groups, "on": items, "correct": correct, "title": title}
        return on_pandas(frame, columns, lambda polars: pass_at_k_chart(polars, k, **options))
    alt = _altair()
    if k is None:
        k = _default_ks(frame, by, on, correct)
    table = _collected(sample_rules.pass_at_k(frame, k, by=by, on=on, correct=correct))
    groups = [c for c in table.columns if c not in sample_rules.PASS_AT_K_COLUMNS]
    if groups:
        label = pl.concat_str(
            [pl.col(c).cast(pl.String).fill_null("null") for c in groups], separator=" / "
        )
        legend = " / ".join(groups)
    else:
        label, legend = pl.lit("all"), "group"
    values = table.with_columns(label.alias("group")).to_dicts()
    base = alt.Chart(alt.Data(values=values)).encode(
        x=alt.X("k:Q", title="k (samples drawn)", scale=alt.Scale(type="log", base=2)),
        color=alt.Color("group:N", title=legend),
    )
    axis_title = "pass@k (95% interval over items)"
    interval = base.mark_rule().encode(
        y=alt.Y("ci_low:Q", title=axis_title, scale=alt.Scale(domain=[0, 1])), y2="ci_high:Q"
    )
    line = base.mark_line().encode(y="pass_at_k:Q")
    rates = _numbers(alt, ("pass_at_k", "ci_low", "ci_high", "pass_all_k"))
    dots = base.mark_point(filled=True, size=50).encode(
        y="pass_at_k:Q", tooltip=["group:N", "k:Q", "n_items:Q", *rates, "short_items:Q"]
    )
    out = alt.layer(interval, line, dots).properties(width=360)
    if title is not None:
        out = out.properties(title=title)
    return out
