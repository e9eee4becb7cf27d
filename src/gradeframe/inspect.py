r"""gradeframe's rules as inspect_ai scorers, at eval time and on finished logs.

Needs ``inspect_ai`` (``pip install 'gradeframe[inspect]'``); ``import gradeframe`` does not
import this module. Each scorer reads the sample as :func:`gradeframe.read_inspect` reads a
log's sample (the completion, the targets, the stop reasons of the model calls, a message,
turn, token or cost limit, an error), through the same code
(:func:`gradeframe.logs.inspect.read_samples`), grades it with the same Polars rules as the
frame methods, and returns an inspect ``Score``:

- ``value``: ``CORRECT`` or ``INCORRECT``;
- ``answer``: the text graded;
- ``explanation``: a sentence a person reads in ``inspect view``, naming the failure kind
  ("wrong: 45.2 occurs in the answer only inside a longer number or word");
- ``metadata``: ``failure_kind`` (null when right) and ``outcome`` (the folded answer), and the
  matcher's own columns (``chosen``, ``f1``, ``missing``, ...).

Their metrics are inspect's ``accuracy()`` and ``stderr()``, and ``failure_kinds()``: the share
of samples of each failure kind.

inspect hands a scorer one sample at a time. Grading one row costs a few milliseconds of fixed
Polars overhead, so the samples that reach a scorer together (``inspect score`` starts them all
at once; an evaluation finishes them as they come) are graded as one batch: each call waits
until no further sample has arrived for a moment, then the batch is graded in one call and every
waiting sample gets its own score.

The scorers are registered with inspect through the ``inspect_ai`` entry point of the
package, so ``inspect score LOG --scorer gradeframe/answer_contains`` re-grades a finished log
without writing code.

Examples
--------
>>> from inspect_ai import Task  # doctest: +SKIP
>>> import gradeframe.inspect as gi  # doctest: +SKIP
>>> Task(dataset=..., solver=..., scorer=gi.answer_contains())  # doctest: +SKIP
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final

import anyio
import polars as pl
from inspect_ai.log import transcript
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    accuracy,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

import gradeframe  # noqa: F401  (registers .grade)
from gradeframe._limits import CUT_MARK, max_metadata_length
from gradeframe.answer import with_answer_contains
from gradeframe.kinds import GRADER_FAILURE, KINDS, NO_REFERENCE, WRONG
from gradeframe.logs.inspect import read_samples
from gradeframe.verdict import with_judge

__all__ = [
    "answer_contains",
    "choice",
    "equivalent",
    "exact_match",
    "f1",
    "failure_kinds",
    "includes",
    "verdict",
    "within",
]

#: How long a batch waits for one more sample before it is graded (seconds).
BATCH_WAIT: Final = 0.005

#: An acceptable answer no answer holds: grading with it gives the failure kind of a row whose
#: answer holds no acceptable answer (how a matcher's failure is explained by the same chain).
_NEVER: Final = "\U0010fffd\U0010fffe gradeframe: never found"

#: inspect's ``Score.reason`` for the kinds that are not a plain wrong answer: its standard
#: reasons where one fits, else the kind's name (inspect allows any string).
_REASON: Final = {
    "refusal": "refusal",
    "parse_failure": "no_response",
    "budget_stop": "budget_stop",
    "error": "error",
    "not_in_document": "not_in_document",
    "no_reference": "no_reference",
}

#: What each failure kind means, for the explanation.
_MEANING: Final = {
    "no_reference": "the sample has no usable target",
    "error": "the sample failed with an error",
    "budget_stop": "a limit stopped the run before it finished",
    "refusal": "the model refused (a refusal or content-filter stop)",
    "parse_failure": "there is no answer text",
    "not_in_document": "the answer says the document does not hold the answer",
    "wrong": "the answer does not hold an acceptable answer",
}


# --------------------------------------------------------------------------------------------
# Metrics
# --------------------------------------------------------------------------------------------


@metric(scores="unreduced")
def failure_kinds() -> Metric:
    """Return the share of samples (each epoch counted) of each failure kind.

    One value per kind of :data:`gradeframe.KINDS` (0 when none), from the scores' metadata.
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        kinds = [(s.score.metadata or {}).get("failure_kind") for s in scores]
        n = len(kinds)
        names = [*KINDS, *([GRADER_FAILURE] if GRADER_FAILURE in kinds else [])]
        return {kind: (sum(k == kind for k in kinds) / n if n else 0.0) for kind in names}

    return compute


_METRICS: Final = [accuracy(), stderr(), failure_kinds()]


