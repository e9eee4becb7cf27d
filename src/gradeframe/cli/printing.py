"""What ``gradeframe score`` prints: the report, samples, tool agreement and failures."""

from __future__ import annotations

import argparse
import io
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Final, TextIO

import polars as pl

from gradeframe import logs
from gradeframe.cli._common import _group_by
from gradeframe.failures import failures
from gradeframe.samples import consistency, pass_at_k


def format_report(table: pl.DataFrame) -> str:
    """Return the report as a plain text (Markdown) table with every row and column shown."""
    with pl.Config(
        tbl_rows=-1,
        tbl_cols=-1,
        tbl_width_chars=10_000,
        fmt_str_lengths=80,
        tbl_hide_dataframe_shape=True,
        tbl_hide_column_data_types=True,
        tbl_formatting="ASCII_MARKDOWN",
        tbl_cell_numeric_alignment="RIGHT",
        float_precision=3,
    ):
        dollars = [c for c in _DOLLARS if c in table.columns]
        return str(table.with_columns(pl.col(dollars).round(6).cast(pl.String)))


def print_report(table: pl.DataFrame, out: TextIO) -> None:
    """Print the report as a table: with rich when it is installed, else as plain text."""
    try:
        from rich import box
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        print(format_report(table), file=out)
        return
    shown = Table(box=box.MARKDOWN, show_edge=True, pad_edge=True)
    for name, dtype in table.schema.items():
        numeric = dtype.is_numeric()
        shown.add_column(name, justify="right" if numeric else "left", no_wrap=True)
    for row in table.iter_rows():
        shown.add_row(
            *(_shown(value, name) for value, name in zip(row, table.columns, strict=True))
        )
    # Plain Markdown, the same in a terminal, a pipe and a notebook: it can be pasted anywhere.
    buffer = io.StringIO()
    console = Console(file=buffer, width=100_000, highlight=False, color_system=None)
    console.print(shown)
    lines = [line.rstrip() for line in buffer.getvalue().splitlines()]
    print("\n".join(line for line in lines if line.strip()), file=out)


#: Dollars: a question's cost is a fraction of a cent, so more places than a proportion.
_DOLLARS = ("cost", "cost_per_correct", "grader_cost")


def _shown(value: object, name: str = "") -> str:
    if value is None:
        return "null"
    if isinstance(value, float) and name in _DOLLARS:
        return f"{value:.6f}"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, list | dict):  # refs: a JSON list, not a Python repr
        return json.dumps(value, ensure_ascii=False)
    text = str(value).replace("|", "\\|")  # a "|" in a cell would end it in Markdown
    return text if len(text) <= 80 else text[:79] + "…"


def _noun(count: int, word: str) -> str:
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"


def print_samples(
    graded: pl.DataFrame,
    args: argparse.Namespace,
    by: list[str],
    answer: str | pl.Expr,
    out: TextIO,
) -> None:
    """Print pass@k and the consistency of each item's samples (``--samples``)."""
    on = _group_by(args.on) or None
    correct = args.prefix + "correct"
    summary = consistency(graded, by=by or None, on=on, correct=correct, answer=answer)
    items = ", ".join(_item_names(graded, on))
    n_items, n_samples = int(summary["n_items"].sum()), int(summary["n_samples"].sum())
    if n_samples == n_items:
        print(
            f"\n--samples: every item ({items}) has one row, so there is no pass@k beyond "
            "pass@1 (the accuracy above) and nothing to be consistent about. Several samples "
            "per item (epochs, repeats) give several rows with the same item.",
            file=out,
        )
        return
    table = pass_at_k(graded, args.samples, by=by or None, on=on, correct=correct)
    print(
        f"\npass@k over {_noun(n_items, 'item')} ({items}) with "
        f"{_noun(n_samples, 'sample')}; ci_low/ci_high: 95% interval over items; "
        "pass_all_k: all k samples right:",
        file=out,
    )
    print_report(table, out)
    short = int(table["short_items"].sum())
    if short:
        print(
            "(null where some item has fewer than k samples: short_items counts them)",
            file=out,
        )
    print(
        "\nconsistency: items always right, always wrong, or flaky (both); majority: share of "
        "items whose most common (folded) answer is right; ties: items without one:",
        file=out,
    )
    print_report(summary, out)


def _item_names(frame: pl.DataFrame, on: list[str] | None) -> list[str]:
    from gradeframe._inputs import item_columns

    return item_columns(on, frame.schema)


