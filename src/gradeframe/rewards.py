r"""Reward functions for reinforcement-learning trainers: a batch of completions graded at a time.

RL trainers score thousands of completions a step against gold answers. The functions here
take a trainer's batch as Python lists, put it in one Polars frame, and grade it with the same
rules as everywhere else, so their verdicts are those of the frame functions on the same inputs:

- :func:`accuracy_reward` has the signature of a TRL reward function (``GRPOTrainer(
  reward_funcs=[accuracy_reward])``): 1.0 or 0.0 per completion, or None where the gold answer
  cannot be read (TRL leaves a None reward out).
- :func:`compute_score` has the signature of verl's batch reward function
  (``reward_model.reward_manager=batch``): one dict per completion with ``score``, ``acc``,
  ``pred``, ``failure_kind`` and ``method``.
- :func:`answer_contains_reward` grades question answering by
  :func:`gradeframe.answer_contains`'s rules.

How a math completion is graded
-------------------------------
Its answer is the content of its last ``\boxed{...}`` (:func:`gradeframe.extract_boxed`), else
the text after its last ``Answer:`` line (:func:`gradeframe.extract_answer`); a completion with
neither has no answer (``failure_kind`` ``"parse_failure"``, reward 0.0). The answer is graded
against the gold with :func:`gradeframe.equivalent` at its defaults: literals compared exactly
as column operations, any other pair decided once per distinct pair by the symbolic engine
(Math-Verify) in worker processes killed after 5 seconds, when the ``math`` extra is installed
(else ``fallback=None``: folded texts compared). No signal is used, so a call never hangs and
works from any thread.

When a gold answer cannot be read
---------------------------------
A gold answer *cannot be read* when it is null (None, NaN or an infinite number), blank, or, with
the symbolic engine, neither a literal nor text the engine reads: the engine finds the gold
``"unparsed"`` against itself (each distinct gold is graded against itself in the same call, so
one more engine pair per distinct non-literal gold). Such a completion gets the reward None from
:func:`accuracy_reward` and, from :func:`compute_score` (verl needs a number), ``score`` 0.0,
``acc`` False, ``failure_kind`` ``"no_reference"`` and ``method`` None (the row was not graded).
Without the engine a non-blank gold is always read (``fallback=None`` compares texts).

A graded row's ``failure_kind`` is None when it is right, ``"parse_failure"`` when the completion
has no answer in the expected form (or is None), and ``"wrong"`` otherwise; its ``method`` is
:func:`gradeframe.equivalent`'s (``"literal"``, ``"symbolic"``, ``"timeout"``, ``"unparsed"``
or ``"text"``).

Completions
-----------
A completion is a string (a standard-format TRL completion), None (no answer), or a
conversation: a list of ``{"role", "content"}`` messages (TRL's conversational format) whose last
``"assistant"`` message is read (None when it has none). A message's content is a string, or a
list of parts whose ``"text"`` parts are joined with new lines. A gold is a string or a number
(an int as written; a float in its shortest round-trip form, as Polars writes it).

Every function accepts and ignores other keyword arguments: TRL passes the batch's other dataset
columns (and ``prompts``, ``completion_ids``, ``trainer_state``) to every reward function, and
verl its ``reward_kwargs``.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Sequence
from decimal import Decimal
from typing import Any, Final

import polars as pl

from gradeframe._inputs import lone_surrogate, surrogate_error
from gradeframe._threads import one_at_a_time
from gradeframe.extract import extract_answer, extract_boxed
from gradeframe.kinds import NO_REFERENCE, PARSE_FAILURE, WRONG

__all__ = ["accuracy_reward", "answer_contains_reward", "compute_score"]

#: The role of the message read from a conversational completion.
ASSISTANT: Final = "assistant"


# --------------------------------------------------------------------------------------------
# Reading the trainer's lists (the input's shape, not a grading rule)
# --------------------------------------------------------------------------------------------


def _content(message: object, where: str) -> str | None:
    """Return a message's content as text (parts' texts joined), or None."""
    if not isinstance(message, dict):
        msg = f"{where}: a conversation holds messages (dicts), got {type(message).__name__}"
        raise TypeError(msg)
    content = message.get("content")
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [
            part["text"]
            for part in content
            if isinstance(part, dict)
            and part.get("type", "text") == "text"
            and isinstance(part.get("text"), str)
        ]
        return "\n".join(texts) if texts else None
    msg = f"{where}: a message's content is text or a list of parts, got {type(content).__name__}"
    raise TypeError(msg)


def _completion_texts(completions: Sequence[Any]) -> list[str | None]:
    """Return each completion's text: a string, or a conversation's last assistant message."""
    texts: list[str | None] = []
    for i, completion in enumerate(completions):
        if completion is None or isinstance(completion, str):
            texts.append(completion)
        elif isinstance(completion, list | tuple):
            where = f"completions[{i}]"
            for message in completion:
                if not isinstance(message, dict):
                    msg = (
                        f"{where}: a conversation holds messages (dicts with 'role' and "
                        f"'content'), got {type(message).__name__}: {message!r}"
                    )
                    raise TypeError(msg)
            assistant = [m for m in completion if m.get("role") == ASSISTANT]
            texts.append(_content(assistant[-1], where) if assistant else None)
        elif isinstance(completion, dict):
            texts.append(_content(completion, f"completions[{i}]"))
        else:
            msg = (
                f"completions[{i}] must be a string, a list of messages or None, "
                f"got {type(completion).__name__}: {completion!r}"
            )
            raise TypeError(msg)
    return texts


def _gold_text(value: object, where: str) -> str | None:
    """Return a gold answer as text (None for null, NaN and infinite numbers)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        msg = f"{where} must be a string or a number, got bool: {value!r}"
        raise TypeError(msg)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal):
        return str(value) if value.is_finite() else None
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else None
    # numpy scalars and the like: their Python value
    item = getattr(value, "item", None)
    if callable(item):
        return _gold_text(item(), where)
    msg = f"{where} must be a string or a number, got {type(value).__name__}: {value!r}"
    raise TypeError(msg)