# --------------------------------------------------------------------------------------------
# A sample, as read_inspect reads it
# --------------------------------------------------------------------------------------------


def _stops(output: Any) -> list[dict[str, Any]]:
    return [{"stop_reason": c.stop_reason} for c in (getattr(output, "choices", None) or [])]


def sample_record(state: TaskState, target: Target) -> dict[str, Any]:
    """Return the sample as inspect writes it in a log (the fields ``read_inspect`` reads).

    The limit, the error and the stop reasons of the model calls come from the sample's
    transcript (its ``sample_limit``, ``error`` and ``model`` events), as they do in a log.
    """
    events: list[dict[str, Any]] = []
    limit: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    for event in transcript().events:
        kind = getattr(event, "event", None)
        if kind == "model":
            output = getattr(event, "output", None)
            events.append({"event": "model", "output": {"choices": _stops(output)}})
        elif kind == "sample_limit":
            limit = {"type": getattr(event, "type", None)}
        elif kind == "error":
            failure = getattr(event, "error", None)
            error = {"message": getattr(failure, "message", None) or str(failure)}
    scores = {
        name: {"value": s.value, "answer": s.answer, "explanation": s.explanation}
        for name, s in (state.scores or {}).items()
    }
    output = state.output
    return {
        "id": state.sample_id,
        "epoch": state.epoch,
        "input": state.input_text,
        "target": list(target.target),
        "choices": [c.value for c in state.choices] if len(state.choices) else None,
        "output": {"completion": output.completion, "choices": _stops(output)},
        "events": events,
        "limit": limit,
        "error": error,
        "scores": scores or None,
        "uuid": state.uuid,
    }


# --------------------------------------------------------------------------------------------
# Batches
# --------------------------------------------------------------------------------------------

Grade = Callable[[pl.DataFrame], list[Score]]


class _Batcher:
    """Collect the samples that reach a scorer together and grade them in one call."""

    def __init__(self, grade: Grade) -> None:
        self._grade = grade
        self._waiting: list[tuple[dict[str, Any], str, list[Any], anyio.Event]] = []

    async def score(self, record: dict[str, Any], model: str) -> Score:
        slot: list[Any] = []
        done = anyio.Event()
        self._waiting.append((record, model, slot, done))
        if len(self._waiting) == 1:  # the first of a batch leads it
            await self._lead()
        else:
            await done.wait()
        result = slot[0]
        if isinstance(result, BaseException):
            raise result
        return result

    async def _lead(self) -> None:
        seen = -1
        while len(self._waiting) != seen:  # wait until no more samples arrive
            seen = len(self._waiting)
            await anyio.sleep(BATCH_WAIT)
        batch, self._waiting = self._waiting, []
        # one call per model under test (its token counts are the model's own), in batch order
        for model in dict.fromkeys(model for _, model, _, _ in batch):
            part = [entry for entry in batch if entry[1] == model]
            scores = self._graded([record for record, _, _, _ in part], model)
            for (_, _, slot, done), result in zip(part, scores, strict=True):
                slot.append(result)
                done.set()

    def _graded(self, records: list[dict[str, Any]], model: str) -> list[Any]:
        """Grade samples in one call; if the call fails, grade each half apart.

        So a sample that cannot be graded fails alone (its error names it) and every other
        sample of the batch gets its score: the halving costs a few more calls only when a
        call fails.
        """
        try:
            return self._grade(read_samples(records, model=model))
        except Exception as exc:
            if len(records) == 1:
                return [_sample_error(records[0], exc)]
        half = len(records) // 2
        return self._graded(records[:half], model) + self._graded(records[half:], model)


def _sample_name(record: dict[str, Any]) -> str:
    return f"sample {record.get('id')!r} (epoch {record.get('epoch')})"


def _sample_error(record: dict[str, Any], exc: Exception) -> Exception:
    """Return the error of one sample that could not be graded, naming the sample."""
    error = RuntimeError(f"gradeframe could not grade {_sample_name(record)}: {exc}")
    error.__cause__ = exc
    return error


def _scorer(grade: Grade) -> Callable[[TaskState, Target], Awaitable[Score]]:
    batcher = _Batcher(grade)

    async def score(state: TaskState, target: Target) -> Score:
        return await batcher.score(sample_record(state, target), str(state.model))

    return score


