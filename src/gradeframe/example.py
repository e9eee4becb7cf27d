"""The bundled example: four made-up models answer thirty questions about a short annual report.

The data file ``gradeframe/data/example.jsonl`` is written by ``tools/make_example.py`` (by hand,
no randomness). Every failure kind occurs in it, and so do the number traps ("145.2" is not
"45.2", "12" is not "-12", "1,204" is "1204").
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Final

import polars as pl

__all__ = ["EXAMPLE_SCHEMA", "example", "example_document", "example_logs"]

#: The columns of :func:`example`, with ``answer`` holding each run's whole output record.
EXAMPLE_SCHEMA: Final = pl.Schema(
    {
        "question_id": pl.String(),
        "question": pl.String(),
        "model": pl.String(),
        "refs": pl.List(pl.String()),
        "answer": pl.Struct(
            {
                "answer": pl.String(),
                "text": pl.String(),
                "partial": pl.Boolean(),
                "notes": pl.List(pl.String()),
                "trace": pl.List(pl.Struct({"finish_reason": pl.String()})),
                "status": pl.String(),
                "failure_kind": pl.String(),
            }
        ),
    }
)


def _data(name: str) -> resources.abc.Traversable:
    return resources.files("gradeframe").joinpath("data", name)


def example() -> pl.DataFrame:
    """Return the bundled example: 120 answers to 30 questions from 4 made-up models.

    The questions are about a short annual report (see :func:`example_document`). Columns:
    ``question_id``, ``question``, ``model``, ``refs`` (List(String): the acceptable answers,
    ``NOT_IN_DOCUMENT`` for unanswerable questions, empty for one question whose reference was
    never written) and ``answer`` (a struct: the whole output record, with the fields
    ``answer``, ``text``, ``partial``, ``notes``, ``trace``, ``status`` and ``failure_kind``).

    Returns
    -------
    pl.DataFrame
        The example, ready for ``.grade.answer_contains()`` with its defaults.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = gf.example()
    >>> df.shape
    (120, 5)
    >>> graded = df.grade.answer_contains()
    >>> graded.group_by("model").agg(correct=pl.col("correct").sum()).sort("model")
    shape: (4, 2)
    ┌─────────────┬─────────┐
    │ model       ┆ correct │
    │ ---         ┆ ---     │
    │ str         ┆ u32     │
    ╞═════════════╪═════════╡
    │ atlas-large ┆ 27      │
    │ atlas-small ┆ 24      │
    │ beacon-7b   ┆ 22      │
    │ cedar-mini  ┆ 18      │
    └─────────────┴─────────┘
    """
    with _data("example.jsonl").open("rb") as handle:
        return pl.read_ndjson(handle, schema=EXAMPLE_SCHEMA)


def example_document() -> str:
    """Return the text of the report the example's questions are about (Markdown).

    Returns
    -------
    str
        The document.

    Examples
    --------
    >>> import gradeframe as gf
    >>> print(gf.example_document().splitlines()[0])
    # Hallam Forge Ltd: Annual Report 2023
    """
    return _data("example_document.md").read_text(encoding="utf-8")


def example_logs() -> Path:
    """Return the folder of small real evaluation logs shipped with gradeframe, one per tool.

    inspect_ai (an ``.eval`` archive: reading it needs ``pip install 'gradeframe[logs]'``),
    lm-evaluation-harness, promptfoo, OpenAI evals, HELM, Every Eval Ever, DeepEval,
    Braintrust, LangSmith and Arize Phoenix: each written by the tool itself, offline (see the
    folder's ``README.md``). They are part of the installed package, so the
    log examples in the docs run wherever gradeframe is installed.

    Returns
    -------
    pathlib.Path
        The folder, with one subfolder per tool (``inspect``, ``lm_eval``, ``promptfoo``,
        ``openai_evals``, ``helm``, ``eee``, ``deepeval``, ``braintrust``, ``langsmith``,
        ``phoenix``).

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> logs = gf.example_logs()
    >>> print(*sorted(p.name for p in logs.iterdir() if p.is_dir()))
    braintrust deepeval eee helm inspect langsmith lm_eval openai_evals phoenix promptfoo
    >>> gf.read_log(logs).group_by("tool").len().sort("tool")
    shape: (10, 2)
    ┌──────────────┬─────┐
    │ tool         ┆ len │
    │ ---          ┆ --- │
    │ str          ┆ u32 │
    ╞══════════════╪═════╡
    │ braintrust   ┆ 14  │
    │ deepeval     ┆ 9   │
    │ eee          ┆ 22  │
    │ helm         ┆ 8   │
    │ inspect      ┆ 22  │
    │ langsmith    ┆ 14  │
    │ lm_eval      ┆ 17  │
    │ openai_evals ┆ 7   │
    │ phoenix      ┆ 14  │
    │ promptfoo    ┆ 40  │
    └──────────────┴─────┘
    """
    folder = Path(str(resources.files("gradeframe").joinpath("data", "logs")))
    if not folder.is_dir():  # pragma: no cover - a packaging error
        msg = f"gradeframe's example logs are missing: {folder} is not a folder"
        raise FileNotFoundError(msg)
    return folder
