"""Rubrics: a score from a judge's verdict on each criterion, HealthBench's way.

:func:`with_rubric` scores each row from its declared criteria (``{criterion, points, tags}``)
and the judge's verdicts on them (a list of Booleans in the same order, or of ``{criterion,
met}``): the points of the met criteria (negative points included) over the sum of the positive
points. The denominator is always the declared criteria, never the verdicts a judge happened to
return: a verdict list that does not match the criteria one for one is the grader's failure.
:func:`rubric_report` summarises the scores per group (and per tag).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, TypeVar

import polars as pl

from gradeframe import kinds
from gradeframe._inputs import (
    IntoExpr,
    check_column,
    check_output_names,
    check_prefix,
    dtype_error,
    frame_schema,
    struct_fields,
    to_expr,
)
from gradeframe._threads import one_at_a_time
from gradeframe.stats import mean_interval

__all__ = ["RUBRIC_COLUMNS", "rubric_report", "with_rubric"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)

#: The columns :func:`with_rubric` adds, before ``prefix``.
RUBRIC_COLUMNS: Final = ("rubric_score", "criteria_met", "failure_kind", "grader_failure")

EMPTY: Final = "empty"
MISSING: Final = "missing_criterion"
EXTRA: Final = "extra_criterion"
DUPLICATE: Final = "duplicate_criterion"


def _criteria_parts(schema: pl.Schema, criteria: str) -> None:
    dtype = schema[criteria]
    inner = dtype.inner if isinstance(dtype, pl.List) else None
    fields = struct_fields(inner) if inner is not None else {}
    if "criterion" not in fields or "points" not in fields:
        raise dtype_error(
            "criteria",
            criteria,
            dtype,
            "a list of structs {criterion: String, points: Float64, tags: List(String)}",
        )


def _met_kind(schema: pl.Schema, met: str) -> str:
    """Return "flags" (a list of Booleans) or "named" (a list of {criterion, met})."""
    dtype = schema[met]
    inner = dtype.inner if isinstance(dtype, pl.List) else None
    if inner == pl.Boolean or inner == pl.Null:
        return "flags"
    fields = struct_fields(inner) if inner is not None else {}
    if "criterion" in fields and "met" in fields:
        return "named"
    raise dtype_error(
        "met",
        met,
        dtype,
        "a list of Booleans, or a list of structs {criterion: String, met: Boolean}",
    )


def rubric_expressions(criteria: IntoExpr, met: IntoExpr, kind: str) -> dict[str, pl.Expr]:
    """Return ``rubric_score``, ``criteria_met`` and ``grader_failure`` as expressions."""
    declared = to_expr(criteria, "criteria")
    verdicts = to_expr(met, "met")
    points = declared.list.eval(pl.element().struct.field("points").cast(pl.Float64))
    if kind == "named":
        names = declared.list.eval(pl.element().struct.field("criterion"))
        given = verdicts.list.eval(pl.element().struct.field("criterion"))
        duplicate = given.list.n_unique() < given.list.len()
        extra = given.list.set_difference(names).list.len() > 0
        missing = (names.list.set_difference(given).list.len() > 0) | verdicts.list.eval(
            pl.element().struct.field("met").is_null()
        ).list.any()
        # Both lists in the criteria's order of names, then side by side.
        by_name = pl.element().sort_by(pl.element().struct.field("criterion"))
        points = declared.list.eval(by_name).list.eval(
            pl.element().struct.field("points").cast(pl.Float64)
        )
        flags = verdicts.list.eval(by_name).list.eval(pl.element().struct.field("met"))
    else:
        duplicate = pl.lit(value=False)
        extra = verdicts.list.len() > declared.list.len()
        missing = (verdicts.list.len() < declared.list.len()) | verdicts.list.eval(
            pl.element().is_null()
        ).list.any()
        flags = verdicts
    failure = (
        pl.when(verdicts.is_null())
        .then(pl.lit(EMPTY))
        .when(duplicate)
        .then(pl.lit(DUPLICATE))
        .when(extra)
        .then(pl.lit(EXTRA))
        .when(missing)
        .then(pl.lit(MISSING))
    )
    earned = (points * flags.cast(pl.List(pl.Float64))).list.sum()
    possible = points.list.eval(pl.element().clip(lower_bound=0.0)).list.sum()
    score = pl.when(possible > 0).then(earned / possible)
    count = flags.list.eval(pl.element().cast(pl.UInt32)).list.sum()
    return {
        "rubric_score": pl.when(failure.is_null()).then(score),
        "criteria_met": pl.when(failure.is_null()).then(count),
        "failure_kind": pl.when(failure.is_not_null()).then(pl.lit(kinds.GRADER_FAILURE)),
        "grader_failure": failure,
    }


@one_at_a_time
def with_rubric(
    frame: FrameT, criteria: str = "rubric", met: str = "met", *, prefix: str = ""
) -> FrameT:
    r"""Score each row by its rubric: HealthBench's arithmetic over the declared criteria.

    ``rubric_score`` is the points of the met criteria (negative points included) over the sum
    of the positive points (null when that sum is 0); ``criteria_met`` counts the met criteria.
    When the verdicts do not match the criteria one for one, the grader failed: ``failure_kind``
    is ``grader_failure`` and ``grader_failure`` says how (``duplicate_criterion`` before
    ``extra_criterion`` before ``missing_criterion``; a null ``met`` is ``empty``; an empty
    ``met`` for a non-empty rubric is ``missing_criterion``), and the score and count are null.

    Parameters
    ----------
    frame
        A Polars DataFrame or LazyFrame.
    criteria
        A column of lists of structs ``{criterion, points, tags}`` (``tags`` optional).
    met
        A column of lists of Booleans in the criteria's order, or of structs ``{criterion,
        met}`` matched by name.
    prefix
        Put before each output name.

    Returns
    -------
    polars.DataFrame or polars.LazyFrame
        The frame with ``rubric_score``, ``criteria_met``, ``failure_kind`` and
        ``grader_failure`` (each ``prefix + name``).

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> rubric = [
    ...     {"criterion": "names the drug", "points": 5.0},
    ...     {"criterion": "gives the dose", "points": 3.0},
    ...     {"criterion": "advises against a doctor", "points": -4.0},
    ... ]
    >>> met = [[True, True, False], [True, False, True], [True]]
    >>> df = pl.DataFrame({"rubric": [rubric] * 3, "met": met})
    >>> gf.with_rubric(df).drop("rubric", "met")
    shape: (3, 4)
    ┌──────────────┬──────────────┬────────────────┬───────────────────┐
    │ rubric_score ┆ criteria_met ┆ failure_kind   ┆ grader_failure    │
    │ ---          ┆ ---          ┆ ---            ┆ ---               │
    │ f64          ┆ u32          ┆ str            ┆ str               │
    ╞══════════════╪══════════════╪════════════════╪═══════════════════╡
    │ 1.0          ┆ 2            ┆ null           ┆ null              │
    │ 0.125        ┆ 2            ┆ null           ┆ null              │
    │ null         ┆ null         ┆ grader_failure ┆ missing_criterion │
    └──────────────┴──────────────┴────────────────┴───────────────────┘
    """
    check_prefix(prefix)
    schema = frame_schema(frame)
    for argument, name in (("criteria", criteria), ("met", met)):
        if not isinstance(name, str):
            msg = f"`{argument}` must be a column name (str), got {type(name).__name__}"
            raise TypeError(msg)
        check_column(schema, name, argument)
    check_output_names(schema, [prefix + c for c in RUBRIC_COLUMNS])
    _criteria_parts(schema, criteria)
    built = rubric_expressions(criteria, met, _met_kind(schema, met))
    return frame.with_columns(expr.alias(prefix + name) for name, expr in built.items())


def _tag_scores(frame: pl.DataFrame, by: list[str], criteria: str, met: str) -> pl.DataFrame:
    """One row per graded row and tag: the tag's earned points over its positive points."""
    kind = _met_kind(frame.schema, met)
    rows = frame.with_row_index("__row__").filter(pl.col("grader_failure").is_null())
    declared = rows.select(
        "__row__",
        *by,
        item=pl.col(criteria),
        flag=(
            pl.col(met)
            if kind == "flags"
            else pl.col(met).list.eval(
                pl.element().sort_by(pl.element().struct.field("criterion")).struct.field("met")
            )
        ),
    )
    if kind == "named":
        declared = declared.with_columns(
            pl.col("item").list.eval(pl.element().sort_by(pl.element().struct.field("criterion")))
        )
    items = declared.explode(["item", "flag"]).select(
        "__row__",
        *by,
        "flag",
        points=pl.col("item").struct.field("points").cast(pl.Float64),
        tag=pl.col("item").struct.field("tags"),
    )
    tagged = items.explode("tag").drop_nulls("tag")
    per_row = tagged.group_by(["__row__", *by, "tag"]).agg(
        earned=(pl.col("points") * pl.col("flag").cast(pl.Float64)).sum(),
        possible=pl.col("points").clip(lower_bound=0.0).sum(),
    )
    return per_row.filter(pl.col("possible") > 0).select(
        *by, "tag", rubric_score=pl.col("earned") / pl.col("possible")
    )


