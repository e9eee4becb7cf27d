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
the expected answers' tokens are exploded and counted with a group-by; the answers are never
split, each expected token is looked for in its answer's text by literal searches, and the
answer's tokens are counted by a regex only where one is shared (see :func:`_scores`). The
string passes run on the batch cut into one chunk per Polars thread, since Polars runs a
string kernel on the chunks of a column in parallel.
"""

from __future__ import annotations

import math
import string
from collections.abc import Sequence
from typing import Final

import polars as pl

from gradeframe._inputs import IntoExpr, Schema, as_text, is_text
from gradeframe.matchers import _base
from gradeframe.matchers._base import Input

__all__ = ["F1", "F1_COLUMNS", "f1", "squad_tokens", "with_f1"]

F1: Final = _base.matcher("f1", {"actual": "text", "expected": "refs"}, f1=pl.Float64())
#: The columns f1 adds, before ``prefix``.
F1_COLUMNS: Final = F1.columns

#: Python's ``string.punctuation``: the ASCII characters ``!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~``.
_PUNCTUATION: Final = list(string.punctuation)
#: An article as SQuAD's ``\b(a|an|the)\b`` finds it, with the characters around it kept
#: (groups 1 and 2). Python's ``\b`` is a boundary with a word character on one side only,
#: a word character being a letter, a number (also "½", "²") or "_"; Rust's ``\b`` counts
#: combining marks as word characters and "½" as not, so the boundary is spelled out. The
#: characters around are matched, not looked at, so two articles one character apart take two
#: passes (:func:`_drop_articles`).
_ARTICLES_RE: Final = r"(^|[^\p{L}\p{N}_])(?:a|an|the)($|[^\p{L}\p{N}_])"
_ARTICLES: Final = ("a", "an", "the")
#: What Python's ``str.split()`` splits on: Unicode white space and the separators U+001C-1F.
_WHITE_SPACE_RE: Final = r"[\s\x1c-\x1f]"
#: The same, but for the plain space (a text's spaces are left as they are).
_OTHER_WHITE_SPACE_RE: Final = r"[[\s\x1c-\x1f]&&[^ ]]"
#: A character that makes a lower-case, punctuation-free text not *plain*: a plain text holds
#: lower-case ASCII letters, digits and spaces only, so its words are its tokens.
_NOT_PLAIN_RE: Final = r"[^a-z0-9 ]"
#: In a plain text: an article after a space, as a whole word; and one that starts the text.
_ARTICLE_AFTER_SPACE_RE: Final = r" (?:a|an|the)(?-u:\b)"
_ARTICLE_FIRST_RE: Final = r"^(?:a|an|the)(?-u:\b)"


def _drop_articles(text: pl.Expr) -> pl.Expr:
    """Replace each article of a text by a space, as SQuAD's ``remove_articles`` does."""
    for _ in range(2):  # the second pass takes the articles the first one's context hid
        text = text.str.replace_all(_ARTICLES_RE, "${1} ${2}")
    return text


def squad_tokens(text: pl.Expr) -> pl.Expr:
    """SQuAD's normalised tokens of a text, as a List(String) (the expression form).

    >>> import polars as pl
    >>> from gradeframe.matchers.f1 import squad_tokens
    >>> pl.select(squad_tokens(pl.lit("The Eiffel-Tower, in  Paris!"))).item().to_list()
    ['eiffeltower', 'in', 'paris']
    """
    normal = _drop_articles(_stripped(text)).str.replace_all(_WHITE_SPACE_RE, " ")
    return normal.str.split(" ").list.eval(pl.element().filter(pl.element() != ""))


def _stripped(text: pl.Expr) -> pl.Expr:
    r"""Lower-case a text and remove its ASCII punctuation: SQuAD's first two steps.

    ``replace_many`` (one Aho-Corasick pass) removes the punctuation characters about a fifth
    faster than the regex ``[!-/:-@\[-`{-~]+`` does, for the same text.
    """
    return text.str.to_lowercase().str.replace_many(_PUNCTUATION, [""] * len(_PUNCTUATION))