# --------------------------------------------------------------------------------------------
# Scores from a graded frame
# --------------------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """Return a metadata value inspect can write: NaN as None, lists and dicts kept."""
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _cut(text: str) -> str:
    """Return a target as the explanation shows it: cut to gradeframe.MAX_METADATA_LENGTH."""
    length = max_metadata_length()
    return text if len(text) <= length else text[: length - len(CUT_MARK)] + CUT_MARK


def _explanation(row: dict[str, Any]) -> str:
    kind = row["failure_kind"]
    if kind is None:
        matched = row.get("matched")
        return f"right: {matched} is in the answer" if matched else "right"
    near = row.get("near_miss")
    if kind == WRONG and near:
        return f"wrong: {near} occurs in the answer only inside a longer number or word"
    refs = [_cut(ref) for ref in row.get("refs") or [] if ref]
    if kind == WRONG and refs:
        return f"wrong: the answer holds none of {', '.join(refs)}"
    detail = _MEANING.get(kind, "the run carried this failure kind")
    if kind == "error" and row.get("inspect_error"):
        detail = f"{detail} ({row['inspect_error']})"
    if kind == "budget_stop" and row.get("inspect_limit"):
        detail = f"{detail} ({row['inspect_limit']} limit)"
    if kind == "refusal" and row.get("inspect_stop_reason"):
        detail = f"{detail} (stop reason: {row['inspect_stop_reason']})"
    return f"{kind}: {detail}"


#: A column a scorer may add: why the sample's target cannot be graded (null when it can).
_UNUSABLE: Final = "__gf_unusable"


def _unusable(row: dict[str, Any]) -> Score:
    """Return the score of a sample whose target cannot be graded: unscored, and why.

    inspect keeps an unscored score (value NaN) and leaves it out of its metrics; the
    explanation names the sample and what is wrong with its target, ``failure_kind`` is
    ``no_reference`` (the sample has no usable target).
    """
    where = f"sample {row['sample_id']!r} (epoch {row['epoch']})"
    return Score.unscored(
        reason="scoring_failed",
        answer=row["__gf_answer"],
        explanation=f"{NO_REFERENCE}: {where} has no usable target: {row[_UNUSABLE]}",
        metadata={"failure_kind": NO_REFERENCE, "outcome": row["outcome"]},
    )


def _scores(graded: pl.DataFrame, extras: Sequence[str] = ()) -> list[Score]:
    unusable = [_UNUSABLE, "sample_id", "epoch"] if _UNUSABLE in graded.columns else []
    rows = graded.select(
        "correct",
        "failure_kind",
        "outcome",
        pl.col("output").struct.field("answer").alias("__gf_answer"),
        *[c for c in ("matched", "near_miss") if c in graded.columns],
        "inspect_error",
        "inspect_limit",
        "inspect_stop_reason",
        "refs",
        *extras,
        *unusable,
    ).to_dicts()
    return [
        _unusable(row)
        if row.get(_UNUSABLE) is not None
        else Score(
            value=CORRECT if row["correct"] else INCORRECT,
            answer=row["__gf_answer"],
            explanation=_explanation(row),
            reason=_REASON.get(row["failure_kind"]),
            metadata={
                "failure_kind": row["failure_kind"],
                "outcome": row["outcome"],
                **{name: _plain(row[name]) for name in extras},
                **{n: row[n] for n in ("matched", "near_miss") if n in row},
            },
        )
        for row in rows
    ]


def _given(**options: Any) -> dict[str, Any]:
    """Return the options that differ from their defaults (None, False), as given."""
    return {name: value for name, value in options.items() if value not in (None, False)}


# --------------------------------------------------------------------------------------------
# The scorers
# --------------------------------------------------------------------------------------------


@scorer(metrics=_METRICS)
def answer_contains(
    *,
    not_found: list[str] | None = None,
    refusal: bool | list[str] | None = None,
    whole_words: bool = False,
) -> Scorer:
    """Score with :func:`gradeframe.answer_contains`: numbers matched whole, failures explained.

    The verdict and kind of every sample equal those of
    ``read_inspect(LOG).grade.answer_contains("output", "refs")``.

    Parameters
    ----------
    not_found
        Regular expressions that replace the default not-found detector.
    refusal
        ``True`` adds the default refusal detector, a list of phrases replaces it.
    whole_words
        Acceptable answers that begin or end with a letter match whole words only.
    """
    options = _given(not_found=not_found, refusal=refusal, whole_words=whole_words)

    def grade(frame: pl.DataFrame) -> list[Score]:
        graded = with_answer_contains(frame, "output", "refs", explain=True, **options)
        return _scores(graded)

    return _scorer(grade)