@one_at_a_time
def rubric_report(
    df: Any,
    by: str | Sequence[str] | None = None,
    *,
    tags: bool = False,
) -> Any:
    r"""Summarise rubric scores per group: the mean, clipped to [0, 1], with its interval.

    Rows with a grader failure are counted (``grader_failure``) and left out of the mean;
    ``n_graded`` = ``n`` - ``grader_failure``. ``mean_score`` is the mean ``rubric_score``
    (rows with a null score, whose rubric has no positive points, left out), and
    ``score_ci_low``/``score_ci_high`` its normal 95 % interval (sd with ddof=1), each clipped
    to [0, 1]. With ``tags=True``, one row per group and tag: a row's score for a tag is the
    points of its met criteria with that tag over that tag's positive points (rows without a
    positive criterion of the tag left out); each criterion counts under each of its tags. The
    frame must hold :func:`with_rubric`'s columns (and, for tags, the ``rubric`` and ``met``
    columns it read).

    Parameters
    ----------
    df
        A frame graded by :func:`with_rubric` (Polars or pandas).
    by
        Group columns (default: none, one row).
    tags
        One row per group and tag.

    Returns
    -------
    polars.DataFrame or pandas.DataFrame
        As the input (a LazyFrame gives a DataFrame). Per group (and ``tag``), sorted:
        ``n``, ``n_graded``, ``grader_failure``, ``mean_score``, ``score_ci_low``,
        ``score_ci_high``.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> rubric = [{"criterion": "a", "points": 2.0}, {"criterion": "b", "points": 2.0}]
    >>> df = pl.DataFrame({"rubric": [rubric] * 3, "met": [[True, True], [True, False], None]})
    >>> gf.rubric_report(gf.with_rubric(df))
    shape: (1, 6)
    ┌─────┬──────────┬────────────────┬────────────┬──────────────┬───────────────┐
    │ n   ┆ n_graded ┆ grader_failure ┆ mean_score ┆ score_ci_low ┆ score_ci_high │
    │ --- ┆ ---      ┆ ---            ┆ ---        ┆ ---          ┆ ---           │
    │ u32 ┆ u32      ┆ u32            ┆ f64        ┆ f64          ┆ f64           │
    ╞═════╪══════════╪════════════════╪════════════╪══════════════╪═══════════════╡
    │ 3   ┆ 2        ┆ 1              ┆ 0.75       ┆ 0.260009     ┆ 1.0           │
    └─────┴──────────┴────────────────┴────────────┴──────────────┴───────────────┘
    """
    frame = _as_polars(df)
    groups = [by] if isinstance(by, str) else list(by or [])
    for name in [*groups, "rubric_score", "grader_failure"]:
        check_column(
            frame.schema, name, "by" if name in groups else "df", "grade with rubric first"
        )
    if tags:
        for name in ("rubric", "met"):
            check_column(frame.schema, name, "tags", "tags=True reads the rubric and met columns")
    failed = pl.col("grader_failure").is_not_null()
    counts = frame.group_by(groups or pl.lit(0).alias("__all__")).agg(
        n=pl.len(), grader_failure=failed.sum().cast(pl.UInt32)
    )
    counts = counts.with_columns(n_graded=pl.col("n") - pl.col("grader_failure"))
    scored = _tag_scores(frame, groups, "rubric", "met") if tags else frame.filter(~failed)
    keys = [*groups, "tag"] if tags else groups
    score = pl.col("rubric_score").drop_nulls()
    summary = scored.group_by(keys or pl.lit(0).alias("__all__")).agg(
        s=score.sum(), q=(score * score).sum(), k=score.len()
    )
    mean, low, high = mean_interval("s", "q", "k")
    summary = summary.with_columns(
        mean_score=mean.clip(0.0, 1.0),
        score_ci_low=low.clip(0.0, 1.0),
        score_ci_high=high.clip(0.0, 1.0),
    )
    on = groups or ["__all__"]
    out = counts.join(summary, on=on, how="left" if not tags else "inner", nulls_equal=True)
    columns = ["n", "n_graded", "grader_failure", "mean_score", "score_ci_low", "score_ci_high"]
    out = out.select(*groups, *(["tag"] if tags else []), *columns)
    out = out.sort([*groups, *(["tag"] if tags else [])]) if keys else out
    return out if isinstance(df, pl.DataFrame | pl.LazyFrame) else out.to_pandas()


def _as_polars(df: object) -> pl.DataFrame:
    if isinstance(df, pl.LazyFrame):
        return df.collect()
    if isinstance(df, pl.DataFrame):
        return df
    import pandas as pd

    if isinstance(df, pd.DataFrame):
        return pl.from_pandas(df)
    msg = f"`df` must be a Polars or pandas DataFrame, got {type(df).__name__}"
    raise TypeError(msg)
