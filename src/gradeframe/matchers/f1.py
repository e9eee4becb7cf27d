r"""f1: the SQuAD token-overlap F1 between an answer and the expected answer(s).

This is the F1 of the official SQuAD v1.1 evaluation script (``evaluate-v1.1.py``):

- normalisation: lower case; every ASCII punctuation character (Python's
  ``string.punctuation``) removed; the articles "a", "an", "the" (as whole words, ``\b``)
  replaced by a space; split on white space (Python's ``str.split()``);
- the tokens both sides share, counted as multisets (a token twice on each side counts twice);
- precision = shared / answer tokens, recall = shared / expected tokens,
  F1 = 2 · precision · recall / (precision + recall), and 0 when nothing is shared (so also when
  either side has no tokens left, as in SQuAD v1.1);
- the best F1 over the expected answers of the row.

The counting runs on whole columns (one ``map_batches`` per batch, no Python loop over rows):
the expected answers' tokens are exploded and counted with a group-by, each is counted in the
answer by a literal search, and the best F1 per row is scattered back.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

import polars as pl

from gradeframe._inputs import IntoExpr, Schema, as_text, is_text
from gradeframe.matchers import _base
from gradeframe.matchers._base import Frame, Input

__all__ = ["F1", "F1_COLUMNS", "f1", "squad_tokens", "with_f1"]

F1: Final = _base.matcher("f1", {"actual": "text", "expected": "refs"}, f1=pl.Float64())
#: The columns f1 adds, before ``prefix``.
F1_COLUMNS: Final = F1.columns

#: Python's ``string.punctuation``: the ASCII characters ``!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~``.
_PUNCTUATION_RE: Final = r"[!-/:-@\[-`{-~]+"
#: The articles SQuAD removes, as whole words.
_ARTICLES_RE: Final = r"\b(?:a|an|the)\b"
_ARTICLES: Final = ("a", "an", "the")
#: What Python's ``str.split()`` splits on: Unicode white space and the separators U+001C-1F.
_WHITE_SPACE_RE: Final = r"[\s\x1c-\x1f]"
#: A text of lower-case ASCII letters, digits and plain spaces only: its words are its tokens
#: (split on " ", articles dropped as tokens), with no regex pass.
_SIMPLE_RE: Final = r"^[a-z0-9 ]*$"


def squad_tokens(text: pl.Expr) -> pl.Expr:
    """SQuAD's normalised tokens of a text, as a List(String) (the expression form).

    >>> import polars as pl
    >>> from gradeframe.matchers.f1 import squad_tokens
    >>> pl.select(squad_tokens(pl.lit("The Eiffel-Tower, in  Paris!"))).item().to_list()
    ['eiffeltower', 'in', 'paris']
    """
    normal = text.str.to_lowercase().str.replace_all(_PUNCTUATION_RE, "")
    normal = normal.str.replace_all(_ARTICLES_RE, " ").str.replace_all(_WHITE_SPACE_RE, " ")
    return normal.str.split(" ").list.eval(pl.element().filter(pl.element() != ""))


def _normal(text: pl.Series) -> pl.Series:
    """Normalise a text Series as SQuAD does, up to the split: tokens separated by spaces.

    Same rows, same order. Most texts are plain lower-case ASCII words after the punctuation is
    gone: their tokens are their words (an article is then a token to drop). Only the others
    get the article and white-space regexes, and are put back at their positions.
    """
    normal = text.str.to_lowercase().str.replace_all(_PUNCTUATION_RE, "")
    slow = ~normal.str.contains(_SIMPLE_RE)
    if slow.any():
        where = slow.arg_true()
        fixed = (
            normal.gather(where)
            .str.replace_all(_ARTICLES_RE, " ")
            .str.replace_all(_WHITE_SPACE_RE, " ")
        )
        normal = normal.scatter(where, fixed)
    return normal


def _normal_distinct(text: pl.Series) -> pl.Series:
    """Normalise as :func:`_normal` does, each distinct text once (expected answers repeat)."""
    distinct = text.unique()
    if 2 * distinct.len() > text.len():
        return _normal(text)
    return text.replace_strict(distinct, _normal(distinct), return_dtype=pl.String)


def _tokens(frame: pl.DataFrame, text: str, keys: Sequence[str]) -> pl.LazyFrame:
    """Explode a text column into its SQuAD tokens: one row per (keys..., token)."""
    return (
        frame.with_columns(_normal_distinct(frame.get_column(text)).alias(text))
        .lazy()
        .select(*keys, token=pl.col(text).str.split(" "))
        .explode("token")
        .filter(pl.col("token") != "", ~pl.col("token").is_in(_ARTICLES))
    )


def _scores(batch: pl.Series) -> pl.Series:
    """Return the best SQuAD F1 of each row: ``actual`` against ``expected`` (a list).

    The answers are never split: each is kept as its normalised text with every space doubled
    (so that the whole-token searches below never overlap), and only the expected answers'
    tokens (a few per row) are exploded. For each distinct token of an expected answer, its
    count in the answer is a literal search for " token " in that text; the shared count is the
    sum of the smaller counts, as SQuAD's ``Counter`` intersection.
    """
    frame = batch.struct.unnest().with_row_index("row")
    height = frame.height
    # Tokens one space apart, then every space doubled: a text has one token more than it has
    # spaces, and doubling adds one byte per space, so the byte lengths count the tokens.
    single = pl.col("text").str.replace_all("  +", " ").str.strip_chars(" ")
    doubled = pl.col("single").str.replace_all(" ", "  ", literal=True)
    spaces = pl.col("doubled").str.len_bytes() - pl.col("single").str.len_bytes()
    answers = (
        pl.LazyFrame({"text": _normal(frame.get_column("actual"))})
        .select(single=single)
        .with_columns(doubled=doubled)
        .select(
            spaced=pl.lit("  ") + pl.col("doubled") + pl.lit("  "),
            words=pl.when(pl.col("single") == "").then(0).otherwise(spaces + 1),
        )
        .select(
            "spaced",
            answer_tokens=pl.col("words") - pl.col("spaced").str.count_matches(r" (?:a|an|the) "),
        )
        .collect()  # one row per answer, in order: a row number is a position
    )
    items = (
        frame.lazy()
        .select("row", text="expected")
        .explode("text")
        .filter(pl.col("text").is_not_null())
        .with_row_index("item")
        .collect()
    )
    # Expected answers repeat (across models and runs): each distinct one is tokenised and
    # counted once, and the items take their counts by a join.
    distinct = items.select(pl.col("text").unique()).with_columns(normal=pl.col("text"))
    table = _tokens(distinct, "normal", ["text"]).group_by("text", "token").agg(n_truth=pl.len())
    counts = (
        items.lazy()
        .join(table, on="text", how="inner")
        .select("item", "row", "token", "n_truth")
        .collect()
    )
    rows = counts.get_column("row")
    needle = pl.lit(" ") + pl.col("token") + pl.lit(" ")
    counts = counts.with_columns(
        spaced=answers.get_column("spaced").gather(rows),
        answer_tokens=answers.get_column("answer_tokens").gather(rows),
    ).with_columns(n_answer=pl.col("spaced").str.count_matches(needle, literal=True))
    precision = pl.col("shared") / pl.col("answer_tokens")
    recall = pl.col("shared") / pl.col("truth_tokens")
    best = (
        counts.lazy()
        .group_by("item")
        .agg(
            row=pl.col("row").first(),
            answer_tokens=pl.col("answer_tokens").first(),
            shared=pl.min_horizontal("n_truth", "n_answer").sum(),
            truth_tokens=pl.col("n_truth").sum(),
        )
        .select(
            "row",
            f1=pl.when(pl.col("shared") > 0).then(2 * precision * recall / (precision + recall)),
        )
        .group_by("row")
        .agg(pl.col("f1").max())
        .drop_nulls("f1")
        .collect()
    )
    scores = pl.zeros(height, dtype=pl.Float64, eager=True)  # nothing shared: 0
    if best.height:
        scores = scores.scatter(best.get_column("row"), best.get_column("f1"))
    return scores.alias(batch.name)


def f1(
    actual: IntoExpr,
    expected: IntoExpr | Sequence[str],
    *,
    threshold: float = 0.5,
    label: str | None = None,
    prefix: str = "",
    schema: Schema | None = None,
) -> pl.Expr:
    r"""Score answers by SQuAD token F1 against the expected answer(s).

    Both sides are normalised as the SQuAD v1.1 evaluation script does (lower case, ASCII
    punctuation and the articles a/an/the removed, white space collapsed) and split into
    tokens; F1 is the harmonic mean of the shared tokens' precision and recall (tokens counted
    with repetition), 0 when no token is shared, and the best over a row's expected answers.
    The row is right when ``f1 >= threshold``.

    Parameters
    ----------
    actual
        The answers: a column name or an expression (text; a null scores 0).
    expected
        The expected answers: a column name or expression of String or List(String) (the best
        of them counts); or a Python list of strings, the same for every row. A null, or a
        list with no answer in it, raises naming the row.
    threshold
        The F1 a row needs to be right, from 0 to 1.
    label
        Replaces the default description ``"token F1 ≥ {threshold}"``.
    prefix
        Put before each output name.
    schema
        The frame's schema, to check columns and dtypes now (the frame functions pass it).

    Returns
    -------
    pl.Expr
        A struct expression named ``prefix + "f1"`` with the fields ``correct``,
        ``expectation`` and ``f1`` (Float64, 0 to 1).

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "answer": ["The Eiffel Tower", "Eiffel", "in Paris, France", None],
    ...         "truth": [["Eiffel Tower"], ["Eiffel Tower"], ["Paris", "Paris, France"], ["x"]],
    ...     }
    ... )
    >>> df.grade.f1("answer", "truth").select("correct", "f1")
    shape: (4, 2)
    ┌─────────┬──────────┐
    │ correct ┆ f1       │
    │ ---     ┆ ---      │
    │ bool    ┆ f64      │
    ╞═════════╪══════════╡
    │ true    ┆ 1.0      │
    │ true    ┆ 0.666667 │
    │ true    ┆ 0.8      │
    │ false   ┆ 0.0      │
    └─────────┴──────────┘
    """
    if not _base.is_number(threshold):
        msg = f"`threshold` must be a number, got {type(threshold).__name__}: {threshold!r}"
        raise TypeError(msg)
    if not (math.isfinite(threshold) and 0 <= threshold <= 1):
        msg = f"`threshold` must be a number from 0 to 1, got {threshold!r}"
        raise ValueError(msg)
    arguments = {
        "actual": (actual, _base.into(actual, "actual")),
        "expected": _base.expected_argument(expected, "an expected answer"),
    }
    return _base.expression(
        F1,
        arguments,
        lambda inputs: _rule(inputs, float(threshold)),
        expectation=_base.expectation(label, f"token F1 ≥ {threshold}"),
        prefix=prefix,
        schema=schema,
    )


def _expected_answers(source: Input) -> pl.Expr:
    """Return the expected answers as List(String), checked row by row."""
    dtype = source.dtype
    if is_text(dtype) or dtype == pl.Null:
        text = as_text(source.expr, dtype) if dtype != pl.Null else source.expr.cast(pl.String)
        answers = pl.concat_list(text)
    elif isinstance(dtype, pl.List) and (is_text(dtype.inner) or dtype.inner == pl.Null):
        answers = source.expr.list.eval(pl.element().cast(pl.String))
    else:
        raise source.error("String or List(String)")
    usable = answers.list.agg(pl.element().is_not_null().any())
    problem = pl.when(answers.is_null() | ~usable).then(
        pl.lit("has no answer (null, or an empty list); every row needs one.")
    )
    return _base.check_rows(
        pl.struct(value=answers, problem=problem),
        matcher="f1",
        return_dtype=pl.List(pl.String),
    )


def _rule(inputs: dict[str, Input], threshold: float) -> pl.Expr:
    pair = pl.struct(actual=inputs["actual"].text(), expected=_expected_answers(inputs["expected"]))
    scores = pair.map_batches(_scores, return_dtype=pl.Float64, is_elementwise=True)
    stages = pl.struct(f1=scores)
    return stages.struct.with_fields(correct=(pl.field("f1") >= threshold).fill_null(value=False))


def with_f1(
    frame: Frame,
    actual: IntoExpr,
    expected: IntoExpr | Sequence[str],
    *,
    threshold: float = 0.5,
    label: str | None = None,
    prefix: str = "",
) -> Frame:
    """Add ``correct``, ``expectation`` and ``f1`` to a frame; see :func:`f1`."""
    return _base.frame_result(
        F1,
        frame,
        prefix,
        lambda schema: f1(
            actual, expected, threshold=threshold, label=label, prefix=prefix, schema=schema
        ),
    )