def print_tool_agreement(
    graded: pl.DataFrame, args: argparse.Namespace, out: TextIO, folder: Path | None = None
) -> None:
    """Where the input has the tool's own verdict, print how often gradeframe agrees with it.

    The table is :func:`gradeframe.agreement`'s, with its names: ``a`` is the tool's verdict
    (``tool_correct``) and ``b`` gradeframe's (``correct``).
    """
    if "tool_correct" not in graded.columns or graded.get_column("tool_correct").null_count() == (
        graded.height
    ):
        return
    correct, kind = args.prefix + "correct", args.prefix + "failure_kind"
    by = [name for name in ("tool",) if name in graded.columns]
    table = logs.tool_agreement(graded, correct=correct, by=by or None)
    rows = _noun(int(table.get_column("n").sum()), "row")
    title = (
        f"agreement of the tool's own verdict (a: tool_correct) with gradeframe's "
        f"(b: {correct}), on {rows}:"
    )
    print(f"\n{title}", file=out)
    print_report(table, out)
    if args.disagreements:
        differ = logs.disagreements(graded, correct=correct, failure_kind=kind)
        rows = differ.head(args.disagreements)
        print(f"\nrows where they differ ({_first(rows.height, differ.height)}):", file=out)
        print_report(listing(rows, verdicts=["tool_correct", correct], folder=folder), out)


def _first(shown: int, total: int) -> str:
    return f"first {shown:,} of {total:,}" if total > shown else f"all {total:,}"


#: Identity columns a --failures listing shows after the groups, where the input has them.
ID_COLUMNS: Final = ("log", "question_id", "sample_id", "epoch")


def print_failures(
    graded: pl.DataFrame,
    args: argparse.Namespace,
    out: TextIO,
    *,
    by: list[str],
    answer: str | pl.Expr,
    refs: str | pl.Expr | bool,
    folder: Path | None = None,
    context: Sequence[str] = (),
) -> None:
    """Print the first ``--failures N`` rows that are not right, as :func:`failures` shows them.

    Their failure kind, the groups of the report, the row's identity (log, ids, epoch), the
    answer (failures()' ``actual``, cut short), the acceptable answers (the refs column, a list
    printed as a JSON list) and the ``outcome``. ``context``: columns shown after the answer
    (judge's failures show the judge's reply as the answer, then the model's own answer).
    """
    frame = graded
    names: list[str | bool] = []
    for value in (answer, refs):  # a struct field (--answer output.content): a column to show
        if isinstance(value, pl.Expr):
            frame = frame.with_columns(value)
            names.append(frame.columns[-1])
        else:
            names.append(value)
    prefix = args.prefix
    shown = failures(frame, actual=names[0], expected=names[1], prefix=prefix)
    compared = [names[1]] if isinstance(names[1], str) else []  # False: none (judge alone)
    # judge's verdict and why none was read, after the judge's reply
    judged = ("verdict", "grader_failure") if args.grader == "judge" else ()
    total = shown.height
    ids = [name for name in ID_COLUMNS if name in shown.columns and name not in by]
    # answer_contains' kind and outcome, or a matcher's expectation and its own columns; what
    # --extract took from the answer and --explain's columns when they are there
    kind = prefix + "failure_kind" if prefix + "failure_kind" in shown.columns else None
    extra = [
        prefix + name
        for name in ("extracted", "outcome", "matched", "near_miss", *MATCHER_DETAILS, *judged)
        if prefix + name in shown.columns and prefix + name not in names
    ]
    columns = [
        kind or prefix + "expectation",
        *by,
        *ids,
        prefix + "actual",
        *compared,
        *(name for name in context if name not in by),
        *extra,
    ]
    rows = shown.head(args.failures).select(columns)
    print(f"\nrows that are not right ({_first(rows.height, total)}):", file=out)
    print_report(listing(rows, folder=folder), out)


#: A matcher's own columns, listed after the answer (what it chose, missed, or how it decided).
MATCHER_DETAILS: Final = ("chosen", "missing", "extra", "method", "difference", "tolerance", "f1")


def listing(
    frame: pl.DataFrame, *, verdicts: Sequence[str] = (), folder: Path | None = None
) -> pl.DataFrame:
    """Prepare rows for printing: verdicts in words ("right", "wrong"), logs by their short path.

    Lists print as JSON lists (``["12400", "12,400"]``); see :func:`_shown`.
    """
    words = [
        pl.col(name).replace_strict({True: "right", False: "wrong"}, return_dtype=pl.String)
        for name in verdicts
        if name in frame.columns and frame.schema[name] == pl.Boolean
    ]
    if folder is not None and "log" in frame.columns and frame.schema["log"] == pl.String:
        base = os.fspath(folder).rstrip("/\\") + os.sep
        words.append(pl.col("log").str.strip_prefix(base))
    return frame.with_columns(words) if words else frame
