"""The page's cost section: :func:`gradeframe.report` with ``cost=``, as display values.

One row per group (its figures in the group's row) and a chart of accuracy against cost. Every
figure is a value of the report; this module only formats them and places the chart's points.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

from gradeframe.html._display import label
from gradeframe.html._limits import MAX_GROUPS, MAX_NAMED, short
from gradeframe.report import report

#: The chart's size and inner margins, in pixels.
WIDTH: Final = 560
HEIGHT: Final = 300
LEFT, RIGHT, TOP, BOTTOM = 56, 150, 14, 40


def dollars(value: Any) -> str:
    """Show dollars to six places (a question costs a fraction of a cent)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"${value:,.6f}"


def _number(value: Any, places: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value:,.{places}f}"


def _tokens(value: Any) -> str:
    return "—" if value is None else str(int(value))


def _label(groups: Sequence[str], row: dict[str, Any]) -> str:
    return label([row[g] for g in groups]) if groups else "all rows"


def _nice_top(value: float) -> float:
    """Return the axis' end: the smallest 1, 2 or 5 times a power of ten at or above ``value``."""
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    return next(step * power for step in (1, 2, 5, 10) if step * power >= value * (1 - 1e-12))


def cost_section(
    df: Any, groups: list[str], prefix: str, cluster: str | None, cost: Any
) -> dict[str, Any] | None:
    """Return the cost table's rows and the chart's points (None without ``cost``)."""
    if cost is None:
        return None
    table = report(df, groups or None, prefix=prefix, cluster=cluster, cost=cost)
    n_groups = table.height
    table = table.head(MAX_GROUPS)  # the first groups in sorted order; the page says the cut
    rows = []
    for row in table.iter_rows(named=True):
        rows.append(
            {
                "label": _label(groups, row),
                "accuracy": _number(row["accuracy"], 3),
                "input_tokens": _tokens(row["input_tokens"]),
                "output_tokens": _tokens(row["output_tokens"]),
                "cost": dollars(row["cost"]),
                "cost_per_correct": dollars(row["cost_per_correct"]),
                "correct_per_1k_tokens": _number(row["correct_per_1k_tokens"], 3),
                "seconds_p50": _number(row.get("seconds_p50"), 3),
                "seconds_p95": _number(row.get("seconds_p95"), 3),
                "pareto": {True: "yes", False: "no", None: "—"}[row["pareto"]],
                "cost_unknown": str(row["cost_unknown"]),
                "grader_cost": dollars(row.get("grader_cost")),
                "raw": row,
            }
        )
    unknown = [r["label"] for r in rows if r["raw"]["cost"] is None]
    return {
        "groups": [short(g) for g in groups],
        "n_groups": n_groups,
        "max_groups": MAX_GROUPS,
        "groups_cut": n_groups > MAX_GROUPS,
        "rows": rows,
        "seconds": "seconds_p50" in table.columns,
        "grader": "grader_cost" in table.columns,
        "chart": _chart(rows),
        "unknown": ", ".join(unknown[:MAX_NAMED])
        + (f" and {len(unknown) - MAX_NAMED} more" if len(unknown) > MAX_NAMED else ""),
    }


def _chart(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Place each group with a known cost: accuracy up, cost across, the frontier joined."""
    known = [r for r in rows if r["raw"]["cost"] is not None and r["raw"]["accuracy"] is not None]
    if not known:
        return None
    top = _nice_top(max(r["raw"]["cost"] for r in known))
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(value: float) -> float:
        return LEFT + inner_w * value / top

    def y(value: float) -> float:
        return TOP + inner_h * (1 - value)

    points = [
        {
            "x": x(r["raw"]["cost"]),
            "y": y(r["raw"]["accuracy"]),
            "label": r["label"],
            "pareto": bool(r["raw"]["pareto"]),
            "title": f"{r['label']}: accuracy {r['accuracy']}, cost {r['cost']}",
        }
        for r in known
    ]
    frontier = sorted((p for p in points if p["pareto"]), key=lambda p: (p["x"], -p["y"]))
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "right": WIDTH - RIGHT,
        "top": TOP,
        "bottom": HEIGHT - BOTTOM,
        "x_ticks": [(x(top * t), dollars(top * t).rstrip("0").rstrip(".")) for t in (0, 0.5, 1)],
        "y_ticks": [(y(t), f"{t:g}") for t in (0, 0.25, 0.5, 0.75, 1)],
        "points": points,
        "frontier": " ".join(f"{p['x']:.1f},{p['y']:.1f}" for p in frontier),
    }
