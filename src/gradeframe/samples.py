r"""Repeated samples: pass@k, consistency, and the flaky items.

Evaluations often draw several samples per item (epochs in inspect, repeats in lm-eval, 16 to 64
samples per AIME problem). A graded frame already holds each sample as a row, so each of these is
a group-by: every rule is a Polars expression, and no Python loop runs over items.

Each function works in two steps, so that Dask and Spark can run the first on every partition
and the second once on the sums (the same split as :func:`gradeframe.report_counts`):

1. **Counts** (every column additive): per group and item, the samples ``n`` and the right ones
   ``c`` (:func:`sample_counts`); with ``answer``, per group, item and distinct folded answer,
   its votes and its right votes (:func:`vote_counts`).
2. **Statistics** from the counts (:func:`pass_at_k_from_counts`,
   :func:`consistency_from_counts`, :func:`flaky_from_counts`).

Choices made here (also in ``docs/samples.md``):

- A null ``correct`` is a sample that is not right (as in :func:`gradeframe.report` and
  :func:`gradeframe.compare`): it counts in ``n`` and not in ``c``.
- Rows whose group or item value is null are kept: a null is one group, or one item.
- A null answer, or one that folds to the empty string, does not vote.
- An answer is *right* when more than half of its rows are correct (strictly: a folded answer
  with as many right rows as wrong ones is not right). This decides the majority answer of an
  item and the ``correct`` of each answer that :func:`flaky` lists.
- An item where nobody voted (every answer null) has no majority: not right, and not a tie.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from numbers import Integral
from types import EllipsisType
from typing import Any, Final, TypeAlias

import polars as pl

from gradeframe._inputs import (
    IntoExpr,
    Schema,
    as_text,
    check_column,
    dtype_error,
    frame_schema,
    is_text,
    item_columns,
    struct_fields,
    to_expr,
)
from gradeframe._summary_inputs import (
    by_columns,
    check_frame,
    column_name,
    correct_expr,
    is_pandas,
    on_pandas,
    returns_same_kind,
    same_kind,
)
from gradeframe._threads import one_at_a_time
from gradeframe.fold import fold
from gradeframe.stats import (
    Z_95,
    bounded_mean,
    bounded_sum,
    normal_interval,
    pass_all_k_estimate,
    pass_at_k_estimate,
)

__all__ = [
    "CONSISTENCY_COLUMNS",
    "CONSISTENCY_OUTPUTS",
    "FLAKY_COLUMNS",
    "FLAKY_OUTPUTS",
    "MAJORITY_COLUMNS",
    "MAX_K",
    "PASS_AT_K_COLUMNS",
    "Groups",
    "On",
    "check_ks",
    "consistency",
    "consistency_from_counts",
    "flaky",
    "flaky_from_counts",
    "group_columns",
    "pandas_columns",
    "pass_at_k",
    "pass_at_k_from_counts",
    "prepare",
    "sample_counts",
    "summed",
    "vote_counts",
]

#: ``by``: a column name, a list of them, None (no groups), or ``...`` (the default: ``"model"``
#: when the frame has that column, else no groups).
Groups: TypeAlias = str | Sequence[str] | EllipsisType | None

#: ``on``: the column or columns that name an item; None for the default (``question_id``, else
#: ``task`` and ``sample_id``, else ``sample_id``).
On: TypeAlias = str | Sequence[str] | None

#: The columns of :func:`pass_at_k` after the group columns, in order.
PASS_AT_K_COLUMNS: Final = (
    "k",
    "n_items",
    "pass_at_k",
    "ci_low",
    "ci_high",
    "pass_all_k",
    "short_items",
)

#: The columns of :func:`consistency` after the group columns, in order.
CONSISTENCY_COLUMNS: Final = (
    "n_items",
    "n_samples",
    "mean_accuracy",
    "always_right",
    "always_wrong",
    "flaky",
    "item_variance",
)

#: Added to :func:`consistency` with ``answer``.
MAJORITY_COLUMNS: Final = ("majority", "ties")

#: The columns of :func:`flaky` after the group and item columns (then ``answers`` with
#: ``answer``).
FLAKY_COLUMNS: Final = ("n", "n_correct", "accuracy")

#: The names each function's result uses (a group or item column may not take them).
CONSISTENCY_OUTPUTS: Final = (*CONSISTENCY_COLUMNS, *MAJORITY_COLUMNS)
FLAKY_OUTPUTS: Final = (*FLAKY_COLUMNS, "answers")

#: The largest ``k`` (the result's ``k`` column is Int64; no item has as many samples).
MAX_K: Final = 2**63 - 1

# Column names of the counts (internal, so that they cannot meet a user's column).
_N: Final = "__gf_n"
_C: Final = "__gf_c"
_ANSWER: Final = "__gf_answer"
_VOTES: Final = "__gf_votes"
_VOTES_RIGHT: Final = "__gf_votes_right"
_RIGHT: Final = "__gf_right"
_RAW: Final = "__gf_written"
_TEXT: Final = "__gf_text"  # the text a vote is shown by (the folded text when voting on it)
_SHOWN: Final = "__gf_shown"
#: The key columns of the vote counts, after the group and item columns (partition sums).
VOTE_KEYS: Final = (_ANSWER, _TEXT)
#: How votes are cast: on the folded text, or on the reading of ``equivalent``.
VOTES: Final = ("fold", "equivalent")
Vote: TypeAlias = str | EllipsisType


# --------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------


def group_columns(by: Groups, schema: Schema) -> list[str]:
    """Return the group columns: ``by`` as given, or for ``...`` ``["model"]`` when present."""
    if by is ...:
        return ["model"] if "model" in schema else []
    return by_columns(by, schema)


def _item_columns(on: On, schema: Schema) -> list[str]:
    if on is not None and not isinstance(on, str):
        if not isinstance(on, Sequence) or not on or not all(isinstance(c, str) for c in on):
            msg = (
                f"`on` must be None, a column name or a non-empty list of column names, got {on!r}"
            )
            raise TypeError(msg)
        if len(set(on)) != len(on):
            msg = f"`on` names a column more than once: {list(on)!r}"
            raise ValueError(msg)
        on = list(on)
    return item_columns(on, schema)


def check_ks(k: Any) -> list[int]:
    """Return the values of ``k`` (ints from 1 to :data:`MAX_K`), sorted, distinct."""
    if isinstance(k, Integral):
        values: Any = [k]
    elif isinstance(k, str | bytes) or not isinstance(k, Iterable):
        values = None
    else:
        values = list(k)  # a list, tuple, range, NumPy array or Series
    if not values or not all(isinstance(v, Integral) and not isinstance(v, bool) for v in values):
        msg = f"`k` must be an int or a non-empty list of ints (each at least 1), got {k!r}"
        raise TypeError(msg)
    small = [int(v) for v in values if v < 1]
    if small:
        msg = f"`k` must be at least 1, got {small[0]} (in k={k!r})"
        raise ValueError(msg)
    large = [int(v) for v in values if v > MAX_K]
    if large:
        msg = (
            f"`k` must be at most 2**63 - 1 ({MAX_K}, the largest Int64: no item holds more "
            f"samples), got {large[0]} (in k={k!r})"
        )
        raise ValueError(msg)
    return sorted({int(v) for v in values})


def _answer_text(answer: IntoExpr, schema: Schema) -> pl.Expr:
    """Read the answer text: a text column, or an output record's ``answer``/``text`` field."""
    from gradeframe._record import read_text

    expr = to_expr(answer, "answer")
    if isinstance(answer, str):
        check_column(schema, answer, "answer")
        name, dtype = answer, schema[answer]
    else:
        probe = pl.LazyFrame(schema=dict(schema)).select(expr).collect_schema()
        name, dtype = next(iter(probe.items()))
    if dtype == pl.Null:
        return pl.lit(None, dtype=pl.String)
    if is_text(dtype):
        return as_text(expr, dtype)
    if struct_fields(dtype):
        return read_text(expr, dtype, name)  # raises for a struct without answer/text fields
    raise dtype_error(
        "answer",
        name,
        dtype,
        "text (String), or an output record (struct) with an 'answer' or 'text' field; to vote "
        f"on numbers, cast them: pl.col({name!r}).cast(pl.String)",
    )