def _finish(texts: pl.DataFrame) -> pl.DataFrame:
    """Finish SQuAD's normalisation of lower-cased, punctuation-free texts (column ``text``).

    Returns the frame with ``text`` normal (its tokens apart by spaces, one or more) and
    ``plain``: whether it was lower-case ASCII letters, digits and spaces only. A plain text is
    already normal: its words are its tokens, an article among them being a token to leave
    out. Only the others get the article and white-space regexes, and are put back at their
    positions.
    """
    texts = _base.in_chunks(texts).with_columns(plain=~pl.col("text").str.contains(_NOT_PLAIN_RE))
    slow = texts.get_column("plain").not_().arg_true()
    if slow.len():
        fixed = _base.in_chunks(texts.select(pl.col("text").gather(slow))).select(
            _drop_articles(pl.col("text")).str.replace_all(_OTHER_WHITE_SPACE_RE, " ")
        )
        texts = texts.with_columns(texts.get_column("text").scatter(slow, fixed.to_series()))
    return texts


def _normal(text: pl.Series) -> pl.Series:
    """Normalise a text Series as SQuAD does, up to the split: tokens apart by spaces."""
    return _finish(text.to_frame().select(text=_stripped(pl.first()))).get_column("text")


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


def _answer_tokens(texts: pl.DataFrame) -> pl.Series:
    """Count the SQuAD tokens of normal texts (the frame of :func:`_finish`), articles out.

    A token starts at each character other than a space that follows a space or starts the
    text. Only a plain text still holds articles, each a whole word (the others lost theirs).
    """
    text = pl.col("text")
    words = text.str.count_matches(" [^ ]") + text.str.contains("^[^ ]")
    articles = text.str.count_matches(_ARTICLE_AFTER_SPACE_RE) + text.str.contains(
        _ARTICLE_FIRST_RE
    )
    return (
        _base.in_chunks(texts)
        .select(pl.when("plain").then(words - articles).otherwise(words))
        .to_series()
    )


def _positions(values: pl.Series, size: int) -> pl.Series:
    """Return, at each distinct value (an index below ``size``), its position in ``values``."""
    positions = pl.int_range(values.len(), dtype=pl.UInt32, eager=True)
    return pl.zeros(size, dtype=pl.UInt32, eager=True).scatter(values, positions)


def _truth_table(items: pl.DataFrame) -> pl.DataFrame:
    """Return each distinct expected answer's tokens, counted, and the needles that find them."""
    # Expected answers repeat (across models and runs): each distinct one is tokenised and
    # counted once, and the items take their counts by a join.
    distinct = items.select(pl.col("text").unique()).with_columns(normal=pl.col("text"))
    # Each token also as the needles that find it as a whole word of a text: " token " inside
    # it, "token " at its start, " token" at its end.
    token = pl.col("token")
    return (
        _tokens(distinct, "normal", ["text"])
        .group_by("text", "token")
        .agg(n_truth=pl.len())
        .with_columns(
            word=pl.lit(" ") + token + pl.lit(" "),
            head=token + pl.lit(" "),
            tail=pl.lit(" ") + token,
            truth_tokens=pl.col("n_truth").sum().over("text"),
        )
    ).collect()


def _shared(pairs: pl.DataFrame) -> pl.DataFrame:
    """Return, per item, the tokens it shares with its answer (SQuAD's ``Counter`` intersection).

    A token the expected answer holds once counts once if it is a whole word of the answer; one
    it holds n times counts up to n. Items that share none are left out.
    """
    token = pl.col("token")
    text, word = pl.col("text"), pl.col("word")
    whole_word = (
        text.str.contains(word, literal=True)
        | text.str.starts_with(pl.col("head"))
        | text.str.ends_with(pl.col("tail"))
        | (text == token)
    )
    spaced = pl.lit("  ") + text.str.replace_all(" ", "  ", literal=True) + pl.lit("  ")
    columns = ("item", "row", "at", "n_truth", "truth_tokens")
    once = (
        pairs.lazy()
        .filter(pl.col("n_truth") == 1)
        .filter(whole_word)
        .select(*columns, n_answer=pl.lit(1, pl.UInt32))
    )
    more = (
        pairs.lazy()
        .filter(pl.col("n_truth") > 1)
        .select(*columns, n_answer=spaced.str.count_matches(word, literal=True))
        .cast({"n_answer": pl.UInt32})
    )
    return (
        pl.concat([once, more])
        .group_by("item")
        .agg(
            pl.col("row", "at", "truth_tokens").first(),
            shared=pl.min_horizontal("n_truth", "n_answer").sum(),
        )
        .filter(pl.col("shared") > 0)
        .collect()
    )