def _series(name: str, values: list[Any], dtype: Any, argument: str) -> pl.Series:
    """Build a column of the trainer's values; text with a lone surrogate is named by index."""
    try:
        return pl.Series(name, values, dtype=dtype)
    except UnicodeEncodeError:
        for i, value in enumerate(values):
            for text in value if isinstance(value, list) else [value]:
                at = lone_surrogate(text) if isinstance(text, str) else None
                if at is not None:
                    raise surrogate_error(f"{argument}[{i}]", text, at) from None
        raise


def _check_lengths(completions: Sequence[Any], golds: Sequence[Any], name: str) -> None:
    if len(completions) != len(golds):
        msg = (
            f"`completions` and `{name}` must have the same length, "
            f"got {len(completions)} and {len(golds)}"
        )
        raise ValueError(msg)


# --------------------------------------------------------------------------------------------
# Grading a batch of math completions: one frame
# --------------------------------------------------------------------------------------------


def _fallback() -> str | None:
    """Return the symbolic engine when the ``math`` extra is installed, else text comparison."""
    return "symbolic" if importlib.util.find_spec("math_verify") is not None else None


def answers(texts: pl.Expr) -> pl.Expr:
    r"""Read a completion's answer: its last ``\boxed{}``, else its last ``Answer:`` line.

    Parameters
    ----------
    texts
        A String expression of completions.

    Returns
    -------
    pl.Expr
        A String expression: null where a completion holds neither.

    Examples
    --------
    >>> import polars as pl
    >>> s = pl.Series(["so \\boxed{12}.", "Answer: 7", "The answer is 7", None])
    >>> pl.DataFrame({"reply": s}).select(answers(pl.col("reply"))).to_series().to_list()
    ['12', '7', None, None]
    """
    return pl.coalesce(extract_boxed(texts), extract_answer(texts))