def resolve_vote(vote: Vote, columns: Iterable[str]) -> str:
    """Return how votes are cast: ``vote``, or by default the data's (a ``method`` column)."""
    if vote is ...:
        return "equivalent" if "method" in columns else "fold"
    if vote not in VOTES:
        msg = f"`vote` must be 'fold' or 'equivalent', got {vote!r}"
        raise ValueError(msg)
    return vote  # type: ignore[return-value]


def _check_names(groups: list[str], items: list[str], outputs: Sequence[str]) -> list[str]:
    """Return the item columns that are not group columns; refuse names the result uses."""
    # A group column that is also an item column (logs: by task, items are task + sample_id)
    # already splits the items: it is left out of the item columns.
    own = [c for c in items if c not in groups]
    if not own:
        msg = (
            f"`by` holds every item column ({items!r}): each group would be one item. Group by "
            "fewer columns, or name the item with `on=`."
        )
        raise ValueError(msg)
    clash = [c for c in (*groups, *own) if c in outputs]
    if clash:
        msg = (
            f"the group or item column(s) {clash!r} share a name with the result's columns "
            f"{list(outputs)!r}; rename them first."
        )
        raise ValueError(msg)
    return own


# --------------------------------------------------------------------------------------------
# Step 1: counts (additive)
# --------------------------------------------------------------------------------------------