def _matcher_scorer(
    apply: Callable[[pl.DataFrame, pl.Expr, pl.Expr], pl.DataFrame],
    extras: Sequence[str],
    *,
    letters: bool = False,
) -> Callable[[TaskState, Target], Awaitable[Score]]:
    """Return a scorer that grades with a matcher, its failure kind from the same chain.

    A row the matcher passes is right (no kind); a row it fails gets the kind the chain of
    answer_contains gives an answer that holds no acceptable answer: ``error``,
    ``budget_stop``, ``refusal``, ``parse_failure``, ``not_in_document`` or ``wrong``.
    """
    answer = pl.col("output").struct.field("answer")
    expected = pl.col("refs")
    if letters:  # multiple choice: the reply and the target letters, as the model saw them
        answer = pl.coalesce(pl.col("inspect_completion"), answer)
        expected = pl.coalesce(pl.col("inspect_target"), expected)

    def grade(frame: pl.DataFrame) -> list[Score]:
        matched = apply(frame, answer, expected)
        chain = with_answer_contains(
            frame.with_columns(__gf_never=pl.lit([_NEVER], dtype=pl.List(pl.String))),
            "output",
            "__gf_never",
            prefix="__gf_",
        )
        kind = (
            pl.when(pl.col("correct"))
            .then(pl.lit(None, dtype=pl.String))
            .when(pl.col("__gf_failure_kind") == NO_REFERENCE)
            .then(pl.lit(WRONG))
            .otherwise(pl.col("__gf_failure_kind"))
        )
        explained = pl.concat(
            [matched.select("correct"), chain.select("__gf_failure_kind", "__gf_outcome")],
            how="horizontal",
        ).select(kind.alias("failure_kind"), pl.col("__gf_outcome").alias("outcome"))
        graded = matched.hstack(explained)
        return _scores(graded, extras)

    return _scorer(grade)


@scorer(metrics=_METRICS)
def exact_match(*, ignore_case: bool = True, strip: bool = True, fold: bool = False) -> Scorer:
    """Score with :func:`gradeframe.exact_match`: the answer equals a target."""

    def apply(frame: pl.DataFrame, answer: pl.Expr, expected: pl.Expr) -> pl.DataFrame:
        return frame.grade.exact_match(
            answer, expected, ignore_case=ignore_case, strip=strip, fold=fold
        )

    return _matcher_scorer(apply, ())


@scorer(metrics=_METRICS)
def includes(*, ignore_case: bool = True, fold: bool = False) -> Scorer:
    """Score with :func:`gradeframe.includes`: the answer holds every target (``missing``)."""

    def apply(frame: pl.DataFrame, answer: pl.Expr, expected: pl.Expr) -> pl.DataFrame:
        return frame.grade.includes(answer, expected, ignore_case=ignore_case, fold=fold)

    return _matcher_scorer(apply, ("missing",))


@scorer(metrics=_METRICS)
def within(*, delta: float | None = None, percent: float | None = None) -> Scorer:
    """Score with :func:`gradeframe.within`: the answer is a number near the (first) target."""
    if (delta is None) == (percent is None):
        which = "neither" if delta is None else "both"
        msg = f"within(): give exactly one of `delta` and `percent` ({which} given)"
        raise ValueError(msg)

    def apply(frame: pl.DataFrame, answer: pl.Expr, expected: pl.Expr) -> pl.DataFrame:
        # A target that is not one finite number fails its own sample (unscored, saying why),
        # never the batch: the rows graded get a stand-in number, then are marked.
        target = expected.list.first()
        number = target.str.strip_chars().cast(pl.Float64, strict=False)
        usable = number.is_finite().fill_null(value=False)
        graded = frame.grade.within(
            answer, pl.when(usable).then(number).otherwise(0.0), delta=delta, percent=percent
        )
        shown = pl.lit("'") + target.str.slice(0, 80) + pl.lit("'")
        why = pl.when(~usable).then(
            pl.lit("within compares numbers and the target is ")
            + pl.coalesce(shown, pl.lit("missing"))
            + pl.lit(" (only the eval's author can fix it)")
        )
        return graded.with_columns(why.alias(_UNUSABLE))

    return _matcher_scorer(apply, ("tolerance", "difference"))


@scorer(metrics=_METRICS)
def choice(*, letters: str = "ABCDEFGHIJ") -> Scorer:
    """Score with :func:`gradeframe.choice`: the letters the reply chose equal the target's."""

    def apply(frame: pl.DataFrame, answer: pl.Expr, expected: pl.Expr) -> pl.DataFrame:
        return frame.grade.choice(answer, expected, letters=letters)

    return _matcher_scorer(apply, ("chosen",), letters=True)