@one_at_a_time
def _graded(completions: Sequence[Any], golds: Sequence[Any]) -> pl.DataFrame:
    """Grade a batch: ``pred``, ``readable``, ``correct`` and ``method`` per completion."""
    _check_lengths(completions, golds, "solution")
    frame = pl.DataFrame(
        {
            "completion": _series(
                "completion", _completion_texts(completions), pl.String, "completions"
            ),
            "gold": _series(
                "gold",
                [_gold_text(g, f"solution[{i}]") for i, g in enumerate(golds)],
                pl.String,
                "solution",
            ),
        }
    ).with_row_index("row")
    frame = frame.with_columns(
        pred=answers(pl.col("completion")),
        usable=pl.col("gold").str.strip_chars().ne("").fill_null(value=False),
    )
    usable = frame.filter("usable")
    # Each distinct gold against itself, in the same call: a gold the engine cannot read is
    # "unparsed" against itself (a literal gold is decided by column operations at no cost).
    own = usable.select(
        pl.lit(None, usable.schema["row"]).alias("row"), pl.col("gold").alias("pred"), "gold"
    )
    stacked = pl.concat([usable.select("row", "pred", "gold"), own.unique(maintain_order=True)])
    graded = stacked.grade.equivalent("pred", "gold", fallback=_fallback())
    readable = graded.filter(pl.col("row").is_null()).select(
        "gold", readable=pl.col("method") != "unparsed"
    )
    verdicts = graded.filter(pl.col("row").is_not_null()).select("row", "correct", "method")
    out = frame.join(verdicts, on="row", how="left", maintain_order="left").join(
        readable, on="gold", how="left", maintain_order="left", nulls_equal=False
    )
    readable_gold = pl.col("usable") & pl.col("readable").fill_null(value=False)
    return out.select(
        "pred",
        readable=readable_gold,
        correct=pl.when(readable_gold).then(pl.col("correct")),
        method=pl.when(readable_gold).then(pl.col("method")),
        failure_kind=pl.when(~readable_gold)
        .then(pl.lit(NO_REFERENCE))
        .when(pl.col("correct"))
        .then(pl.lit(None, pl.String))
        .when(pl.col("pred").is_null())
        .then(pl.lit(PARSE_FAILURE))
        .otherwise(pl.lit(WRONG)),
    )


def accuracy_reward(
    completions: Sequence[Any], solution: Sequence[Any], **kwargs: Any
) -> list[float | None]:
    r"""Reward each completion 1.0 when its answer equals the gold answer, else 0.0.

    A TRL reward function (``GRPOTrainer(reward_funcs=[accuracy_reward])``). Each completion's
    answer is its last ``\boxed{...}``, else its last ``Answer:`` line, graded against its gold
    with :func:`gradeframe.equivalent` (the symbolic engine for pairs that are not two literals
    when the ``math`` extra is installed, once per distinct pair, each in a worker killed after
    5 seconds). The whole batch is one Polars frame; no signal is used, so it works from any
    thread.

    Parameters
    ----------
    completions
        Strings, or conversations (lists of ``{"role", "content"}`` messages) whose last
        assistant message is read; None is a completion without an answer.
    solution
        The gold answers, one per completion: strings or numbers.
    **kwargs
        Ignored (TRL passes the batch's other columns).

    Returns
    -------
    list of float or None
        1.0 or 0.0 per completion, in order; None where the gold cannot be read (null, blank,
        or, with the engine, unreadable by it), which TRL leaves out of the reward.

    Examples
    --------
    >>> from gradeframe.rewards import accuracy_reward
    >>> completions = [
    ...     "... so the total is \\boxed{\\frac{1}{2}}.",
    ...     [{"role": "assistant", "content": "Answer: 0.5"}],
    ...     "I think it is \\boxed{0.4999}",
    ...     "No idea.",
    ...     "\\boxed{3}",
    ... ]
    >>> accuracy_reward(completions, ["0.5", "1/2", "1/2", "1/2", None])
    [1.0, 1.0, 0.0, 0.0, None]
    """
    graded = _graded(completions, solution)
    return [
        None if not readable else float(bool(correct))
        for readable, correct in zip(graded["readable"], graded["correct"], strict=True)
    ]