def _scores(batch: pl.Series) -> pl.Series:
    """Return the best SQuAD F1 of each row: ``actual`` against ``expected`` (a list).

    The answers are lower-cased and their punctuation removed (:func:`_stripped`). They are
    never split into tokens: only the expected answers' tokens (a few per row) are exploded,
    and each is looked for in its answer's text.

    1. A token can only be one of the answer's tokens if it is in its text: the (row, token)
       pairs that are not are dropped by one literal search, and only the answers left are
       normalised to the end (:func:`_finish`).
    2. A token that the expected answer holds once counts once if it is a whole word of the
       answer (bounded by spaces or the ends); one it holds n times counts up to n, counted in
       the answer with every space doubled (so that the searches for " token " never
       overlap). The shared count is the sum, as SQuAD's ``Counter`` intersection.
    3. The answer's tokens are counted only for the rows that share one (F1 is 0 otherwise).
    """
    frame = batch.struct.unnest()
    height = frame.height
    # Polars runs a string kernel on the chunks of a column in parallel (in a select; a Series
    # method runs them one after another), and a column built by a gather is one chunk: every
    # frame the string passes below read is cut into one chunk per thread first.
    stripped = _base.in_chunks(frame).select(_stripped(pl.col("actual"))).to_series()
    items = (
        frame.lazy()
        .select(text="expected")
        .with_row_index("row")
        .explode("text")
        .filter(pl.col("text").is_not_null())
        .with_row_index("item")
        .collect()
    )
    table = _truth_table(items)
    pairs = (
        items.lazy()
        .join(table.lazy(), on="text", how="inner")
        .select("item", "row", "token", "word", "head", "tail", "n_truth", "truth_tokens")
        .collect()
    )
    # 1. Only the pairs whose token is in the answer's text, and those answers normalised.
    pairs = _base.in_chunks(
        pairs.with_columns(text=stripped.gather(pairs.get_column("row")))
    ).filter(pl.col("text").str.contains(pl.col("token"), literal=True))
    rows = pairs.get_column("row").unique()
    texts = _finish(pl.DataFrame({"text": stripped.gather(rows)}))
    # Each pair's answer by its position ("at") among those answers.
    at = _positions(rows, height).gather(pairs.get_column("row"))
    pairs = _base.in_chunks(pairs.with_columns(at=at, text=texts.get_column("text").gather(at)))
    shared = _shared(pairs)  # 2. How many times each token counts.
    if not shared.height:
        return pl.zeros(height, dtype=pl.Float64, eager=True).alias(batch.name)
    # 3. The answer's tokens, for the rows that share one.
    need = shared.get_column("at").unique()
    answer_tokens = _answer_tokens(texts.select(pl.all().gather(need)))
    at = _positions(need, texts.height).gather(shared.get_column("at"))
    precision = pl.col("shared") / pl.col("answer_tokens")
    recall = pl.col("shared") / pl.col("truth_tokens")
    best = (
        shared.lazy()
        .with_columns(answer_tokens=answer_tokens.gather(at))
        .select("row", f1=2 * precision * recall / (precision + recall))
        .group_by("row")
        .agg(pl.col("f1").max())
        .collect()
    )
    scores = pl.zeros(height, dtype=pl.Float64, eager=True)  # nothing shared: 0
    scores = scores.scatter(best.get_column("row"), best.get_column("f1"))
    return scores.alias(batch.name)


@_base.shares_parameters
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
        answers = source.expr.cast(pl.List(pl.String))
    else:
        raise source.error("String or List(String)")
    # A struct field, so that the answers (maybe a costly expression) are computed once.
    value = pl.field("value")
    usable = value.list.agg(pl.element().is_not_null().any())
    problem = pl.when(value.is_null() | ~usable).then(
        pl.lit("has no answer (null, or an empty list); every row needs one.")
    )
    return _base.check_rows(
        pl.struct(value=answers).struct.with_fields(problem=problem),
        matcher="f1",
        return_dtype=pl.List(pl.String),
    )


def _rule(inputs: dict[str, Input], threshold: float) -> pl.Expr:
    pair = pl.struct(actual=inputs["actual"].text(), expected=_expected_answers(inputs["expected"]))
    scores = pair.map_batches(_scores, return_dtype=pl.Float64, is_elementwise=True)
    stages = pl.struct(f1=scores)
    return stages.struct.with_fields(correct=(pl.field("f1") >= threshold).fill_null(value=False))


with_f1 = _base.frame_function(
    F1.columns,
    f1,
    "Add ``correct``, ``expectation`` and ``f1`` to a frame; see :func:`f1`.",
)
