"""Build the HTML page of a graded run from what the summary functions return.

The builder gathers the results of :func:`gradeframe.report`, :func:`gradeframe.compare` with
:func:`gradeframe.compare.discordant`, :func:`gradeframe.agreement` with
:func:`gradeframe.logs.disagreements`, ``gradeframe.samples`` (``pass_at_k``, ``consistency``,
``flaky``, when that module exists) and :func:`gradeframe.failures`, turns their values into
display text (numbers to 3 decimals, counts exact, long text split for ``<details>``), and
renders ``templates/page.html.j2`` with Jinja2 (autoescaped). It computes no figure: every
number on the page is a value of one of those functions' outputs.
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import polars as pl

from gradeframe import kinds
from gradeframe._inputs import check_text, item_columns
from gradeframe._threads import one_at_a_time
from gradeframe.compare import agreement
from gradeframe.html._compare import compare_section
from gradeframe.html._cost import cost_section
from gradeframe.html._display import (
    MISSING,
    count,
    label,
    p_value,
    percent,
    plain_table,
    proportion,
    unit,
)
from gradeframe.html._failures import failures_section
from gradeframe.html._limits import (
    MAX_GROUPS,
    MAX_KINDS,
    MAX_LABEL,
    MAX_NAMED,
    MAX_PAGE_BYTES,
    MAX_TEXT,
    MAX_TITLE,
    short,
)
from gradeframe.report import (
    CLUSTER_COLUMNS,
    STAT_COLUMNS,
    report,
)

__all__ = ["build_page", "html_report"]

#: Where the template, the CSS and the script live (package data).
TEMPLATES: Final = Path(__file__).parent / "templates"

#: The colour of the right rows in the stacked bars: the state, apart from every failure kind
#: (a carried kind may be named "right" too).
RIGHT_COLOUR: Final = "#b9dcb1"

#: The colour of each failure kind in the stacked bars (Tableau 10); carried kinds take the
#: rest in order, and the kinds past MAX_KINDS share one.
COLOURS: Final = {
    "wrong": "#e15759",
    "no_reference": "#bab0ac",
    "error": "#b07aa1",
    "parse_failure": "#f28e2b",
    "budget_stop": "#edc948",
    "refusal": "#4e79a7",
    "not_in_document": "#76b7b2",
    "grader_failure": "#d9d9d9",  # the grader's failure, not the model's : grey
}
CARRIED_COLOURS: Final = (
    "#9c755f",
    "#ff9da7",
    "#8cd17d",
    "#499894",
    "#d37295",
    "#79706e",
    "#b6992d",
    "#a0cbe8",
    "#ffbe7d",
    "#d4a6c8",
)
OTHER_COLOUR: Final = "#e8e8e8"

#: The columns a matcher adds besides ``correct`` and ``expectation``, and the matcher they
#: name (how the page tells which matcher graded a frame).
MATCHER_COLUMNS: Final = {
    "method": "equivalent",
    "chosen": "choice",
    "missing": "includes",
    "tolerance": "within",
    "difference": "within",
    "f1": "f1",
}
#: The default ``expectation`` of the matchers that add no column of their own.
MATCHER_EXPECTATIONS: Final = {
    "exact match": "exact_match",
    "matches expected pattern": "matches",
    "includes expected text": "includes",
    "choice": "choice",
}

#: The tool's own verdict, when a log frame carries it (see :func:`gradeframe.read_log`).
TOOL_VERDICT: Final = "tool_correct"


@dataclass
class Grader:
    """The grader of a frame and its options, as the summary shows them."""

    name: str
    options: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------------------------
# The public function
# --------------------------------------------------------------------------------------------


@one_at_a_time
def html_report(
    frame: Any,
    path: str | os.PathLike[str] | None = None,
    *,
    by: str | Sequence[str] | None = None,
    on: str | Sequence[str] | None = None,
    title: str | None = None,
    max_failures: int = 5000,
    actual: str | bool | None = None,
    expected: str | bool | None = None,
    cost: Any = None,
) -> str:
    """Return one self-contained HTML page of a graded frame, and write it to ``path``.

    The page holds, where the data allows (a section that does not apply is left out): a
    summary (rows, accuracy with its interval, the input's name, the grader and its options);
    the report by ``by`` with each interval drawn and the failure kinds as stacked bars; paired
    comparisons of the groups (``compare``, with each pair's discordant items) when two or more
    groups share items; agreement with the tool's own verdict when ``tool_correct`` is present;
    repeated samples (pass@k, consistency, flaky items) when items have several samples and
    ``gradeframe.samples`` is installed; and a failure browser of the rows that are not right,
    filterable by kind and group, with a text search. Every figure is a value returned by those
    functions. The page loads nothing from anywhere (CSS, script and SVG charts are inline),
    escapes all text from the data, and is the same bytes for the same frame and arguments.

    The page stays under 10 MB whatever the input, and says each cut: only groups holding the
    same items are compared (the models within each task, never one task's items with
    another's), at most 10 groups per split and 50 pairs; a table of one row per group shows
    the first 200 groups; names show at most 80 characters, listed text at most 500; a page
    still too large cuts its listings further (the limits: ``gradeframe/html/_limits.py``).

    Needs Jinja2 (``pip install 'gradeframe[html]'``).

    Parameters
    ----------
    frame
        A graded Polars DataFrame or LazyFrame, or a pandas DataFrame: the output of
        ``answer_contains`` or of a matcher.
    path
        Where to write the page (UTF-8; written to a temporary file beside it, then moved into
        place). None: only return it.
    by
        The group columns of the report (and the column whose groups are compared, when it is
        one column). None: ``"model"`` when the frame has it, else no groups.
    on
        The column(s) naming an item, for comparisons and repeated samples. None: ``question_id``,
        else ``task`` with ``sample_id``, else ``sample_id`` (when none is present, those
        sections are left out).
    title
        The page's heading and the input's name. None: "gradeframe report".
    max_failures
        At most this many rows in the failure browser, in the flaky items and in the rows where
        gradeframe and the tool disagree (the pairs' disagreeing items share it); the page says
        the cap and when rows were cut.
    actual, expected
        The answer column and the acceptable-answer column, as in :func:`gradeframe.failures`:
        the failure browser shows both, the flaky items list each item's answers with their
        votes, and the disagreeing items of a pair show both groups' answers side by side.
        Default: on ``answer_contains`` output ``answer`` (else a log frame's ``output``) and
        ``refs`` when present; on a matcher's output none (name them: a matcher's output does
        not say which columns it compared). False: not shown.
    cost
        Prices (or a per-row cost column), as in :func:`gradeframe.report`: adds a cost section,
        the cost columns of the report per group and a chart of accuracy against cost.

    Returns
    -------
    str
        The HTML page.

    Examples
    --------
    >>> import gradeframe as gf
    >>> graded = gf.example().grade.answer_contains()
    >>> page = gf.html_report(graded, title="Example run")
    >>> page.startswith("<!DOCTYPE html>")
    True
    >>> 'id="failures-title"' in page, page == graded.grade.html(title="Example run")
    (True, True)
    """
    page = build_page(
        frame,
        by=by,
        on=on,
        title=title,
        max_failures=max_failures,
        actual=actual,
        expected=expected,
        cost=cost,
    )
    if path is not None:
        write_page(page, path)
    return page


def write_page(page: str, path: str | os.PathLike[str]) -> None:
    """Write a page atomically: a temporary file in the same folder, then ``os.replace``."""
    if not isinstance(path, str | os.PathLike):
        msg = f"`path` must be a file path (str or os.PathLike) or None, got {path!r}"
        raise TypeError(msg)
    target = Path(path)
    folder = target.parent
    if not folder.is_dir():
        msg = f"`path`: the folder {str(folder)!r} does not exist."
        raise FileNotFoundError(msg)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(page)
        os.chmod(temporary, _file_mode(target))  # mkstemp made it private (0600)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _file_mode(target: Path) -> int:
    """Return the mode a new file gets (0666 less the umask), or the mode of the file replaced."""
    if target.exists():
        return target.stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


# --------------------------------------------------------------------------------------------
# Gathering the functions' results
# --------------------------------------------------------------------------------------------


def build_page(
    frame: Any,
    *,
    by: str | Sequence[str] | None = None,
    on: str | Sequence[str] | None = None,
    title: str | None = None,
    max_failures: int = 5000,
    source: str | None = None,
    grader: Grader | None = None,
    actual: str | bool | None = None,
    expected: str | bool | None = None,
    prefix: str = "",
    cluster: str | None = None,
    cost: Any = None,
) -> str:
    """Return the page of :func:`html_report`, with what only a caller such as the CLI knows.

    Parameters
    ----------
    frame, by, on, title, max_failures, cost
        As in :func:`html_report`.
    source
        The input's name (say the file read); default: the title, else the frame's type.
    grader
        The grader and its options; default: told from the columns (``outcome``:
        answer_contains; ``expectation``: a matcher, named by the columns it adds).
    actual, expected
        The compared columns shown in the failure browser, as in :func:`gradeframe.failures`.
        Default: on answer_contains output ``answer`` (else a log frame's ``output``) and
        ``refs`` when present; on a matcher's
        output none (the page cannot know which columns it compared).
    prefix
        The prefix the frame was graded with.
    cluster
        As in :func:`gradeframe.report`: the summary's and the report's intervals are the
        cluster-robust ones.

    Returns
    -------
    str
        The HTML page.
    """
    context = page_context(
        frame,
        by=by,
        on=on,
        title=title,
        max_failures=max_failures,
        source=source,
        grader=grader,
        actual=actual,
        expected=expected,
        prefix=prefix,
        cluster=cluster,
        cost=cost,
    )
    return fitted(context)


def _check_arguments(title: Any, max_failures: Any, source: Any) -> None:
    if title is not None and not isinstance(title, str):
        msg = f"`title` must be a str or None, got {type(title).__name__}: {title!r}"
        raise TypeError(msg)
    if source is not None and not isinstance(source, str):
        msg = f"`source` must be a str or None, got {type(source).__name__}: {source!r}"
        raise TypeError(msg)
    check_text(title, "title")  # a lone surrogate: UTF-8 cannot write it (G20)
    check_text(source, "source")
    if (
        not isinstance(max_failures, int)
        or isinstance(max_failures, bool)
        or not 0 <= max_failures <= 2**63 - 1  # past Int64: Polars' OverflowError (G17)
    ):
        msg = f"`max_failures` must be an int from 0 to 2**63 - 1, got {max_failures!r}"
        raise ValueError(msg)


def _as_polars(frame: Any) -> tuple[pl.DataFrame, str]:
    """Return the frame as a Polars DataFrame, and what it was."""
    if isinstance(frame, pl.DataFrame):
        return frame, "Polars DataFrame"
    if isinstance(frame, pl.LazyFrame):
        return frame.collect(), "Polars LazyFrame"
    if type(frame).__module__.startswith("pandas"):
        import pandas as pd

        from gradeframe import _frames

        if isinstance(frame, pd.DataFrame):
            names = [str(c) for c in frame.columns]
            if len(set(names)) != len(names):
                msg = "the pandas frame has duplicate column names; rename them apart first."
                raise ValueError(msg)
            return _frames.to_polars(frame, dict.fromkeys(names)), "pandas DataFrame"
    msg = (
        "`html` takes a Polars DataFrame or LazyFrame or a pandas DataFrame, "
        f"got {type(frame).__name__}"
    )
    raise TypeError(msg)


def _group_names(by: str | Sequence[str] | None, schema: Mapping[str, Any]) -> list[str]:
    if by is None:
        return ["model"] if "model" in schema else []
    if isinstance(by, str):
        return [by]
    if isinstance(by, Sequence) and all(isinstance(b, str) for b in by):
        return list(by)
    msg = f"`by` must be None, a column name or a list of column names, got {by!r}"
    raise TypeError(msg)


def page_context(
    frame: Any,
    *,
    by: str | Sequence[str] | None,
    on: str | Sequence[str] | None,
    title: str | None,
    max_failures: int,
    source: str | None,
    grader: Grader | None,
    actual: str | bool | None,
    expected: str | bool | None,
    prefix: str,
    cluster: str | None = None,
    cost: Any = None,
) -> dict[str, Any]:
    """Gather every section's data: the functions' results as display values."""
    _check_arguments(title, max_failures, source)
    df, frame_type = _as_polars(frame)
    schema = df.schema
    groups = _group_names(by, schema)
    correct = prefix + "correct"
    kind_column = _kind_column(schema, prefix)
    grader = grader or infer_grader(df, prefix)

    overall = report(df, prefix=prefix, cluster=cluster).row(0, named=True)
    context: dict[str, Any] = {
        "title": short(title or "gradeframe report", MAX_TITLE),
        "source": short(source or title or f"a graded {frame_type}", MAX_TITLE),
        "grader": Grader(short(grader.name), [short(o) for o in grader.options[:MAX_KINDS]]),
        "n_options": len(grader.options),
        "summary": _summary(overall, groups),
        "report": _report_section(df, groups, prefix, cluster),
        "cost": cost_section(df, groups, prefix, cluster, cost),
        "limits": {"label": MAX_LABEL, "text": MAX_TEXT, "megabytes": MAX_PAGE_BYTES / 1e6},
        "size_cut": False,
    }
    items = _items(on, schema, groups)
    # Within a group, the item columns that are not group columns name an item (a log frame
    # grouped by tool, model and task has items task and sample_id: sample_id within a group).
    paired = [c for c in items or [] if c not in groups] or None
    actual, expected = _compared_columns(df, actual, expected, prefix)
    said = _answer_column(df, actual)
    context["compare"] = compare_section(df, groups, items, correct, max_failures, said)
    context["agreement"] = _agreement_section(df, groups, prefix, max_failures)
    context["samples"] = _samples_section(
        df, groups, paired, correct, max_failures, said or _outcome(df, prefix)
    )
    context["failures"] = failures_section(
        df,
        groups=groups,
        items=paired or [],
        kind_column=kind_column,
        total=overall["n"] - overall["n_correct"],
        max_failures=max_failures,
        actual=actual,
        expected=expected,
        prefix=prefix,
    )
    return context


def _compared_columns(
    df: pl.DataFrame, actual: str | bool | None, expected: str | bool | None, prefix: str
) -> tuple[str | bool, str | bool]:
    """Return the answer and acceptable-answer columns shown (False: none), defaults resolved.

    On answer_contains output: ``answer`` (else ``output``, a log frame's record) and ``refs``
    when present; on a matcher's output none, unless named.
    """
    for name, value in (("actual", actual), ("expected", expected)):
        if value is not None and not isinstance(value, str | bool):
            msg = f"`{name}` must be a column name, False or None, got {value!r}"
            raise TypeError(msg)
        if value is True:
            msg = f"`{name}=True` names no column: give a column name, False or None"
            raise ValueError(msg)
        if isinstance(value, str) and value not in df.columns:
            msg = f"`{name}={value!r}` is not a column of the frame; it has {df.columns!r}"
            raise pl.exceptions.ColumnNotFoundError(msg)
    if prefix + "outcome" in df.columns:
        answers = [c for c in ("answer", "output") if c in df.columns]
        if actual is None:
            actual = answers[0] if answers else False
        if expected is None:
            expected = "refs" if "refs" in df.columns else False
    return (False if actual is None else actual), (False if expected is None else expected)


def _answer_column(df: pl.DataFrame, actual: str | bool) -> str | None:
    """Return the answer column whose text the listings show (String, or an output record)."""
    if not isinstance(actual, str):
        return None
    dtype = df.schema[actual]
    if dtype == pl.String:
        return actual
    if isinstance(dtype, pl.Struct) and {"answer", "text"} & {f.name for f in dtype.fields}:
        return actual
    return None


def _outcome(df: pl.DataFrame, prefix: str) -> str | None:
    """Return answer_contains' folded answer column, when the frame has one."""
    return prefix + "outcome" if prefix + "outcome" in df.columns else None


def _kind_column(schema: Mapping[str, Any], prefix: str) -> str | None:
    for name in ("failure_kind", "expectation"):
        if prefix + name in schema:
            return prefix + name
    return None


def infer_grader(df: pl.DataFrame, prefix: str = "") -> Grader:
    """Tell the grader from the columns it added (the frame records no more than that).

    ``outcome``: answer_contains (with ``explain=True`` when ``matched``/``near_miss`` are
    present). ``expectation``: a matcher, named by the column it adds (``chosen``: choice,
    ``missing``: includes, ``tolerance``/``difference``: within, ``f1``: f1) or by its default
    expectation; the distinct expectations are its options (they hold ``delta``, ``percent``,
    ``threshold`` or the label). ``verdict`` with ``grader_failure``: judge.
    """
    schema = df.schema
    if prefix + "outcome" in schema:
        options = []
        if prefix + "near_miss" in schema or prefix + "matched" in schema:
            options.append("explain=True")
        if prefix:
            options.append(f"prefix={prefix!r}")
        return Grader("answer_contains", options)
    if prefix + "expectation" in schema:
        expectations = sorted(
            str(e) for e in df.get_column(prefix + "expectation").unique().to_list() if e
        )
        name = next(
            (m for c, m in MATCHER_COLUMNS.items() if prefix + c in schema),
            None,
        )
        if name is None and len(expectations) == 1:
            name = MATCHER_EXPECTATIONS.get(expectations[0])
        options = [f"expectation: {e}" for e in expectations]
        return Grader(name or "a matcher", options)
    if prefix + "verdict" in schema and prefix + "grader_failure" in schema:  # judge
        return Grader("judge", [f"prefix={prefix!r}"] if prefix else [])
    return Grader("unknown (no outcome or expectation column)")


def _items(
    on: str | Sequence[str] | None, schema: Mapping[str, Any], groups: list[str]
) -> list[str] | None:
    """Return the item columns: ``on`` as given (checked), else the default, else None."""
    if on is not None:
        names = item_columns(on if isinstance(on, str) else list(on), schema)
    else:
        try:
            names = item_columns(None, schema)
        except ValueError:
            return None
    if set(names) & set(groups) and on is not None:
        msg = f"`on={on!r}` names a `by` column."
        raise ValueError(msg)
    return names


# --------------------------------------------------------------------------------------------
# Sections
# --------------------------------------------------------------------------------------------


def _summary(overall: Mapping[str, Any], groups: list[str]) -> dict[str, Any]:
    return {
        "n": count(overall["n"]),
        "n_correct": count(overall["n_correct"]),
        "not_right": count(overall["n"] - overall["n_correct"]),
        "accuracy": proportion(overall["accuracy"]),
        "percent": percent(overall["accuracy"]),
        "ci_low": proportion(overall["ci_low"]),
        "ci_high": proportion(overall["ci_high"]),
        "by": [short(g) for g in groups],
        # Rows the grader failed on , counted apart from the model's failures.
        "grader_failure": count(overall.get(kinds.GRADER_FAILURE) or 0),
        "n_graded": count(overall.get("n_graded", overall["n"])),
    }


def _group_label(row: Mapping[str, Any], groups: list[str]) -> str:
    """Return the label of a table row of a group (or of every row, with no groups)."""
    return label([row[g] for g in groups]) if groups else "all rows"


def _full_label(row: Mapping[str, Any], groups: list[str]) -> str | None:
    """Return a shortened group name at more length (MAX_TEXT), for a title; None if not cut."""
    full = " · ".join(MISSING if row[g] is None else str(row[g]) for g in groups)
    return short(full, MAX_TEXT) if len(full) > MAX_LABEL else None


def _first_groups(table: pl.DataFrame, per_group: int = 1) -> tuple[pl.DataFrame, dict[str, Any]]:
    """Cut a table of ``per_group`` rows per group to the first MAX_GROUPS groups.

    Returns the rows kept, and the counts the page's note gives.
    """
    groups = table.height // max(per_group, 1)
    cut = {"n_groups": groups, "max_groups": MAX_GROUPS, "groups_cut": groups > MAX_GROUPS}
    return table.head(MAX_GROUPS * per_group), cut


def _report_section(
    df: pl.DataFrame, groups: list[str], prefix: str, cluster: str | None
) -> dict[str, Any]:
    table = report(df, groups or None, prefix=prefix, cluster=cluster)
    known = {*groups, *STAT_COLUMNS, *CLUSTER_COLUMNS, "n_graded"}
    kind_names = [c for c in table.columns if c not in known]
    totals = table.select(pl.col(kind_names).sum()).row(0, named=True) if kind_names else {}
    with_rows = [k for k in kind_names if totals[k]]
    # The kinds with most rows get a column and a colour (in table order); the rest share a grey.
    most = set(sorted(with_rows, key=lambda k: -totals[k])[:MAX_KINDS])
    shown_kinds = [k for k in with_rows if k in most]
    others = [k for k in with_rows if k not in most]
    colours = _colours(shown_kinds)
    table, cut = _first_groups(table)
    rows = []
    for row in table.iter_rows(named=True):
        rows.append(
            {
                "label": _group_label(row, groups),
                "title": _full_label(row, groups),
                "n": count(row["n"]),
                "n_correct": count(row["n_correct"]),
                "accuracy": proportion(row["accuracy"]),
                "ci_low": proportion(row["ci_low"]),
                "ci_high": proportion(row["ci_high"]),
                "x": unit(row["accuracy"]),
                "x_low": unit(row["ci_low"]),
                "x_high": unit(row["ci_high"]),
                "kinds": [(_kind_name(k), count(row[k])) for k in shown_kinds],
                "bar": _bar(row, shown_kinds, others, colours),
            }
        )
    zero = [k for k in kind_names if not totals[k]]
    return {
        "groups": [short(g) for g in groups],
        "rows": rows,
        "kinds": [_kind_name(k) for k in shown_kinds],
        "legend": [("right", RIGHT_COLOUR), *((_kind_name(k), colours[k]) for k in shown_kinds)]
        + ([("other kinds", OTHER_COLOUR)] if others else []),
        "others": _listed(others),
        "has_kinds": bool(kind_names),
        "zero_kinds": _listed(zero),
        "cluster": short(cluster) if cluster else None,
        "grader_failures": bool(totals.get(kinds.GRADER_FAILURE)),
        **cut,
    }


def _kind_name(kind: str) -> str:
    """Show a kind's name, told apart from the right rows and the other kinds it could equal."""
    name = short(kind)
    return f"{name} (a failure kind)" if name in ("right", "other kinds") else name


def _listed(names: list[str]) -> str:
    """Name a few kinds in a note: the first MAX_NAMED, then how many more."""
    shown = ", ".join(short(n) for n in names[:MAX_NAMED])
    rest = len(names) - MAX_NAMED
    return shown + (f" and {rest} more" if rest > 0 else "")


def _colours(kind_names: list[str]) -> dict[str, str]:
    """Give each kind its colour: the known kinds their own, carried kinds the rest in turn."""
    carried = [k for k in kind_names if k not in COLOURS]
    colours = {k: COLOURS[k] for k in kind_names if k in COLOURS}
    for i, name in enumerate(carried):
        colours[name] = CARRIED_COLOURS[i % len(CARRIED_COLOURS)]
    return colours


def _bar(
    row: Mapping[str, Any], shown_kinds: list[str], others: list[str], colours: Mapping[str, str]
) -> list[dict[str, Any]]:
    """Return the segments of a stacked bar, as shares of ``n``.

    The right rows (counted by ``n_correct``, never by a kind's name), then each kind, then
    the other kinds together.
    """
    n = row["n"]
    if not n:
        return []
    parts = [("right", row["n_correct"], RIGHT_COLOUR)]
    parts += [(_kind_name(k), row[k], colours[k]) for k in shown_kinds]
    if others:
        parts.append(("other kinds", sum(row[k] for k in others), OTHER_COLOUR))
    segments = []
    start = 0.0
    for name, value, colour in parts:
        if not value:
            continue
        width = value / n  # a share of the row's own counts, for drawing only
        segments.append({"name": name, "count": value, "x": start, "width": width, "fill": colour})
        start += width
    return segments


def _agreement_section(
    df: pl.DataFrame, groups: list[str], prefix: str, limit: int
) -> dict[str, Any] | None:
    if TOOL_VERDICT not in df.columns or df.get_column(TOOL_VERDICT).null_count() == df.height:
        return None
    from gradeframe.logs import disagreements

    correct = prefix + "correct"
    table = agreement(df, TOOL_VERDICT, correct, by=groups or None)
    total = int(table.select(pl.col("only_a").sum() + pl.col("only_b").sum()).item())
    table, cut = _first_groups(table)
    rows = [
        {
            "label": _group_label(row, groups),
            "n": count(row["n"]),
            "both_right": count(row["both_right"]),
            "only_a": count(row["only_a"]),
            "only_b": count(row["only_b"]),
            "both_wrong": count(row["both_wrong"]),
            "agreement": proportion(row["agreement"]),
            "kappa": proportion(row["kappa"]),
            "p_value": p_value(row["p_value"]),
        }
        for row in table.iter_rows(named=True)
    ]
    differ = disagreements(df, limit, correct=correct, failure_kind=prefix + "failure_kind")
    return {
        "groups": [short(g) for g in groups],
        "rows": rows,
        "differ": plain_table(differ),
        "total": count(total),
        "limit": limit,
        **cut,
    }


def _samples_section(
    df: pl.DataFrame,
    groups: list[str],
    items: list[str] | None,
    correct: str,
    limit: int,
    answer: str | None,
) -> dict[str, Any] | None:
    if items is None:
        return None
    try:
        samples = importlib.import_module("gradeframe.samples")
    except ImportError:
        return None
    by = groups or None
    consistency = samples.consistency(df, by=by, on=items, correct=correct)
    if (
        consistency.is_empty()
        or not consistency.select((pl.col("n_samples") > pl.col("n_items")).any()).item()
    ):
        return None
    # The largest power of 2 not above the smallest sample count: the candidates are powers of
    # 2 up to the fewest samples per item on average (the smallest count is at most that), and
    # pass_at_k itself says which of them some item is short of (short_items > 0).
    average = consistency.select((pl.col("n_samples") / pl.col("n_items")).min()).item()
    candidates = [2**i for i in range(1, 64) if 2**i <= average]
    table = samples.pass_at_k(df, [1, *candidates], by=by, on=items, correct=correct)
    lacking = table.group_by("k").agg(pl.col("short_items").sum())
    fine = sorted(k for k, s in lacking.iter_rows() if k > 1 and s == 0)
    ks = [1, fine[-1]] if fine else [1]
    shown, _ = _first_groups(table.filter(pl.col("k").is_in(ks)), len(ks))
    consistency, cut = _first_groups(consistency)
    pass_rows = [_pass_row(row, groups) for row in shown.iter_rows(named=True)]
    consistency_rows = [_consistency_row(row, groups) for row in consistency.iter_rows(named=True)]
    text = None
    if answer is not None:
        dtype = df.schema[answer]
        text = pl.col(answer)
        if isinstance(dtype, pl.Struct):
            fields = [f.name for f in dtype.fields if f.name in ("answer", "text")]
            text = pl.coalesce([pl.col(answer).struct.field(f).cast(pl.String) for f in fields])
    flaky = samples.flaky(df, by=by, on=items, correct=correct, answer=text)
    listed = flaky.head(limit)
    if "answers" in listed.columns:
        votes = [_votes(answers) for answers in listed.get_column("answers").to_list()]
        listed = listed.with_columns(pl.Series("answers", votes, dtype=pl.String)).rename(
            {"answers": "answers (votes)"}
        )
    return {
        "groups": [short(g) for g in groups],
        "ks": ks,
        "pass_at_k": pass_rows,
        "consistency": consistency_rows,
        "flaky": plain_table(listed),
        "n_flaky": count(flaky.height),
        "limit": limit,
        "answer": short(answer) if answer else None,
        **cut,
    }


def _pass_row(row: Mapping[str, Any], groups: list[str]) -> dict[str, Any]:
    return {
        "label": _group_label(row, groups),
        "k": count(row["k"]),
        "n_items": count(row["n_items"]),
        "pass_at_k": proportion(row["pass_at_k"]),
        "ci_low": proportion(row["ci_low"]),
        "ci_high": proportion(row["ci_high"]),
        "x": unit(row["pass_at_k"]),
        "x_low": unit(row["ci_low"]),
        "x_high": unit(row["ci_high"]),
        "pass_all_k": proportion(row["pass_all_k"]),
    }


def _consistency_row(row: Mapping[str, Any], groups: list[str]) -> dict[str, Any]:
    return {
        "label": _group_label(row, groups),
        "n_items": count(row["n_items"]),
        "n_samples": count(row["n_samples"]),
        "mean_accuracy": proportion(row["mean_accuracy"]),
        "always_right": count(row["always_right"]),
        "always_wrong": count(row["always_wrong"]),
        "flaky": count(row["flaky"]),
        "item_variance": proportion(row["item_variance"]),
    }


def _votes(answers: Sequence[Mapping[str, Any]] | None) -> str:
    """Show a flaky item's answers, most votes first: "paris ×3 right | lyon ×1 wrong"."""
    return " | ".join(
        f"{a['answer']} ×{a['n']} {'right' if a['correct'] else 'wrong'}" for a in answers or []
    )


# --------------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------------


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gradeframe")
    except PackageNotFoundError:  # pragma: no cover - a source tree without metadata
        return "unknown"


def _environment() -> Any:
    try:
        import jinja2
    except ImportError as exc:
        msg = "the HTML page needs Jinja2: pip install 'gradeframe[html]' (or jinja2>=3.1)"
        raise ImportError(msg) from exc
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _script_hash(script: str) -> str:
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def fitted(context: dict[str, Any]) -> str:
    """Render the page, cutting its listings further until it holds at most MAX_PAGE_BYTES.

    Every table is already bounded (at most MAX_GROUPS groups, MAX_PAIRS pairs, MAX_KINDS
    kinds; names and text cut): only the listings (the failure browser, each pair's items,
    the flaky items, the rows where the tool disagrees) grow with ``max_failures`` and the text
    in them. When the page is larger than the limit, each listing keeps the share of its rows
    the limit allows, and the page says so.
    """
    page = render(context)
    size = len(page.encode("utf-8"))
    while size > MAX_PAGE_BYTES:
        listings = _listings(context)
        if not any(listings):
            break  # pragma: no cover - the bounded tables alone never reach the limit
        share = MAX_PAGE_BYTES / size * 0.9
        for rows in listings:
            del rows[int(len(rows) * share) :]
        context["size_cut"] = True
        failures = context.get("failures")
        if failures:
            failures["shown"] = count(len(failures["rows"]))
            failures["cut"] = len(failures["rows"]) < int(failures["total"])
        page = render(context)
        size = len(page.encode("utf-8"))
    return page


def _listings(context: Mapping[str, Any]) -> list[list[Any]]:
    """Return the page's listings: lists of rows that can be cut from their end."""
    found = []
    if context.get("failures"):
        found.append(context["failures"]["rows"])
    if context.get("samples"):
        found.append(context["samples"]["flaky"]["rows"])
    if context.get("agreement"):
        found.append(context["agreement"]["differ"]["rows"])
    if context.get("compare"):
        found += [row["discordant"] for row in context["compare"]["rows"]]
    return [rows for rows in found if rows]


def render(context: Mapping[str, Any]) -> str:
    """Render the page's template with the gathered context."""
    environment = _environment()
    environment.filters["coord"] = lambda value: f"{value:.1f}"
    environment.filters["short"] = short
    css = (TEMPLATES / "page.css").read_text(encoding="utf-8")
    script = (TEMPLATES / "page.js").read_text(encoding="utf-8")
    template = environment.get_template("page.html.j2")
    return template.render(
        **context,
        css=css,
        script=script,
        script_hash=_script_hash(script),
        version=_version(),
    )
