"""The evaluation tool's own verdict next to gradeframe's: how often they agree, and where not.

A log frame carries the tool's verdict in ``tool_correct``; after ``answer_contains`` the frame
also has gradeframe's ``correct``. :func:`tool_agreement` counts the 2×2 table per group and
:func:`disagreements` lists the rows where the two differ.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from gradeframe.compare import agreement

#: The columns :func:`disagreements` shows, where the frame has them.
SHOWN = ("tool", "log", "model", "task", "sample_id", "epoch", "answer", "refs", "tool_correct")


def _groups(by: str | Sequence[str] | None) -> list[str]:
    return [by] if isinstance(by, str) else list(by or [])


def tool_agreement(
    graded: pl.DataFrame,
    *,
    correct: str = "correct",
    by: str | Sequence[str] | None = None,
) -> pl.DataFrame:
    """Count how often the tool's verdict (``tool_correct``) and gradeframe's agree.

    :func:`gradeframe.agreement` of ``tool_correct`` (``a``) and gradeframe's verdict (``b``),
    on the rows where the tool recorded one, with agreement's column names: one row per group
    of ``by``, sorted, with ``n``, ``both_right``, ``only_a`` (the tool says right, gradeframe
    not), ``only_b`` (gradeframe says right, the tool not), ``both_wrong``, ``agreement`` (the
    share of equal verdicts), Cohen's ``kappa`` and McNemar's exact ``p_value``.

    Parameters
    ----------
    graded
        A frame read from evaluation logs and graded (it has ``tool_correct`` and ``correct``).
    correct
        gradeframe's verdict column (``prefix + "correct"`` when graded with a prefix).
    by
        Group columns (default: none, one row).

    Returns
    -------
    polars.DataFrame

    Examples
    --------
    >>> import polars as pl
    >>> from gradeframe.logs import tool_agreement
    >>> graded = pl.DataFrame(
    ...     {"tool_correct": [True, True, False, None], "correct": [True, False, False, True]}
    ... )
    >>> tool_agreement(graded).select("n", "both_right", "only_a", "only_b", "agreement")
    shape: (1, 5)
    ┌─────┬────────────┬────────┬────────┬───────────┐
    │ n   ┆ both_right ┆ only_a ┆ only_b ┆ agreement │
    │ --- ┆ ---        ┆ ---    ┆ ---    ┆ ---       │
    │ i64 ┆ i64        ┆ i64    ┆ i64    ┆ f64       │
    ╞═════╪════════════╪════════╪════════╪═══════════╡
    │ 3   ┆ 1          ┆ 1      ┆ 0      ┆ 0.666667  │
    └─────┴────────────┴────────┴────────┴───────────┘
    """
    rows = graded.filter(pl.col("tool_correct").is_not_null(), pl.col(correct).is_not_null())
    return agreement(rows, "tool_correct", correct, by=_groups(by) or None)


def disagreements(
    graded: pl.DataFrame,
    n: int | None = None,
    *,
    correct: str = "correct",
    failure_kind: str = "failure_kind",
) -> pl.DataFrame:
    """Return the rows where the tool's verdict and gradeframe's differ (the first ``n``).

    Parameters
    ----------
    graded
        A frame read from evaluation logs and graded.
    n
        How many rows to return (default: all).
    correct, failure_kind
        gradeframe's output columns (with the prefix used when grading).

    Returns
    -------
    polars.DataFrame
        The identity columns, the answer (cut to ``gradeframe.MAX_METADATA_LENGTH``
        characters), the acceptable answers, both verdicts and gradeframe's failure kind.

    Examples
    --------
    >>> import polars as pl
    >>> from gradeframe.logs import disagreements
    >>> graded = pl.DataFrame(
    ...     {
    ...         "sample_id": ["a", "b"],
    ...         "output": [{"answer": "Made 12,400 units."}, {"answer": "It is 45.2 m."}],
    ...         "refs": [["12400"], ["45.2"]],
    ...         "tool_correct": [False, True],
    ...         "correct": [True, True],
    ...         "failure_kind": [None, None],
    ...     }
    ... )
    >>> disagreements(graded).select("sample_id", "answer", "tool_correct", "correct")
    shape: (1, 4)
    ┌───────────┬────────────────────┬──────────────┬─────────┐
    │ sample_id ┆ answer             ┆ tool_correct ┆ correct │
    │ ---       ┆ ---                ┆ ---          ┆ ---     │
    │ str       ┆ str                ┆ bool         ┆ bool    │
    ╞═══════════╪════════════════════╪══════════════╪═════════╡
    │ a         ┆ Made 12,400 units. ┆ false        ┆ true    │
    └───────────┴────────────────────┴──────────────┴─────────┘
    """
    import gradeframe

    limit = gradeframe.MAX_METADATA_LENGTH  # read at call time: setting it takes effect
    answer = pl.col("output").struct.field("answer") if "output" in graded.columns else None
    columns: list[pl.Expr] = []
    for name in SHOWN:
        if name == "answer" and answer is not None:
            columns.append(answer.str.slice(0, limit).alias("answer"))
        elif name in graded.columns:
            columns.append(pl.col(name))
    columns += (
        [pl.col(correct), pl.col(failure_kind)]
        if failure_kind in graded.columns
        else [pl.col(correct)]
    )
    differ = graded.filter(pl.col("tool_correct") != pl.col(correct)).select(columns)
    return differ if n is None else differ.head(n)
