"""What the engines (Dask, Spark, Ray) share: the summaries made from summed counts.

Each engine says how it counts (the report's counts and the samples' counts of every
partition, summed); :func:`summaries` makes its public ``report``, ``pass_at_k``,
``consistency`` and ``flaky`` from that, with the parameters of :func:`gradeframe.report` and
:mod:`gradeframe.samples`'s functions (``report`` without ``carried_kinds``) and docstrings
that name the engine. The statistics are computed once, from the sums, as on one frame.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import pandas as pd
import polars as pl

from gradeframe import _frames
from gradeframe import samples as sample_rules
from gradeframe._cost import check_cost
from gradeframe._delegate import bind
from gradeframe._inputs import IntoExpr
from gradeframe.report import report as report_function

#: What an engine's samples' counting returns: groups, items, the summed counts and votes.
Summed = tuple[list[str], list[str], pl.LazyFrame, pl.LazyFrame | None]

#: The report's options an engine's counting receives (``cost`` checked: the prices or None).
REPORT_OPTIONS: Final = ("by", "correct", "failure_kind", "prefix", "cluster", "score", "cost")


def counted_samples(
    frame: pl.DataFrame,
    *,
    groups: list[str],
    items: list[str],
    correct: str,
    answer: IntoExpr | None,
    vote: str = "fold",
) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    """Count one piece's samples per group and item, and its votes (None without ``answer``).

    What every engine runs on each partition or batch; the driver sums the pieces.
    """
    counts = sample_rules.sample_counts(frame, groups, items, correct).collect()
    if answer is None:
        return counts, None
    votes = sample_rules.vote_counts(frame, groups, items, correct, answer, vote)
    return counts, votes.collect()


@dataclass(frozen=True)
class SamplesCall:
    """A call of a samples function, as an engine's counting receives it.

    ``function`` names it (``"pass_at_k"``...); ``by``, ``on``, ``correct``, ``answer`` and
    ``vote`` are the call's arguments (``vote`` not yet resolved); ``outputs`` the columns it
    adds, which the group columns must not be named.
    """

    function: str
    by: Any
    on: Any
    correct: str
    answer: IntoExpr | None
    outputs: Sequence[str]
    vote: Any = ...


@dataclass(frozen=True)
class Words:
    """The words an engine's docstrings use, and its frame parameter.

    Attributes
    ----------
    frame
        The name of the first parameter (``sdf``, ``ds``, ``frame``).
    frame_type
        Its annotation (``SparkFrame``).
    noun
        What the engine's frame is called (``Spark DataFrame``).
    where
        Where the counts are summed (``on the driver``).
    checked
        When the arguments are checked (``before any data is read``).
    """

    frame: str
    frame_type: str
    noun: str
    where: str
    checked: str


#: Each engine's words, by its module.
WORDS: Final = {
    "gradeframe.dask": Words(
        "frame", "dd.DataFrame", "Dask DataFrame", "over the partitions", "before any data is read"
    ),
    "gradeframe.spark": Words(
        "sdf", "SparkFrame", "Spark DataFrame", "on the driver", "before any data is read"
    ),
    "gradeframe.ray": Words(
        "ds", "Dataset", "Ray Dataset", "on the driver", "before the counting runs"
    ),
}


def _signature(function: Callable[..., Any], words: Words, drop: Sequence[str] = ()) -> Any:
    parameters = list(inspect.signature(function).parameters.values())
    first = parameters[0].replace(name=words.frame, annotation=words.frame_type)
    kept = [p for p in parameters[1:] if p.name not in drop]
    return inspect.Signature([first, *kept], return_annotation="pd.DataFrame")


def _made(
    name: str, run: Callable[..., pd.DataFrame], signature: Any, doc: str, module: str
) -> Any:
    """Give ``run`` (which takes the bound arguments) the public face of ``name``."""

    def function(*args: Any, **kwargs: Any) -> pd.DataFrame:
        bound = bind(name, signature, args, kwargs)
        bound.apply_defaults()
        return run(*bound.arguments.values())

    function.__name__ = function.__qualname__ = name
    function.__signature__ = signature  # type: ignore[attr-defined]
    function.__doc__ = doc
    function.__module__ = module
    return function


_REPORT_DOC = """Summarise a graded {noun} per group, from counts summed over the partitions.

    The same columns and values as :func:`gradeframe.report` on the whole data. Each partition
    counts its rows per group (and per cluster: :func:`gradeframe.report_counts`); the counts
    are summed {where} and the report is built once from the sums
    (:func:`gradeframe.report_from_counts`), never by averaging partitions' intervals.

    With ``cost``, the token sums, the cost and the counts of unknowns are sums too, so every
    cost column is the same as on the whole data but ``seconds_p50``/``seconds_p95``: a
    percentile is not a sum of the pieces' percentiles, and computing it exactly would gather
    every row's ``seconds`` in one place, so this report leaves them out.

    Parameters
    ----------
    {frame}
        A graded {noun}.
    by, correct, failure_kind, prefix, cluster, score, cost
        As for :func:`gradeframe.report`. They are checked {checked}.

    Returns
    -------
    pandas.DataFrame
        The report (computed).
    """

_SAMPLES_DOC = """{title} on a graded {noun}, from per-item counts summed {where}.

    The same columns and values as :func:`gradeframe.{name}` on the whole data (an item's
    samples may sit in several partitions).

    Parameters
    ----------
    {frame}
        A graded {noun}: one row per sample.
    {arguments}
        As for :func:`gradeframe.{name}`. They are checked {checked}.

    Returns
    -------
    pandas.DataFrame
        The {what} (computed).
    """

_SAMPLES: Final = {
    "pass_at_k": ("Estimate pass@k", "k, by, on, correct", "table"),
    "consistency": ("Summarise consistency", "by, on, correct, answer, vote", "table"),
    "flaky": ("List the flaky items", "by, on, correct, answer, vote", "list"),
}


def summaries(
    module: str,
    count_report: Callable[[Any, dict[str, Any]], pd.DataFrame],
    count_samples: Callable[[Any, SamplesCall], Summed],
) -> tuple[Callable[..., pd.DataFrame], ...]:
    """Return an engine's ``report``, ``pass_at_k``, ``consistency`` and ``flaky``.

    Parameters
    ----------
    module
        The engine's module (``__name__``): its :data:`WORDS`, and where the functions live.
    count_report
        ``count_report(frame, options)``: the report (pandas) from every partition's counts
        summed; ``options`` maps :data:`REPORT_OPTIONS` to the call's values.
    count_samples
        ``count_samples(frame, call)``: the :class:`SamplesCall`'s arguments checked on an
        empty frame, then every partition's sample counts (and votes) summed.
    """
    engine = WORDS[module]
    words = {name: getattr(engine, name) for name in ("noun", "where", "frame", "checked")}

    def report(frame: Any, *values: Any) -> pd.DataFrame:
        options = dict(zip(REPORT_OPTIONS, values, strict=True))
        return count_report(frame, {**options, "cost": check_cost(options["cost"])})

    def pass_at_k(frame: Any, k: Any, by: Any, on: Any, correct: str) -> pd.DataFrame:
        ks = sample_rules.check_ks(k)
        outputs = sample_rules.PASS_AT_K_COLUMNS
        call = SamplesCall("pass_at_k", by, on, correct, None, outputs)
        groups, _, counts, _ = count_samples(frame, call)
        return _frames.to_pandas_frame(
            sample_rules.pass_at_k_from_counts(counts, groups, ks).collect()
        )

    def per_item(name: str, outputs: Sequence[str], table: Callable[..., pl.LazyFrame]) -> Any:
        def run(
            frame: Any, by: Any, on: Any, correct: str, answer: IntoExpr | None, vote: Any
        ) -> pd.DataFrame:
            call = SamplesCall(name, by, on, correct, answer, outputs, vote)
            groups, items, counts, votes = count_samples(frame, call)
            return _frames.to_pandas_frame(table(counts, votes, groups, items).collect())

        return run

    runs = {
        "pass_at_k": pass_at_k,
        "consistency": per_item(
            "consistency", sample_rules.CONSISTENCY_OUTPUTS, sample_rules.consistency_from_counts
        ),
        "flaky": per_item("flaky", sample_rules.FLAKY_OUTPUTS, sample_rules.flaky_from_counts),
    }
    made = {
        "report": _made(
            "report",
            report,
            _signature(report_function, engine, drop=["carried_kinds"]),
            _REPORT_DOC.format(**words),
            module,
        )
    }
    for name, (title, arguments, what) in _SAMPLES.items():
        doc = _SAMPLES_DOC.format(title=title, name=name, arguments=arguments, what=what, **words)
        function = getattr(sample_rules, name)
        made[name] = _made(name, runs[name], _signature(function, engine), doc, module)
    return made["report"], made["pass_at_k"], made["consistency"], made["flaky"]