def compute_score(
    data_sources: Sequence[Any],
    solution_strs: Sequence[Any],
    ground_truths: Sequence[Any],
    extra_infos: Sequence[Any] | None = None,
    **kwargs: Any,
) -> list[dict[str, Any]]:
    r"""Score a batch of completions for verl's batch reward manager.

    verl calls it with the batch's data sources, decoded completions and ground truths
    (``reward_model.reward_manager=batch`` and ``custom_reward_function.name=compute_score``).
    Completions are read and graded as by :func:`accuracy_reward`.

    Parameters
    ----------
    data_sources
        One per completion (not used: every row is graded as a math answer).
    solution_strs
        The completions (strings, or conversations as for :func:`accuracy_reward`).
    ground_truths
        The gold answers, one per completion.
    extra_infos
        Not used.
    **kwargs
        Ignored (verl's ``reward_kwargs``).

    Returns
    -------
    list of dict
        Per completion, in order: ``score`` (1.0 or 0.0), ``acc`` (bool), ``pred`` (the
        extracted answer, or None), ``failure_kind`` (None when right; ``"parse_failure"``,
        ``"wrong"``, or ``"no_reference"`` when the gold cannot be read) and ``method`` (how
        :func:`gradeframe.equivalent` decided; None when the row was not graded).

    Examples
    --------
    >>> from gradeframe.rewards import compute_score
    >>> rows = compute_score(["math"] * 3, ["\\boxed{12}", "13", "x"], ["12", "12", ""])
    >>> for row in rows:
    ...     print(row["score"], row["acc"], row["pred"], row["failure_kind"], row["method"])
    1.0 True 12 None literal
    0.0 False None parse_failure unparsed
    0.0 False None no_reference None
    """
    if len(data_sources) != len(solution_strs):
        msg = (
            "`data_sources` and `solution_strs` must have the same length, "
            f"got {len(data_sources)} and {len(solution_strs)}"
        )
        raise ValueError(msg)
    graded = _graded(solution_strs, ground_truths)
    return [
        {
            "score": 1.0 if correct else 0.0,
            "acc": bool(correct),
            "pred": pred,
            "failure_kind": kind,
            "method": method,
        }
        for pred, correct, kind, method in zip(
            graded["pred"],
            graded["correct"],
            graded["failure_kind"],
            graded["method"],
            strict=True,
        )
    ]


# --------------------------------------------------------------------------------------------
# Question answering: answer_contains
# --------------------------------------------------------------------------------------------


def _refs_column(refs: Sequence[Any]) -> pl.Series:
    """Return the acceptable answers as one column: text, a list of texts, or numbers."""
    values = list(refs)
    if any(isinstance(v, list | tuple) for v in values):
        lists: list[list[str] | None] = []
        for i, v in enumerate(values):
            if v is None:
                lists.append(None)
            elif isinstance(v, str):
                lists.append([v])
            elif isinstance(v, list | tuple) and all(isinstance(x, str) or x is None for x in v):
                lists.append(list(v))
            else:
                msg = f"refs[{i}] must be a string, a list of strings or None, got {v!r}"
                raise TypeError(msg)
        return _series("refs", lists, pl.List(pl.String), "refs")
    if (
        values
        and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in values if v is not None
        )
        and any(v is not None for v in values)
    ):
        return pl.Series("refs", values, dtype=pl.Float64)
    for i, v in enumerate(values):
        if v is not None and not isinstance(v, str):
            msg = (
                f"refs[{i}] must be a string, a list of strings or None (or every ref a "
                f"number), got {type(v).__name__}: {v!r}"
            )
            raise TypeError(msg)
    return _series("refs", values, pl.String, "refs")


@one_at_a_time
def answer_contains_reward(
    completions: Sequence[Any], refs: Sequence[Any], **kwargs: Any
) -> list[float]:
    """Reward each completion 1.0 when it contains an acceptable answer, else 0.0.

    The rules of :func:`gradeframe.answer_contains` (folded text, numbers matched whole,
    not-found reports right only for unanswerable items), on the whole completion (no
    extraction). A completion without a usable acceptable answer (``no_reference``) gets 0.0.

    Parameters
    ----------
    completions
        Strings, or conversations whose last assistant message is read (as for
        :func:`accuracy_reward`).
    refs
        The acceptable answers, one entry per completion: a string (a JSON array of strings
        is a list, as everywhere), a list of strings, or None; or every entry a number.
    **kwargs
        Ignored (a TRL reward function gets the batch's other columns).

    Returns
    -------
    list of float
        1.0 or 0.0 per completion, in order.

    Examples
    --------
    >>> from gradeframe.rewards import answer_contains_reward
    >>> answer_contains_reward(
    ...     ["It opened in 1987.", "About 12,400 people.", "2012"],
    ...     [["1987", "nineteen eighty-seven"], "12400", "12"],
    ... )
    [1.0, 1.0, 0.0]
    """
    _check_lengths(completions, refs, "refs")
    frame = pl.DataFrame(
        {
            "answer": _series("answer", _completion_texts(completions), pl.String, "completions"),
            "refs": _refs_column(refs),
        }
    )
    graded = frame.grade.answer_contains("answer", "refs")
    return graded.get_column("correct").cast(pl.Float64).to_list()
