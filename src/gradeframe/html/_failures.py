"""The page's failure browser: the rows of :func:`gradeframe.failures`, as display cells.

Each row carries its kind and group as a short token (``k0``, ``g3``) that its filter's
options name: names of any length, a missing group and a group named "—" or "(null)" each
have a value of their own, and a row's attributes stay short.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, Final

import polars as pl

from gradeframe import kinds
from gradeframe._limits import max_metadata_length
from gradeframe.failures import cut_text, failures
from gradeframe.html._display import MISSING, as_text, cell, count, label
from gradeframe.html._limits import MAX_OPTIONS, short

#: A matcher's own columns the failure browser shows beside the answer: what ``choice``
#: chose, what ``includes`` or a tool-call matcher missed (and the calls it did not expect),
#: how ``equivalent`` decided, and ``within``'s and ``f1``'s figures.
DETAIL_COLUMNS: Final = ("chosen", "missing", "extra", "method", "difference", "tolerance", "f1")


def failures_section(
    df: pl.DataFrame,
    *,
    groups: list[str],
    items: list[str],
    kind_column: str | None,
    total: int,
    max_failures: int,
    actual: str | bool,
    expected: str | bool,
    prefix: str,
) -> dict[str, Any] | None:
    """Return the failure browser's columns, rows and filters (None when every row is right)."""
    if total == 0:
        return None
    by_answer_contains = prefix + "outcome" in df.columns
    columns, needed = _columns(df, groups, items, kind_column, actual, expected, prefix)
    # failures() of the LazyFrame: only the rows shown are cut and turned into text.
    shown = failures(df.lazy(), actual=actual, expected=expected, prefix=prefix).head(max_failures)
    if by_answer_contains:  # the outcome is the folded answer: shown cut as failures() cuts it
        shown = shown.with_columns(cut_text(pl.col(prefix + "outcome"), max_metadata_length()))
    shown_rows = shown.select(needed).collect()
    rows, kind_keys, group_keys = _rows(shown_rows, columns, groups, items, kind_column, prefix)
    kind_options = _options(kind_keys, "k", _kind_order) if kind_column else []
    group_options = _options(group_keys, "g", _group_order) if groups else []
    for row in rows:
        row["kind"] = kind_options[1].get(row["kind"], "") if kind_column else ""
        row["group"] = group_options[1].get(row["group"], "") if groups else ""
    kind_label = dict(columns).get("kind", "")
    return {
        "columns": [name for _, name in columns],
        "rows": rows,
        "total": count(total),
        "shown": count(len(rows)),
        "cut": len(rows) < total,
        "size_cut": False,
        "max_failures": max_failures,
        "kinds": kind_options[0] if kind_column else [],
        "n_kinds": len(kind_keys),
        "kind_label": kind_label,
        "groups": group_options[0] if groups else [],
        "n_groups": len(group_keys),
        "max_options": MAX_OPTIONS,
        "group_label": short(" · ".join(groups)),
        "has_near_miss": prefix + "near_miss" in df.columns,
        "matcher_without_columns": not by_answer_contains and actual is False,
    }


def _columns(
    df: pl.DataFrame,
    groups: list[str],
    items: list[str],
    kind_column: str | None,
    actual: str | bool,
    expected: str | bool,
    prefix: str,
) -> tuple[list[tuple[str, str]], list[str]]:
    """Return the browser's columns (key, heading) and the columns of failures() they read."""
    by_answer_contains = prefix + "outcome" in df.columns
    details = [
        prefix + c for c in DETAIL_COLUMNS if prefix + c in df.columns and not by_answer_contains
    ]
    columns: list[tuple[str, str]] = []
    if groups:
        columns.append(("group", short(" · ".join(groups))))
    if items:
        columns.append(("item", short(" · ".join(items))))
    if kind_column:
        columns.append(("kind", "kind" if kind_column.endswith("failure_kind") else "expectation"))
    if actual is not False:
        columns.append(("answer", f"answer ({short(str(actual))})"))
    if expected is not False:
        columns.append(("expected", f"acceptable answers ({short(str(expected))})"))
    if by_answer_contains:
        columns.append(("outcome", "outcome (folded)"))
    columns += [("detail:" + c, short(c)) for c in details]
    near_miss = prefix + "near_miss"
    needed = [
        *groups,
        *items,
        *([kind_column] if kind_column else []),
        *([prefix + "actual"] if actual is not False else []),
        *([prefix + "expected"] if expected is not False else []),
        *([prefix + "outcome"] if by_answer_contains else []),
        *([near_miss] if near_miss in df.columns else []),
        *details,
    ]
    return columns, list(dict.fromkeys(needed))


def _rows(
    shown: pl.DataFrame,
    columns: list[tuple[str, str]],
    groups: list[str],
    items: list[str],
    kind_column: str | None,
    prefix: str,
) -> tuple[list[dict[str, Any]], dict[Hashable, str], dict[Hashable, str]]:
    """Return the rows' cells, and the kinds and groups met (each key with its label).

    Each row holds its kind's and its group's key until the caller gives the tokens.
    """
    near_miss = prefix + "near_miss"
    kind_keys: dict[Hashable, str] = {}
    group_keys: dict[Hashable, str] = {}
    rows = []
    for row in shown.iter_rows(named=True):
        group = tuple(row[g] for g in groups)
        if group not in group_keys:
            group_keys[group] = label(group)
        kind = row[kind_column] if kind_column else None
        if kind_column and kind not in kind_keys:
            kind_keys[kind] = MISSING if kind is None else short(as_text(kind))
        cells = []
        for key, _ in columns:
            if key == "group":
                cells.append(cell(group_keys[group], key=True))
            elif key == "item":
                cells.append(cell(label([row[c] for c in items]), key=True))
            elif key == "kind":
                cells.append(cell(None if kind is None else kind_keys[kind], key=True))
            elif key == "answer":
                cells.append(cell(row[prefix + "actual"], mark=row.get(near_miss)))
            elif key in ("expected", "outcome"):
                cells.append(cell(row[prefix + key]))
            else:
                value = row[key.removeprefix("detail:")]
                cells.append(cell(value, number=isinstance(value, int | float)))
        rows.append({"group": group, "kind": kind, "cells": cells})
    return rows, kind_keys, group_keys


def _kind_order(key: Any) -> tuple[Any, ...]:
    """Order the kinds: as in :data:`gradeframe.KINDS`, then the others, a missing one last."""
    if key is None:
        return (2, "")
    if key in kinds.KINDS:
        return (0, kinds.KINDS.index(key))
    return (1, as_text(key))


def _group_order(key: Sequence[Any]) -> tuple[Any, ...]:
    """Order the groups as the report sorts them: by each value, missing values last."""
    return tuple((v is None, 0 if v is None else v) for v in key)


def _options(
    met: dict[Hashable, str], prefix: str, order: Any
) -> tuple[list[tuple[str, str]], dict[Hashable, str]]:
    """Return a filter's options (token, label), at most MAX_OPTIONS, and each key's token."""
    ordered = sorted(met, key=order)
    tokens = {key: f"{prefix}{i}" for i, key in enumerate(ordered)}
    options = [(tokens[key], met[key]) for key in ordered[:MAX_OPTIONS]]
    return options, tokens