@scorer(metrics=_METRICS)
def f1(*, threshold: float = 0.5) -> Scorer:
    """Score with :func:`gradeframe.f1`: SQuAD token F1 ≥ ``threshold`` (``f1`` in metadata)."""

    def apply(frame: pl.DataFrame, answer: pl.Expr, expected: pl.Expr) -> pl.DataFrame:
        return frame.grade.f1(answer, expected, threshold=threshold)

    return _matcher_scorer(apply, ("f1",))


@scorer(metrics=_METRICS)
def equivalent(
    *,
    percent: str = "either",
    rel_tol: float = 0.0,
    abs_tol: float = 0.0,
    fallback: str | None = "symbolic",
    timeout: float = 5.0,
) -> Scorer:
    """Score with :func:`gradeframe.equivalent`: the answer is the same math value as a target.

    The answer is the whole completion: extract it first in the solver, or use a task whose
    model replies with the value. ``method`` goes into the metadata.
    """

    def apply(frame: pl.DataFrame, answer: pl.Expr, expected: pl.Expr) -> pl.DataFrame:
        return frame.grade.equivalent(
            answer,
            expected.list.first(),
            percent=percent,
            rel_tol=rel_tol,
            abs_tol=abs_tol,
            fallback=fallback,
            timeout=timeout,
        )

    return _matcher_scorer(apply, ("method",))


@scorer(metrics=_METRICS)
def verdict(
    *,
    scorer: str | None = None,
    text: str = "score",
    scheme: str = "grade",
    choices: list[str] | None = None,
    scale: tuple[float, float] | None = None,
    on_conflict: str = "last",
    pass_score: float | None = None,
) -> Scorer:
    """Re-read a judge's stored verdict with :func:`gradeframe.read_verdict`.

    The text read is the explanation of the sample's stored score (``text="score"``, the
    default: the judge reply a model-graded scorer keeps, of the scorer named ``scorer`` or
    else the first one), or the model's own reply (``text="completion"``: yes/no items). The
    score is ``CORRECT`` when the verdict passes, as :func:`gradeframe.judge` decides; a text
    with no verdict is ``INCORRECT`` with ``failure_kind`` ``grader_failure`` (the grader, not
    the model, failed) and ``grader_failure`` saying why. ``answer`` is the verdict read;
    ``metadata`` holds ``failure_kind``, ``verdict``, ``score`` and ``grader_failure``.

    ``inspect score LOG --scorer gradeframe/verdict`` re-reads a finished log's judge replies
    (logs written before inspect read ``**GRADE:** C`` or ``GRADE: [C]``, or that read "GRADE:
    CI" as C).

    Parameters
    ----------
    scorer
        The stored score whose explanation is the judge's reply (default: the first).
    text
        ``"score"`` or ``"completion"``.
    scheme, choices, scale, on_conflict, pass_score
        As for :func:`gradeframe.judge`.
    """
    if text not in ("score", "completion"):
        msg = f"`text` must be 'score' or 'completion'; got {text!r}"
        raise ValueError(msg)
    options = {
        "scheme": scheme,
        "choices": choices,
        "scale": scale,
        "on_conflict": on_conflict,
        "pass_score": pass_score,
    }
    with_judge(pl.DataFrame({"judge": []}, schema={"judge": pl.String}), **options)  # checks

    async def score(state: TaskState, target: Target) -> Score:
        if text == "completion":
            reply = state.output.completion
        else:
            stored = state.scores or {}
            chosen = stored.get(scorer) if scorer is not None else next(iter(stored.values()), None)
            reply = chosen.explanation if chosen is not None else None
        frame = pl.DataFrame({"judge": [reply]}, schema={"judge": pl.String})
        row = with_judge(frame, **options).row(0, named=True)
        failure = row["grader_failure"]
        if row["correct"]:
            explanation = f"right: the verdict read is {row['verdict']}"
        elif row["failure_kind"] == GRADER_FAILURE:
            explanation = f"grader_failure: the grader's reply gives no verdict ({failure})"
        else:
            explanation = f"wrong: the verdict read is {row['verdict']}"
        return Score(
            value=CORRECT if row["correct"] else INCORRECT,
            answer=row["verdict"],
            explanation=explanation,
            metadata={
                "failure_kind": row["failure_kind"],
                "verdict": row["verdict"],
                "score": _plain(row["score"]),
                "grader_failure": failure,
            },
        )

    return score
