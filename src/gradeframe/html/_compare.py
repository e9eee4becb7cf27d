"""The page's comparisons: :func:`gradeframe.compare` and each pair's discordant items.

Only groups that hold the same items are compared: the compared column is the first ``by``
column that does not name items, and the other ``by`` columns split the comparisons (by model
and task: the models within each task; by task alone there is nothing to compare, since two
tasks never share an item). At most :data:`~gradeframe.html._limits.MAX_COMPARED_GROUPS`
groups within a split (the first in sorted order) and
:data:`~gradeframe.html._limits.MAX_PAIRS` pairs are compared, and the page says what was cut.
"""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from gradeframe.compare import COMPARE_COLUMNS, compare, discordant
from gradeframe.html._display import (
    as_text,
    cell,
    count,
    label,
    p_value,
    proportion,
    signed,
    signed_unit,
)
from gradeframe.html._limits import MAX_COMPARED_GROUPS, MAX_PAIRS, short

#: The columns :func:`gradeframe.compare.discordant` adds besides compare's.
DISCORDANT_COLUMNS = ("accuracy_a", "accuracy_b", "only", "answers_a", "answers_b")


def compare_section(
    df: pl.DataFrame,
    groups: list[str],
    items: list[str] | None,
    correct: str,
    limit: int,
    answer: str | None,
) -> dict[str, Any] | None:
    """Return the comparisons' rows and notes (None when no two groups share items)."""
    compared = [g for g in groups if g not in (items or [])]
    paired = [c for c in items or [] if c not in groups]
    if not compared or not paired:
        return None
    group = compared[0]
    splits = [g for g in groups if g != group]
    if set(splits) & {*COMPARE_COLUMNS, *DISCORDANT_COLUMNS}:
        return None  # a split named like compare's own columns ("a", "b"): it cannot split them
    chosen, scope = _chosen_groups(df, group, splits)
    kept = df.join(chosen, on=[*splits, group], how="semi", nulls_equal=True)
    table = compare(kept, [group, *splits], paired, correct=correct).filter(pl.col("n_items") > 0)
    if table.is_empty():
        return None
    note = _scope_note(scope, table.height, short(group), [short(s) for s in splits])
    table = table.head(MAX_PAIRS)
    # The pairs share the page's row budget (at least 100 items listed each): with 8 models,
    # 28 pairs each listing thousands of items would outweigh everything else on the page.
    limit = max(100, limit // table.height)
    listed = _discordant(kept, table, group, splits, paired, correct, answer, limit)
    scale = _scale(table)
    rows = []
    for row in table.iter_rows(named=True):
        key = (*[row[s] for s in splits], row["a"], row["b"])
        rows.append(_pair_row(row, splits, paired, scale, listed.get(key), answer))
    return {
        "by": short(group),
        "splits": [short(s) for s in splits],
        "on": [short(c) for c in paired],
        "rows": rows,
        "has_verdict": "verdict" in table.columns,
        "has_adjusted": "p_adjusted" in table.columns,
        "scale": scale,
        "limit": limit,
        "answer": short(answer) if answer else None,
        "note": note,
    }


def _chosen_groups(
    df: pl.DataFrame, group: str, splits: list[str]
) -> tuple[pl.DataFrame, dict[str, Any]]:
    """Return the groups compared (the first MAX_COMPARED_GROUPS of each split), and counts.

    The counts are what the page's note gives: the groups, the pairs they make, the pairs kept.
    """
    values = (
        df.lazy()
        .filter(pl.col(group).is_not_null())
        .select(*splits, group)
        .unique()
        .sort(*splits, group, nulls_last=True)
        .with_columns(
            (pl.int_range(pl.len()).over(splits) if splits else pl.int_range(pl.len())).alias(
                "__gf_rank"
            ),
            (pl.len().over(splits) if splits else pl.len()).alias("__gf_n"),
        )
        .collect()
    )
    n = pl.col("__gf_n").cast(pl.Int64)
    kept = n.clip(upper_bound=MAX_COMPARED_GROUPS)
    first = pl.col("__gf_rank") == 0  # one row per split counts its pairs
    counts = values.select(
        pl.len().alias("groups"),
        pl.when(first).then(n * (n - 1) // 2).otherwise(0).sum().alias("pairs"),
        pl.when(first).then(kept * (kept - 1) // 2).otherwise(0).sum().alias("kept_pairs"),
        pl.col("__gf_n").max().alias("most"),
    ).row(0, named=True)
    chosen = values.filter(pl.col("__gf_rank") < MAX_COMPARED_GROUPS).select(*splits, group)
    scope = {
        **{name: int(value or 0) for name, value in counts.items()},
        "groups_cut": (counts["most"] or 0) > MAX_COMPARED_GROUPS,
    }
    return chosen, scope


def _scope_note(scope: dict[str, Any], shared: int, group: str, splits: list[str]) -> str | None:
    """Say which pairs the table shows, and why the others are not there (None: all are)."""
    within = f" within each {' · '.join(splits)}" if splits else ""
    shown = min(shared, MAX_PAIRS)
    if shown == scope["pairs"]:
        return None
    why = []
    if scope["groups_cut"]:
        why.append(
            f"only the first {MAX_COMPARED_GROUPS} values of {group}{within} (in sorted order) "
            f"are compared, {scope['kept_pairs']} pairs"
        )
    if shared < scope["kept_pairs"]:
        why.append(f"{scope['kept_pairs'] - shared} pairs with no item in common are left out")
    if shown < shared:
        why.append(f"the table shows the first {MAX_PAIRS} of the {shared} pairs that share items")
    return f"Compared {shown} of the {scope['pairs']} pairs of {group} values{within}: " + (
        "; ".join(why) + "."
    )


def _discordant(
    kept: pl.DataFrame,
    table: pl.DataFrame,
    group: str,
    splits: list[str],
    paired: list[str],
    correct: str,
    answer: str | None,
    limit: int,
) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
    """Return the first ``limit`` discordant items of each pair shown, by (splits, a, b)."""
    keys = [*splits, "a", "b"]
    items = (
        discordant(kept.lazy(), [group, *splits], paired, correct=correct, answer=answer)
        .join(table.lazy().select(keys), on=keys, how="semi", nulls_equal=True)
        .filter(pl.int_range(pl.len()).over(keys) < limit)
        .sort(*keys, "only", *paired, nulls_last=True)  # discordant's order, whatever the join's
        .collect()
    )
    listed: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for d in items.iter_rows(named=True):
        listed.setdefault(tuple(d[k] for k in keys), []).append(d)
    return listed


def _scale(table: pl.DataFrame) -> float:
    """Return the chart's half-width: the largest difference or bound, up to 1 in tenths."""
    reach = max(
        (
            abs(v)
            for v in table.select("ci_low", "ci_high", "difference").to_numpy().ravel()
            if v is not None and not math.isnan(v)
        ),
        default=0.0,
    )
    return min(1.0, max(0.1, math.ceil(reach * 10 + 1e-9) / 10))


def _pair_row(
    row: dict[str, Any],
    splits: list[str],
    paired: list[str],
    scale: float,
    listed: list[dict[str, Any]] | None,
    answer: str | None,
) -> dict[str, Any]:
    a, b = short(as_text(row["a"])), short(as_text(row["b"]))
    return {
        "split": label([row[s] for s in splits]) if splits else "",
        "a": a,
        "b": b,
        "n_items": count(row["n_items"]),
        "accuracy_a": proportion(row["accuracy_a"]),
        "accuracy_b": proportion(row["accuracy_b"]),
        "difference": signed(row["difference"]),
        "ci_low": signed(row["ci_low"]),
        "ci_high": signed(row["ci_high"]),
        "x": signed_unit(row["difference"], scale),
        "x_low": signed_unit(row["ci_low"], scale),
        "x_high": signed_unit(row["ci_high"], scale),
        "verdict": row.get("verdict"),
        "both_right": count(row["both_right"]),
        "only_a": count(row["only_a"]),
        "only_b": count(row["only_b"]),
        "both_wrong": count(row["both_wrong"]),
        "p_value": p_value(row["p_value"]),
        "p_adjusted": p_value(row.get("p_adjusted")),
        "discordant": [
            {
                "item": label([d[c] for c in paired]),
                "right": a if d["only"] == "a" else b,
                "only": d["only"],
                "accuracy_a": proportion(d["accuracy_a"]),
                "accuracy_b": proportion(d["accuracy_b"]),
                "answers_a": cell(d.get("answers_a")) if answer else None,
                "answers_b": cell(d.get("answers_b")) if answer else None,
            }
            for d in listed or []
        ],
        "n_discordant": count(row["only_a"] + row["only_b"]),
    }