def sample_counts(
    frame: pl.DataFrame | pl.LazyFrame, groups: list[str], items: list[str], correct: str
) -> pl.LazyFrame:
    """Count each item's samples (``__gf_n``) and right ones (``__gf_c``), per group.

    Both columns are additive: the counts of the parts of a frame, stacked and summed per group
    and item, are the counts of the whole. A null ``correct`` is counted as not right.
    """
    right = correct_expr(correct, frame_schema(frame))
    return (
        frame.lazy()
        .group_by(*groups, *items)
        .agg(pl.len().cast(pl.Int64).alias(_N), right.sum().cast(pl.Int64).alias(_C))
    )


def vote_counts(
    frame: pl.DataFrame | pl.LazyFrame,
    groups: list[str],
    items: list[str],
    correct: str,
    answer: IntoExpr,
    vote: str = "fold",
) -> pl.LazyFrame:
    """Count the votes per group, item, vote (``__gf_answer``) and text (``__gf_text``).

    The vote is the folded answer, or with ``vote="equivalent"`` a literal's exact value (as
    :func:`gradeframe.equivalent` reads it) and another answer's folded reading; the text is
    the answer as written (the folded text when voting on it). ``__gf_votes`` is the rows with
    that vote and text, ``__gf_votes_right`` the right ones among them; both are additive. A
    null or blank answer does not vote.

    Reading is the costly step, and samples repeat themselves: each distinct answer text is
    read once, and its vote joined back to the rows.
    """
    schema = frame_schema(frame)
    right = correct_expr(correct, schema)
    keys = [*groups, *items]
    rows = (
        frame.lazy()
        .select(*keys, _answer_text(answer, schema).alias(_RAW), right.alias(_RIGHT))
        .filter(pl.col(_RAW).is_not_null())
    )
    texts = rows.select(pl.col(_RAW).unique())
    if vote == "equivalent":
        from gradeframe.matchers.equivalent import value_keys

        texts = texts.with_columns(
            value_keys(pl.col(_RAW)).alias(_ANSWER), pl.col(_RAW).alias(_TEXT)
        )
    else:
        texts = texts.with_columns(fold(pl.col(_RAW)).alias(_ANSWER))
        texts = texts.with_columns(pl.col(_ANSWER).alias(_TEXT))
    return (
        rows.join(texts, on=_RAW, how="left")
        .filter(pl.col(_ANSWER).str.len_bytes() > 0)  # a blank answer does not vote
        .group_by(*keys, *VOTE_KEYS)
        .agg(
            pl.len().cast(pl.Int64).alias(_VOTES),
            pl.col(_RIGHT).sum().cast(pl.Int64).alias(_VOTES_RIGHT),
        )
    )


def summed(counts: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Sum stacked counts (of several partitions) per key: the counts of the whole."""
    values = [c for c in counts.collect_schema() if c not in keys]
    return counts.group_by(keys).agg(pl.col(values).sum())


# --------------------------------------------------------------------------------------------
# Step 2: statistics from the counts
# --------------------------------------------------------------------------------------------


def pass_at_k_from_counts(counts: pl.LazyFrame, groups: list[str], ks: list[int]) -> pl.LazyFrame:
    """Build the pass@k table from per-item counts (see :func:`pass_at_k` for its columns)."""
    k_frame = pl.LazyFrame({"k": ks}, schema={"k": pl.Int64})
    # The estimates depend on (n, c, k) alone: the items are counted per distinct (n, c) (a
    # handful when every item has the same number of samples), and each estimate is computed
    # once and weighed by its items. Sums in 128-bit fixed point (bounded_sum: exact in any
    # order) and the sd written out (two passes): Polars' own float sums and std depend on
    # threads and chunks. So every result is the same to the last bit from run to run.
    items = pl.col("__gf_items")
    per_count = (
        counts.group_by(*groups, _N, _C)
        .agg(pl.len().cast(pl.Int64).alias("__gf_items"))
        .join(k_frame, how="cross")
        .with_columns(
            pass_at_k_estimate(_N, _C, "k").alias("__gf_p"),
            pass_all_k_estimate(_N, _C, "k").alias("__gf_all"),
        )
    )
    values = pl.col("__gf_p")
    mean = bounded_mean(values, weights=items)
    squares = bounded_sum((values - mean) ** 2, weights=items)
    n_items = items.sum().cast(pl.Int64)
    table = per_count.group_by(*groups, "k").agg(
        n_items.alias("n_items"),
        items.filter(pl.col(_N) < pl.col("k")).sum().cast(pl.Int64).alias("short_items"),
        mean.alias("__gf_mean"),
        (squares / (n_items - 1).cast(pl.Float64)).sqrt().alias("__gf_sd"),
        bounded_mean("__gf_all", weights=items).alias("__gf_all"),
    )
    if groups:
        table = table.sort(*groups, "k", nulls_last=True)
    else:  # one row per k, even for a frame without rows
        table = k_frame.join(table, on="k", how="left").with_columns(
            pl.col("n_items", "short_items").fill_null(0)
        )
    whole = pl.col("short_items") == 0
    n = pl.col("n_items")
    estimate = pl.when(whole).then(pl.col("__gf_mean"))
    se = pl.when(whole & (n >= 2)).then(pl.col("__gf_sd") / n.cast(pl.Float64).sqrt())
    low, high = normal_interval(estimate, se, z=Z_95, clip=(0.0, 1.0))
    return table.select(
        *groups,
        "k",
        "n_items",
        estimate.alias("pass_at_k"),
        low,
        high,
        pl.when(whole).then(pl.col("__gf_all")).alias("pass_all_k"),
        "short_items",
    )


def _by_vote(votes: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Sum the counts of each vote's texts; each vote is shown by its most common text."""
    return votes.group_by(*keys, _ANSWER).agg(
        pl.col(_VOTES).sum(),
        pl.col(_VOTES_RIGHT).sum(),
        pl.col(_TEXT)
        .sort_by([pl.col(_VOTES), pl.col(_TEXT)], descending=[True, False])
        .first()
        .alias(_SHOWN),
    )


def _per_item_votes(votes: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Per item: whether its top two answers tie, and whether its majority answer is right."""
    votes = _by_vote(votes, keys)
    top = pl.col(_VOTES) == pl.col(_VOTES).max()
    answer_right = 2 * pl.col(_VOTES_RIGHT) > pl.col(_VOTES)
    return votes.group_by(keys).agg(
        (top.sum() >= 2).alias("__gf_tie"),
        (top & answer_right).any().alias("__gf_top_right"),
    )


def consistency_from_counts(
    counts: pl.LazyFrame, votes: pl.LazyFrame | None, groups: list[str], items: list[str]
) -> pl.LazyFrame:
    """Build the consistency table from per-item counts (columns: see :func:`consistency`)."""
    n, c = pl.col(_N), pl.col(_C)
    p = c.cast(pl.Float64) / n.cast(pl.Float64)
    aggregations = [
        pl.len().cast(pl.Int64).alias("n_items"),
        n.sum().cast(pl.Int64).alias("n_samples"),
        bounded_mean(p).alias("mean_accuracy"),  # fixed point: the same last bits every run
        (c == n).sum().cast(pl.Int64).alias("always_right"),
        (c == 0).sum().cast(pl.Int64).alias("always_wrong"),
        ((c > 0) & (c < n)).sum().cast(pl.Int64).alias("flaky"),
        bounded_mean(p * (1.0 - p)).alias("item_variance"),
    ]
    if votes is not None:
        keys = [*groups, *items]
        counts = counts.join(
            _per_item_votes(votes, keys),
            on=keys,
            how="left",
            nulls_equal=True,
        ).with_columns(pl.col("__gf_tie", "__gf_top_right").fill_null(value=False))
        tie, top_right = pl.col("__gf_tie"), pl.col("__gf_top_right")
        aggregations += [
            (top_right & ~tie).cast(pl.Float64).mean().alias("majority"),
            tie.sum().cast(pl.Int64).alias("ties"),
        ]
    if not groups:
        return counts.select(*aggregations)  # one row, even for a frame without rows
    return counts.group_by(groups).agg(*aggregations).sort(groups, nulls_last=True)


def flaky_from_counts(
    counts: pl.LazyFrame, votes: pl.LazyFrame | None, groups: list[str], items: list[str]
) -> pl.LazyFrame:
    """List the flaky items from per-item counts (see :func:`flaky` for its columns)."""
    n, c = pl.col(_N), pl.col(_C)
    keys = [*groups, *items]
    out = counts.filter((c > 0) & (c < n)).select(
        *keys,
        n.alias("n"),
        c.alias("n_correct"),
        (c.cast(pl.Float64) / n.cast(pl.Float64)).alias("accuracy"),
        # |accuracy - 0.5| as |2c - n| / n: one correctly rounded division, so items that are
        # equally unstable (1 of 3 and 2 of 3 right) get the same key and sort by item.
        ((2 * c - n).abs().cast(pl.Float64) / n.cast(pl.Float64)).alias("__gf_distance"),
    )
    if votes is not None:
        entry = pl.struct(
            pl.col(_SHOWN).alias("answer"),
            pl.col(_VOTES).alias("n"),
            (2 * pl.col(_VOTES_RIGHT) > pl.col(_VOTES)).alias("correct"),
        )
        answers = (
            _by_vote(votes, keys)
            .group_by(keys)
            .agg(
                entry.sort_by([pl.col(_VOTES), pl.col(_SHOWN)], descending=[True, False]).alias(
                    "answers"
                )
            )
        )
        dtype = pl.List(pl.Struct({"answer": pl.String, "n": pl.Int64, "correct": pl.Boolean}))
        out = out.join(answers, on=keys, how="left", nulls_equal=True).with_columns(
            pl.col("answers").fill_null(pl.lit([], dtype=dtype))
        )
    return out.sort("__gf_distance", *items, *groups, nulls_last=True).drop("__gf_distance")


# --------------------------------------------------------------------------------------------
# The functions
# --------------------------------------------------------------------------------------------


def pandas_columns(
    frame: Any, by: Groups, on: On, correct: str, answer: IntoExpr | None
) -> tuple[dict[str, Any], list[str], list[str]]:
    """Resolve ``by`` and ``on`` on a pandas frame; return the columns a call reads, with roles.

    A missing column is named with its argument. Used for pandas frames and for Dask (whose
    partitions are pandas frames).
    """
    from gradeframe import _frames

    present: dict[str, pl.DataType] = {str(c): pl.Null() for c in frame.columns}
    groups = group_columns(by, present)
    items = _item_columns(on, present)
    arguments: list[tuple[str, Any, Any]] = [("by", g, None) for g in groups]
    arguments += [("on", i, None) for i in items]
    arguments.append(("correct", column_name(correct, "correct"), None))
    if answer is not None:
        arguments.append(("answer", answer, "text"))
    return _frames.needed_columns(frame, arguments), groups, items


def prepare(
    frame: Any,
    function: str,
    by: Groups,
    on: On,
    correct: str,
    answer: IntoExpr | None,
    outputs: Sequence[str],
    vote: Vote = ...,
) -> tuple[list[str], list[str], pl.LazyFrame, pl.LazyFrame | None]:
    """Check every argument (before any work), then build the counts, lazily."""
    check_frame(frame, function)
    schema = frame_schema(frame)
    vote = resolve_vote(vote, schema)
    groups = group_columns(by, schema)
    items = _check_names(groups, _item_columns(on, schema), outputs)
    correct = column_name(correct, "correct")
    counts = sample_counts(frame, groups, items, correct)
    votes = None if answer is None else vote_counts(frame, groups, items, correct, answer, vote)
    return groups, items, counts, votes


@one_at_a_time
@returns_same_kind
def pass_at_k(
    frame: Any,
    k: int | Sequence[int] = 1,
    *,
    by: Groups = ...,
    on: On = None,
    correct: str = "correct",
) -> Any:
    r"""Estimate pass@k, the chance that one of k samples is right, per group and k.

    For an item with n samples of which c are right, the unbiased estimator of Chen et al.
    (2021) is :math:`1 - \binom{n-c}{k} / \binom{n}{k}` (1 when :math:`n - c < k`): the chance
    that k samples drawn without replacement from the n hold a right one. pass@k is its mean over
    the group's items. It is computed without binomial coefficients
    (:func:`gradeframe.stats.pass_at_k_estimate`), exact to about 1e-15 for any n.

    One row per group and k, sorted by the group columns (nulls last) and then k:

    - the group columns; ``k`` (Int64);
    - ``n_items`` (Int64): the items of the group;
    - ``pass_at_k`` (Float64): the mean over items of the estimator;
    - ``ci_low``, ``ci_high``: ``pass_at_k`` :math:`\pm` 1.959964 times the standard error of
      the per-item values (sd with ddof = 1, divided by :math:`\sqrt{n_{items}}`), clipped to
      [0, 1]; null with fewer than two items;
    - ``pass_all_k`` (Float64): "pass^k", the mean over items of
      :math:`\binom{c}{k}/\binom{n}{k}`, the chance that k samples are all right;
    - ``short_items`` (Int64): items with fewer than k samples. When it is not 0, the
      statistics of that row are null (an estimate over the other items would be biased toward
      the items that happen to have more samples).

    A null ``correct`` is a sample that is not right.

    Parameters
    ----------
    frame
        A graded Polars DataFrame or LazyFrame, or a pandas DataFrame: one row per sample.
    k
        An int or a list of ints, each at least 1.
    by
        The group columns: a column name, a list of them, or None (one group). The default
        ``...`` groups by ``"model"`` when the frame has that column, else not at all.
    on
        The column or columns that name an item. None: ``question_id`` when the frame has it,
        else ``task`` and ``sample_id`` together (frames read from logs), else ``sample_id``.
        An item column that is also a group column (``by=["model", "task"]``) already splits
        the items; at least one item column must not be a group column.
    correct
        The Boolean column that says a sample is right.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "model": ["a"] * 8 + ["b"] * 8,
    ...         "question_id": ["q1", "q1", "q1", "q1", "q2", "q2", "q2", "q2"] * 2,
    ...         "correct": [True, False, False, False, False, False, False, False]
    ...         + [True, True, True, False, True, False, False, None],
    ...     }
    ... )
    >>> gf.pass_at_k(df, k=[1, 2]).with_columns(pl.selectors.float().round(4))
    shape: (4, 8)
    ┌───────┬─────┬─────────┬───────────┬────────┬─────────┬────────────┬─────────────┐
    │ model ┆ k   ┆ n_items ┆ pass_at_k ┆ ci_low ┆ ci_high ┆ pass_all_k ┆ short_items │
    │ ---   ┆ --- ┆ ---     ┆ ---       ┆ ---    ┆ ---     ┆ ---        ┆ ---         │
    │ str   ┆ i64 ┆ i64     ┆ f64       ┆ f64    ┆ f64     ┆ f64        ┆ i64         │
    ╞═══════╪═════╪═════════╪═══════════╪════════╪═════════╪════════════╪═════════════╡
    │ a     ┆ 1   ┆ 2       ┆ 0.125     ┆ 0.0    ┆ 0.37    ┆ 0.125      ┆ 0           │
    │ a     ┆ 2   ┆ 2       ┆ 0.25      ┆ 0.0    ┆ 0.74    ┆ 0.0        ┆ 0           │
    │ b     ┆ 1   ┆ 2       ┆ 0.5       ┆ 0.01   ┆ 0.99    ┆ 0.5        ┆ 0           │
    │ b     ┆ 2   ┆ 2       ┆ 0.75      ┆ 0.26   ┆ 1.0     ┆ 0.25       ┆ 0           │
    └───────┴─────┴─────────┴───────────┴────────┴─────────┴────────────┴─────────────┘
    """
    ks = check_ks(k)
    if is_pandas(frame):  # converted once each way (the rest below is Polars)
        columns, groups, items = pandas_columns(frame, by, on, correct, None)
        return on_pandas(
            frame,
            columns,
            lambda polars: pass_at_k(polars, ks, by=groups, on=items, correct=correct),
        )
    groups, _, counts, _ = prepare(frame, "pass_at_k", by, on, correct, None, PASS_AT_K_COLUMNS)
    return same_kind(pass_at_k_from_counts(counts, groups, ks), frame)


@one_at_a_time
@returns_same_kind
def consistency(
    frame: Any,
    *,
    by: Groups = ...,
    on: On = None,
    correct: str = "correct",
    answer: IntoExpr | None = None,
    vote: Vote = ...,
) -> Any:
    r"""Summarise how stable each group's verdicts are across an item's samples.

    One row per group (one row without groups), sorted by the group columns (nulls last):

    - the group columns; ``n_items`` (Int64): items; ``n_samples`` (Int64): rows;
    - ``mean_accuracy`` (Float64): the mean over items of the item's accuracy :math:`p = c/n`
      (each item weighs the same, whatever its number of samples);
    - ``always_right``, ``always_wrong`` (Int64): items whose samples are all right, all wrong;
    - ``flaky`` (Int64): items with both right and wrong samples (:func:`flaky` lists them);
    - ``item_variance`` (Float64): the mean over items of :math:`p(1 - p)`, the variance of one
      sample's verdict around its item's accuracy (0 when every item is stable; at most 0.25);
    - with ``answer``: ``majority`` (Float64), the share of items whose majority answer is
      right, and ``ties`` (Int64), the items whose top two answers have the same count.

    Majority votes are cast on the folded answer (:func:`gradeframe.fold`), so "1,000" and
    "1000" are one vote; with ``vote="equivalent"``, on the value as
    :func:`gradeframe.equivalent` reads it: a number by its exact value ("\\frac12", "0.5" and
    "1/2" are one vote), another answer by its folded reading. Every sample of an item votes; a
    null or blank answer does not. An item whose top two answers tie has no majority: it counts
    as not right (and in ``ties``, a count); so does an item where nothing voted (not in
    ``ties``). The majority answer is right when more than half of its rows are correct. A
    null ``correct`` is a sample that is not right.

    Parameters
    ----------
    frame
        A graded Polars DataFrame or LazyFrame, or a pandas DataFrame: one row per sample.
    by, on, correct
        As for :func:`pass_at_k`.
    answer
        The answer each sample gave, to vote on: a String column (say the extracted answer:
        ``extract_boxed`` then vote), or an output record (struct) read as
        :func:`gradeframe.answer_contains` reads it (its ``answer`` field, else ``text``); a
        column name or an expression.
    vote
        ``"fold"`` (one vote per folded answer) or ``"equivalent"`` (one vote per value).
        Default: ``"equivalent"`` when the frame has a ``method`` column (it was graded by
        :func:`gradeframe.equivalent`), else ``"fold"``.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "question_id": ["q1"] * 3 + ["q2"] * 3 + ["q3"] * 2,
    ...         "answer": ["1,000", "1000", "999", "7", "7", "7", "no", "yes"],
    ...         "correct": [True, True, False, False, False, False, False, True],
    ...     }
    ... )
    >>> out = gf.consistency(df, answer="answer")
    >>> shown = ["n_items", "mean_accuracy", "always_right", "flaky", "majority", "ties"]
    >>> out.select(shown).with_columns(pl.selectors.float().round(4))
    shape: (1, 6)
    ┌─────────┬───────────────┬──────────────┬───────┬──────────┬──────┐
    │ n_items ┆ mean_accuracy ┆ always_right ┆ flaky ┆ majority ┆ ties │
    │ ---     ┆ ---           ┆ ---          ┆ ---   ┆ ---      ┆ ---  │
    │ i64     ┆ f64           ┆ i64          ┆ i64   ┆ f64      ┆ i64  │
    ╞═════════╪═══════════════╪══════════════╪═══════╪══════════╪══════╡
    │ 3       ┆ 0.3889        ┆ 0            ┆ 2     ┆ 0.3333   ┆ 1    │
    └─────────┴───────────────┴──────────────┴───────┴──────────┴──────┘

    "1,000" and "1000" are one answer (two right votes of three: q1's majority is right); all of
    q2's samples say "7", which is wrong; q3's two answers tie.
    """
    outputs = CONSISTENCY_OUTPUTS
    if is_pandas(frame):  # converted once each way (the rest below is Polars)
        vote = resolve_vote(vote, [str(c) for c in frame.columns])
        columns, groups, items = pandas_columns(frame, by, on, correct, answer)
        options = {"by": groups, "on": items, "correct": correct, "answer": answer, "vote": vote}
        return on_pandas(frame, columns, lambda polars: consistency(polars, **options))
    groups, items, counts, votes = prepare(
        frame, "consistency", by, on, correct, answer, outputs, vote
    )
    return same_kind(consistency_from_counts(counts, votes, groups, items), frame)


@one_at_a_time
@returns_same_kind
def flaky(
    frame: Any,
    *,
    by: Groups = ...,
    on: On = None,
    correct: str = "correct",
    answer: IntoExpr | None = None,
    vote: Vote = ...,
) -> Any:
    r"""List the flaky items: those with both right and wrong samples, most unstable first.

    One row per flaky item and group, with

    - the group columns, then the item columns (those that are not also group columns);
    - ``n`` (Int64): the item's samples; ``n_correct`` (Int64): the right ones;
      ``accuracy`` (Float64): ``n_correct / n``;
    - with ``answer``: ``answers``, a list of structs ``answer`` (String: a distinct folded
      answer), ``n`` (Int64: its votes) and ``correct`` (Boolean: more than half of its rows
      are correct), most votes first (equal counts in the order of the answer text). Null and
      blank answers are not listed (so the ``n`` of the answers may sum to less than the
      item's ``n``).

    Sorted by :math:`|accuracy - 0.5|` (the most unstable first), then by the item columns,
    then by the group columns (nulls last). This is the list to read for a bad acceptable
    answer (a "wrong" answer most samples agree on) or an ambiguous question (two answers with
    many votes each).

    Parameters
    ----------
    frame
        A graded Polars DataFrame or LazyFrame, or a pandas DataFrame: one row per sample.
    by, on, correct, answer, vote
        As for :func:`consistency`. With ``vote="equivalent"`` each vote is listed once, shown
        by its most common text (``"0.5"`` for three "0.5" and one "1/2").

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "question_id": ["q1"] * 4 + ["q2"] * 3 + ["q3"] * 2,
    ...         "answer": ["1,000", "1000", "999", None, "Paris", "paris", "Lyon", "7", "7"],
    ...         "correct": [True, True, False, False, True, True, False, True, True],
    ...     }
    ... )
    >>> gf.flaky(df, answer="answer").with_columns(pl.col("accuracy").round(4))
    shape: (2, 5)
    ┌─────────────┬─────┬───────────┬──────────┬─────────────────────────────────┐
    │ question_id ┆ n   ┆ n_correct ┆ accuracy ┆ answers                         │
    │ ---         ┆ --- ┆ ---       ┆ ---      ┆ ---                             │
    │ str         ┆ i64 ┆ i64       ┆ f64      ┆ list[struct[3]]                 │
    ╞═════════════╪═════╪═══════════╪══════════╪═════════════════════════════════╡
    │ q1          ┆ 4   ┆ 2         ┆ 0.5      ┆ [{"1000",2,true}, {"999",1,fal… │
    │ q2          ┆ 3   ┆ 2         ┆ 0.6667   ┆ [{"paris",2,true}, {"lyon",1,f… │
    └─────────────┴─────┴───────────┴──────────┴─────────────────────────────────┘
    """
    outputs = FLAKY_OUTPUTS
    if is_pandas(frame):  # converted once each way (the rest below is Polars)
        vote = resolve_vote(vote, [str(c) for c in frame.columns])
        columns, groups, items = pandas_columns(frame, by, on, correct, answer)
        options = {"by": groups, "on": items, "correct": correct, "answer": answer, "vote": vote}
        return on_pandas(frame, columns, lambda polars: flaky(polars, **options))
    groups, items, counts, votes = prepare(frame, "flaky", by, on, correct, answer, outputs, vote)
    return same_kind(flaky_from_counts(counts, votes, groups, items), frame)
