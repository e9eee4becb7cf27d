"""Read the logs of LLM evaluation tools into one frame that gradeframe grades.

Each reader returns one Polars DataFrame with one row per graded attempt (sample × epoch or
repeat): the identity columns ``tool``, ``log``, ``model``, ``task``, ``sample_id``, ``epoch``;
``input`` (the question as text); ``output``, a struct record with the fields ``answer``,
``partial``, ``notes``, ``trace`` (a list of ``{step, finish_reason}``) and ``status``; ``refs``
(the acceptable answers, a list of strings); the tool's own verdict ``tool_score`` (text) and
``tool_correct`` (Boolean, null where the tool has none); token counts and ``seconds`` where the
tool records them; then columns prefixed with the tool's name. So
``read_log(path).grade.answer_contains("output", "refs")`` grades any of them.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import polars as pl

from gradeframe.logs import (
    braintrust,
    deepeval,
    eee,
    helm,
    inspect,
    langsmith,
    lm_eval,
    openai_evals,
    phoenix,
    promptfoo,
)
from gradeframe.logs._common import (
    LogFormatError,
    PathLike,
    concat,
    iter_json_lines,
    load_json,
    log_error,
    markers_in,
)
from gradeframe.logs.scan import scan_log
from gradeframe.logs.verdicts import disagreements, tool_agreement

Tool = Literal[
    "inspect", "lm_eval", "promptfoo", "openai_evals", "helm", "eee", "deepeval", "braintrust"
]

#: The readers, in the order formats are tried when recognising a file.
READERS: dict[str, Any] = {
    "inspect": inspect,
    "lm_eval": lm_eval,
    "promptfoo": promptfoo,
    "openai_evals": openai_evals,
    "helm": helm,
    "eee": eee,
    "deepeval": deepeval,
    "braintrust": braintrust,
    "langsmith": langsmith,
    "phoenix": phoenix,
}

# Names users may write for a tool (on the command line too).
_ALIASES = {
    "inspect_ai": "inspect",
    "lm-eval": "lm_eval",
    "lm_evaluation_harness": "lm_eval",
    "lm-evaluation-harness": "lm_eval",
    "lmeval": "lm_eval",
    "openai-evals": "openai_evals",
    "evals": "openai_evals",
    "oaieval": "openai_evals",
    "crfm-helm": "helm",
    "every_eval_ever": "eee",
    "every-eval-ever": "eee",
    "arize-phoenix": "phoenix",
    "arize_phoenix": "phoenix",
    "deep_eval": "deepeval",
    "deep-eval": "deepeval",
}

__all__ = [
    "READERS",
    "DuplicateRunWarning",
    "LogFormatError",
    "SkippedLogWarning",
    "detect_tool",
    "disagreements",
    "read_braintrust",
    "read_deepeval",
    "read_eee",
    "read_helm",
    "read_inspect",
    "read_langsmith",
    "read_lm_eval",
    "read_log",
    "read_openai_evals",
    "read_phoenix",
    "read_promptfoo",
    "scan_log",
    "tool_agreement",
]


class DuplicateRunWarning(UserWarning):
    """A folder holds one run twice (an inspect run saved as ``.eval`` and ``.json``): read once."""


def _tool_name(tool: str) -> str:
    name = _ALIASES.get(tool.lower(), tool.lower())
    if name not in READERS:
        msg = f"`tool={tool!r}` is not a tool gradeframe reads; use one of {sorted(READERS)}"
        raise ValueError(msg)
    return name


class SkippedLogWarning(UserWarning):
    """Logs that ``read_log(folder, errors="skip")`` could not read and left out (each named)."""


def warn_skipped(path: PathLike, failed: list[str]) -> None:
    """Name in one :class:`SkippedLogWarning` the logs in ``path`` that were skipped.

    For the caller of ``read_log`` or of the query ``scan_log`` made (two frames up).
    """
    listed = "\n".join(f"  {line}" for line in failed)
    warnings.warn(
        f"{len(failed)} log(s) in {os.fspath(path)} could not be read and were "
        f"skipped (errors='skip'):\n{listed}",
        SkippedLogWarning,
        stacklevel=3,
    )


# Names the tools give their logs: a file named so is a log, even when it cannot be read.
_LOG_NAMES: dict[str, re.Pattern[str]] = {
    "inspect": re.compile(r"^\d{4}-\d\d-\d\dT\d\d[-:]\d\d[-:]\d\d.*_[A-Za-z0-9]{16,}\.json$"),
    "lm_eval": lm_eval.SAMPLES_NAME,  # samples_<task>_<time>.jsonl
    # a HELM run folder's files, in a folder that lacks its scenario_state.json
    "helm": re.compile(r"^(scenario_state|per_instance_stats|run_spec)\.json$"),
}
# Keys only a tool's logs hold (any group found anywhere in the file is a sign of that tool).
_SIGNS: dict[str, tuple[tuple[bytes, ...], ...]] = {
    "inspect": ((b'"eval_id"', b'"samples"'), (b'"eval_id"', b'"version"')),
    "lm_eval": ((b'"filtered_resps"',),),
    "promptfoo": ((b'"evalId"',), (b'"promptIdx"', b'"testIdx"')),
    "openai_evals": ((b'"eval_name"', b'"completion_fns"'), (b'"sample_id"', b'"event_id"')),
    "eee": ((b'"evaluation_result_id"', b'"sample_hash"'),),
    "deepeval": ((b'"testCases"', b'"metricsData"'), (b'"testRunData"',)),
    "braintrust": ((b'"experiment_name"', b'"results"', b'"scores"'),),
    "phoenix": ((b'"repetition_number"', b'"reference_output"', b'"annotations"'),),
}
# The file types a tool's log may have; anything else is not a log (a README, a CSV export).
_LOG_SUFFIXES = {".eval", ".json", ".jsonl", ".log"}
# Files that sit among logs but are not logs: inspect's folder index, lm-eval's aggregate
# results (read for the model name beside its samples files).
_NOT_LOGS = {"logs.json", "eval-set.json"}


def _looks_like(path: Path) -> str | None:
    """Return the tool whose log ``path`` looks like (by its name, or a key only it writes).

    This is how a log that cannot be read is still recognised as one: a JSON Lines log whose
    first line is cut, a JSON log cut early, a key that comes late in the file.
    """
    if not path.is_file() or path.suffix not in _LOG_SUFFIXES or path.name in _NOT_LOGS:
        return None
    if path.suffix == ".eval":
        return "inspect"
    for tool, pattern in _LOG_NAMES.items():
        if pattern.match(path.name):
            return tool
    found = markers_in(path, {m for groups in _SIGNS.values() for g in groups for m in g})
    for tool, groups in _SIGNS.items():
        if any(found.issuperset(group) for group in groups):
            return tool
    return None


def detect_tool(path: PathLike) -> str | None:
    """Return the tool that wrote the log at ``path``, or None when it is not a log.

    A file that looks like a tool's log counts even when it cannot be read (a truncated or
    corrupt log: reading it then says what is wrong with it): by its name (inspect's
    ``<time>_<task>_<id>.json`` and ``.eval``, lm-eval's ``samples_*.jsonl``, HELM's
    ``scenario_state.json``) or by a key only that tool writes, wherever it is in the file.

    Parameters
    ----------
    path
        A log file, or a HELM run folder.

    Returns
    -------
    str or None
        One of ``"inspect"``, ``"lm_eval"``, ``"promptfoo"``, ``"openai_evals"``, ``"helm"``.
    """
    for name, reader in READERS.items():
        if reader.detect(path):
            return name
    path = Path(path)
    if lm_eval.is_results(path):
        return None
    return _looks_like(path)


# The kind of a file in a folder that may be a log but cannot be parsed at all (a JSON Lines
# file cut inside its first line, a JSON file cut before any key a tool is known by).
_UNREADABLE = "unreadable"


def _unreadable(path: Path) -> LogFormatError | None:
    """Return the error of a JSON (Lines) file no tool recognises that cannot be parsed."""
    if path.suffix not in (".json", ".jsonl") or path.name in _NOT_LOGS:
        return None
    try:
        if path.suffix == ".jsonl":
            next(iter_json_lines(path), None)  # its first line: where a log says what it is
        else:
            load_json(path)
    except LogFormatError as error:
        return LogFormatError(f"{error} (not recognised as any tool's log)")
    except OSError as error:
        return log_error(path, f"cannot be read ({error})")
    return None


def _logs_in(folder: Path, tool: str | None) -> list[tuple[str, Path]]:
    """Every log under a folder, with its tool, in sorted path order (HELM runs as folders)."""
    found: list[tuple[str, Path]] = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        here = Path(root)
        if helm.run_folder(here) is not None:
            if tool in (None, "helm"):
                found.append(("helm", here))
            dirs.clear()  # a run folder holds nothing else to read
            continue
        for name in sorted(files):
            file = here / name
            if name.startswith(".") or lm_eval.is_results(file):
                continue
            if eee.is_aggregate(file) and eee.samples_of(file) is not None:
                continue  # read through its samples file
            if tool is not None:
                kind = tool if READERS[tool].detect(file) or _looks_like(file) == tool else None
            else:
                kind = detect_tool(file)
            if kind is None and _unreadable(file) is not None:
                kind = _UNREADABLE  # named when the folder is read, never left out silently
            if kind is not None:
                found.append((kind, file))
    return inspect.read_once(found)  # inspect's shard layout and -recovered logs: each once


# What reading a malformed field can raise besides the readers' own named errors.
_DATA_ERRORS = (
    AttributeError,
    TypeError,
    KeyError,
    IndexError,
    RecursionError,
    OverflowError,
    UnicodeError,
    ArithmeticError,
)


def _read_one(tool: str, path: Path, options: dict[str, Any]) -> pl.DataFrame:
    """Read one log; any error from a malformed field becomes a LogFormatError naming the file."""
    if tool == _UNREADABLE:
        raise _unreadable(path) or log_error(path, "cannot be read")
    try:
        return READERS[tool].read(path, **options)
    except (LogFormatError, ImportError):
        raise
    except (pl.exceptions.PolarsError, *_DATA_ERRORS) as error:
        # (a plain ValueError is an option the user gave, such as ``scorer=``: raised as it is)
        kind = "nested too deeply" if isinstance(error, RecursionError) else type(error).__name__
        first = str(error).splitlines()[0][:200] if str(error) else ""
        problem = f"not a readable {tool} log ({kind}: {first})"
        raise log_error(path, problem) from None


def _options_for(tool: str, options: dict[str, Any]) -> dict[str, Any]:
    """Return the options the tool's reader takes (a folder read passes each reader its own)."""
    import inspect as introspect

    if tool == _UNREADABLE:
        return {}
    accepted = introspect.signature(READERS[tool].read).parameters
    return {k: v for k, v in options.items() if k in accepted}


def _check_options(tools: list[str], options: dict[str, Any]) -> None:
    import inspect as introspect

    accepted = {
        name
        for tool in (tools or list(READERS))
        for name in introspect.signature(READERS[tool].read).parameters
    }
    unknown = sorted(set(options) - accepted - {"path"})
    if unknown:
        msg = (
            f"unknown option(s) {', '.join(repr(u) for u in unknown)} for "
            f"{', '.join(tools) if tools else 'any reader'}; the readers take "
            f"{', '.join(sorted(accepted - {'path'}))}"
        )
        raise TypeError(msg)


def read_log(
    path: PathLike,
    *,
    tool: str | None = None,
    errors: Literal["raise", "skip"] = "raise",
    **options: Any,
) -> pl.DataFrame:
    """Read evaluation logs (a file, or a folder of them) into one frame to grade.

    Parameters
    ----------
    path
        A log file (inspect ``.eval``/``.json``, lm-eval ``samples_*.jsonl``, promptfoo
        ``results.json``/``.jsonl``, OpenAI evals record ``.jsonl``, Every Eval Ever
        ``*_samples.jsonl``, DeepEval ``test_run_*.json``, Braintrust ``as_json()``, LangSmith
        ``.csv``/``.parquet``, Phoenix experiment ``.json``/``.csv``), a HELM run folder, or a
        folder holding any mix of them (searched recursively; other files are skipped).
    tool
        The tool that wrote the logs (``"inspect"``, ``"lm_eval"``, ``"promptfoo"``,
        ``"openai_evals"``, ``"helm"``, ``"eee"``, ``"deepeval"``, ``"braintrust"``,
        ``"langsmith"``, ``"phoenix"``); default: recognised from each file (a file that
        looks like a tool's log but cannot be read is an error, never left out silently).
    errors
        What a folder read does with a log it cannot read (a file that looks like a tool's
        log, by its name or a key only that tool writes, but is truncated or corrupt):
        ``"raise"`` (default) raises a :class:`LogFormatError` naming it; ``"skip"`` leaves it
        out and names every such file in one :class:`SkippedLogWarning` (when no log in the
        folder can be read, the first error is raised). A single file always raises.
    **options
        Passed to the tool's reader (``scorer=`` for inspect, ``filter=``/``responses=`` for
        lm-eval, ``refs=`` for promptfoo, ``metric=`` for HELM); in a folder each reader gets
        the options it takes.

    Returns
    -------
    polars.DataFrame
        One row per graded attempt, in the columns described in :mod:`gradeframe.logs`. Logs
        of several tools stack into one frame (a tool's own columns are null on other rows).

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist, or a folder holds no log.
    LogFormatError
        When a log is truncated or corrupt, or a field has a value of an unexpected type (the
        message names the file, the line for JSON Lines or the member of a ``.eval``, and the
        field), or a file is not a log of any known tool.

    Examples
    --------
    The lm-eval logs shipped with gradeframe (:func:`gradeframe.example_logs`): lm-eval's
    ``exact_match`` fails "The answer is 12,400 units." (``tool_correct``); gradeframe finds
    12400 in it.

    >>> import gradeframe as gf
    >>> logs = gf.example_logs()  # small real logs, shipped with gradeframe
    >>> graded = gf.read_log(logs / "lm_eval").grade.answer_contains("output", "refs")
    >>> graded.select("sample_id", "lm_eval_filter", "refs", "tool_correct", "correct").head(3)
    shape: (3, 5)
    ┌───────────┬────────────────┬─────────────────────┬──────────────┬─────────┐
    │ sample_id ┆ lm_eval_filter ┆ refs                ┆ tool_correct ┆ correct │
    │ ---       ┆ ---            ┆ ---                 ┆ ---          ┆ ---     │
    │ str       ┆ str            ┆ list[str]           ┆ bool         ┆ bool    │
    ╞═══════════╪════════════════╪═════════════════════╪══════════════╪═════════╡
    │ units     ┆ raw            ┆ ["12400", "12,400"] ┆ false        ┆ true    │
    │ height    ┆ raw            ┆ ["45.2"]            ┆ false        ┆ false   │
    │ temp      ┆ raw            ┆ ["12"]              ┆ false        ┆ false   │
    └───────────┴────────────────┴─────────────────────┴──────────────┴─────────┘
    """
    path = Path(path)
    folder, logs = logs_to_read(path, tool, errors)
    if folder:
        _check_options(sorted({t for t, _ in logs if t != _UNREADABLE}), options)
        frames, failed = [], []
        for t, p in logs:
            try:
                frames.append(_read_one(t, p, _options_for(t, options)))
            except LogFormatError as error:
                if errors == "raise" or (not frames and len(failed) == len(logs) - 1):
                    raise
                failed.append(str(error))
        if failed:
            warn_skipped(path, failed)
        return _drop_duplicates(concat(_once_per_run(frames)))
    name, path = logs[0]
    _check_options([name], options)
    return _read_one(name, path, options)


def logs_to_read(path: Path, tool: str | None, errors: str) -> tuple[bool, list[tuple[str, Path]]]:
    """Check :func:`read_log`'s arguments and list what it reads: (tool, file) pairs.

    The first value says whether ``path`` is a folder of logs. A path that does not exist, a
    folder without logs (naming the tools it does hold when ``tool`` left them out) and a file
    no reader recognises raise here, before any log is read (:func:`scan_log` shares this).
    """
    if errors not in ("raise", "skip"):
        msg = f"`errors` must be 'raise' or 'skip', got {errors!r}"
        raise ValueError(msg)
    name = _tool_name(tool) if tool is not None else None
    if not path.exists():
        msg = f"{os.fspath(path)}: no such file or folder"
        raise FileNotFoundError(msg)
    if path.is_dir() and helm.run_folder(path) is None:
        logs = _logs_in(path, name)
        if not logs:
            what = f"{name} logs" if name else "evaluation logs gradeframe reads"
            msg = f"{os.fspath(path)}: the folder holds no {what}"
            others = _logs_in(path, None) if name else []
            if others:
                held = sorted({t for t, _ in others})
                msg += (
                    f"; it holds {' and '.join(held)} logs ({len(others)} "
                    f"{'file' if len(others) == 1 else 'files'}): read them with "
                    f"`tool={held[0]!r}`, or with no tool to recognise each file"
                )
            raise FileNotFoundError(msg)
        return True, logs
    if name is None:
        name = detect_tool(path)
        if name is None:
            hint = ""
            if lm_eval.is_results(path):
                hint = (
                    " This is lm-eval's aggregate results file: read the samples_*.jsonl "
                    "beside it (written with --log_samples)."
                )
            elif path.suffix == ".csv":
                hint = " Read the tool's JSON or JSON Lines output instead of its CSV."
            raise LogFormatError(
                f"{os.fspath(path)}: not a log of any tool gradeframe reads "
                f"({', '.join(READERS)}).{hint}"
            )
    return False, [(name, path)]


def _once_per_run(frames: list[pl.DataFrame]) -> list[pl.DataFrame]:
    """Keep the first log of each inspect run (same eval id), warning about the others.

    inspect writes a run as ``.eval`` or ``.json`` (``inspect log convert`` writes the other):
    both hold the same samples, which read twice would count every answer twice.
    """
    seen: dict[str, str] = {}
    kept = []
    for frame in frames:
        ids = (
            frame.get_column("inspect_eval_id").drop_nulls().unique().to_list()
            if "inspect_eval_id" in frame.columns
            else []
        )
        log = frame.get_column("log")[0] if frame.height else None
        if len(ids) == 1 and ids[0] in seen:
            message = (
                f"{log} holds the same inspect run as {seen[ids[0]]} (eval id {ids[0]}): "
                "it is read once, from the first"
            )
            warnings.warn(message, DuplicateRunWarning, stacklevel=3)
            continue
        if len(ids) == 1:
            seen[ids[0]] = log
        kept.append(frame)
    return kept


def _drop_duplicates(frame: pl.DataFrame) -> pl.DataFrame:
    """Keep one copy of promptfoo results exported twice (``-o results.json results.jsonl``)."""
    if "promptfoo_id" not in frame.columns:
        return frame
    key = pl.col("promptfoo_id")
    first = key.is_null() | key.is_first_distinct()
    return frame.filter(first)


def read_inspect(
    path: PathLike,
    *,
    scorer: str | Sequence[str] | None = None,
    max_bytes: int | None = inspect.MAX_BYTES,
) -> pl.DataFrame:
    """Read inspect_ai logs (``.eval`` or ``.json``; a file or a folder) into one frame.

    One row per sample and epoch. inspect's message and turn limits become the note
    ``call_cap_reached`` and its token and cost limits ``cost_cap_reached`` (``partial`` true),
    so ``answer_contains`` says ``budget_stop``; a content filter is a trace step finished with
    ``content_filter`` (``refusal``); a sample error is ``status="error"``. Reading ``.eval``
    files needs the ``zstandard`` package (``pip install 'gradeframe[logs]'``).

    Parameters
    ----------
    path
        An inspect log file or a folder of them.
    scorer
        The scorer whose value becomes ``tool_score``/``tool_correct`` (default: each task's
        first), or a list of them in order of preference. A log without scores (no scorer, or
        ``--no-score``) reads with null verdicts whatever this says.
    max_bytes
        The most bytes decompressed from one ``.eval`` log (default 2 GiB; None: no limit), a
        guard against zip bombs; each member is also read no further than its declared size.

    Returns
    -------
    polars.DataFrame
        The common log columns plus ``inspect_*`` columns.

    Examples
    --------
    The sample that hit inspect's message limit is a partial run with a budget note:

    >>> import polars as pl
    >>> import gradeframe as gf
    >>> logs = gf.example_logs()  # small real logs, shipped with gradeframe
    >>> output = pl.col("output")
    >>> frame = gf.read_inspect(logs / "inspect", scorer=["includes", "choice"])
    >>> frame.filter(pl.col("sample_id") == "looping", pl.col("epoch") == 1).select(
    ...     "sample_id", output.struct.field("partial"), output.struct.field("notes")
    ... ).head(1)
    shape: (1, 3)
    ┌───────────┬─────────┬─────────────────────────────────┐
    │ sample_id ┆ partial ┆ notes                           │
    │ ---       ┆ ---     ┆ ---                             │
    │ str       ┆ bool    ┆ list[str]                       │
    ╞═══════════╪═════════╪═════════════════════════════════╡
    │ looping   ┆ true    ┆ ["limit:message", "call_cap_re… │
    └───────────┴─────────┴─────────────────────────────────┘
    """
    return read_log(path, tool="inspect", scorer=scorer, max_bytes=max_bytes)


def read_lm_eval(
    path: PathLike,
    *,
    filter: str | Sequence[str] | None = None,  # lm-eval's own word for it
    responses: Literal["filtered", "raw"] = "filtered",
) -> pl.DataFrame:
    """Read lm-evaluation-harness ``samples_*.jsonl`` logs (a file or a folder) into one frame.

    One row per document and filter (``lm_eval_filter``), answering with the filtered response
    lm-eval graded (``"[invalid]"`` becomes null); targets are read as the Python literals
    lm-eval writes. Multiple-choice answers are the continuation with the highest
    log-likelihood. ``responses="raw"`` gives one row per repeat instead.

    Parameters
    ----------
    path
        A samples file or a folder (the model name comes from ``results_*.json`` beside it).
    filter
        Keep only this filter's rows, or the first of a list of filters that each file has
        (default: all).
    responses
        ``"filtered"`` (default) or ``"raw"``.

    Returns
    -------
    polars.DataFrame
        The common log columns plus ``lm_eval_*`` columns.

    Examples
    --------
    The regex filter's rows of the generation task, "[invalid]" read as no answer, and the
    multiple-choice task's rows:

    >>> import polars as pl
    >>> import gradeframe as gf
    >>> logs = gf.example_logs()  # small real logs, shipped with gradeframe
    >>> output = pl.col("output")
    >>> frame = gf.read_lm_eval(logs / "lm_eval", filter=["number", "none"])
    >>> frame.select("task", "sample_id", output.struct.field("answer"), "refs").head(4)
    shape: (4, 4)
    ┌────────┬──────────────┬────────┬─────────────────────┐
    │ task   ┆ sample_id    ┆ answer ┆ refs                │
    │ ---    ┆ ---          ┆ ---    ┆ ---                 │
    │ str    ┆ str          ┆ str    ┆ list[str]           │
    ╞════════╪══════════════╪════════╪═════════════════════╡
    │ gf_gen ┆ units        ┆ 12,400 ┆ ["12400", "12,400"] │
    │ gf_gen ┆ height       ┆ 145.2  ┆ ["45.2"]            │
    │ gf_gen ┆ temp         ┆ -12    ┆ ["12"]              │
    │ gf_gen ┆ unanswerable ┆ null   ┆ ["NOT_IN_DOCUMENT"] │
    └────────┴──────────────┴────────┴─────────────────────┘
    """
    return read_log(path, tool="lm_eval", filter=filter, responses=responses)


def read_promptfoo(path: PathLike, *, refs: str = "expected") -> pl.DataFrame:
    """Read promptfoo results (``results.json``/``.jsonl``; a file or a folder) into one frame.

    One row per test, prompt, provider and repeat (repeats numbered in ``epoch``). promptfoo
    has no reference field: the acceptable answers come from the test ``metadata`` key or
    variable named ``refs``, else from the values of its ``equals``/``contains*``/
    ``starts-with`` assertions.

    Parameters
    ----------
    path
        A results file or a folder (a run exported as both ``.json`` and ``.jsonl`` is read
        once).
    refs
        The metadata key or variable holding the acceptable answers.

    Returns
    -------
    polars.DataFrame
        The common log columns plus ``promptfoo_*`` columns.

    Examples
    --------
    A content-filtered reply (``isRefusal``) and its repeat, beside the ``echo`` provider's:

    >>> import polars as pl
    >>> import gradeframe as gf
    >>> logs = gf.example_logs()  # small real logs, shipped with gradeframe
    >>> output = pl.col("output")
    >>> frame = gf.read_promptfoo(logs / "promptfoo" / "results.jsonl")
    >>> frame.filter(pl.col("sample_id") == "10").select(
    ...     "model", "epoch", output.struct.field("status"), "refs"
    ... )
    shape: (4, 4)
    ┌────────────┬───────┬─────────┬──────────────┐
    │ model      ┆ epoch ┆ status  ┆ refs         │
    │ ---        ┆ ---   ┆ ---     ┆ ---          │
    │ str        ┆ i64   ┆ str     ┆ list[str]    │
    ╞════════════╪═══════╪═════════╪══════════════╡
    │ scripted-a ┆ 1     ┆ refused ┆ ["anything"] │
    │ echo       ┆ 1     ┆ ok      ┆ ["anything"] │
    │ scripted-a ┆ 2     ┆ refused ┆ ["anything"] │
    │ echo       ┆ 2     ┆ ok      ┆ ["anything"] │
    └────────────┴───────┴─────────┴──────────────┘
    """
    return read_log(path, tool="promptfoo", refs=refs)


def read_openai_evals(path: PathLike) -> pl.DataFrame:
    """Read OpenAI evals record files (``--record_path``; a file or a folder) into one frame.

    One row per sample: the last sampled text, the ``match`` event's ``expected`` and
    ``correct``.

    Parameters
    ----------
    path
        A record ``.jsonl`` file or a folder of them.

    Returns
    -------
    polars.DataFrame
        The common log columns plus ``openai_evals_*`` columns.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> logs = gf.example_logs()  # small real logs, shipped with gradeframe
    >>> output = pl.col("output")
    >>> frame = gf.read_openai_evals(logs / "openai_evals" / "gf-match.jsonl")
    >>> frame.select("sample_id", output.struct.field("answer"), "refs", "tool_correct").head(2)
    shape: (2, 4)
    ┌────────────────┬────────────────────┬────────────────────┬──────────────┐
    │ sample_id      ┆ answer             ┆ refs               ┆ tool_correct │
    │ ---            ┆ ---                ┆ ---                ┆ ---          │
    │ str            ┆ str                ┆ list[str]          ┆ bool         │
    ╞════════════════╪════════════════════╪════════════════════╪══════════════╡
    │ gf-match.dev.0 ┆ Made 12,400 units. ┆ ["12400"]          ┆ false        │
    │ gf-match.dev.1 ┆ It is 145.2 m.     ┆ ["45.2", "45.2 m"] ┆ false        │
    └────────────────┴────────────────────┴────────────────────┴──────────────┘
    """
    return read_log(path, tool="openai_evals")


def read_helm(path: PathLike, *, metric: str = "exact_match") -> pl.DataFrame:
    """Read HELM run folders (one run, or a folder such as ``runs/<suite>``) into one frame.

    One row per request state (instance × train trial × perturbation), with the references
    tagged ``correct`` as acceptable answers and the instance's ``metric`` as the verdict.

    Parameters
    ----------
    path
        A run folder (holding ``scenario_state.json``) or a folder of run folders.
    metric
        The per-instance statistic used as ``tool_score``/``tool_correct``.

    Returns
    -------
    polars.DataFrame
        The common log columns plus ``helm_*`` columns.

    Examples
    --------
    A completion that stopped at its length limit, and a request that failed:

    >>> import polars as pl
    >>> import gradeframe as gf
    >>> logs = gf.example_logs()  # small real logs, shipped with gradeframe
    >>> output = pl.col("output")
    >>> frame = gf.read_helm(logs / "helm" / "gf_qa__model_gf_scripted-a")
    >>> frame.filter(pl.col("sample_id").is_in(["truncated", "boom"])).select(
    ...     "sample_id",
    ...     output.struct.field("answer"),
    ...     output.struct.field("partial"),
    ...     output.struct.field("status"),
    ... )
    shape: (2, 4)
    ┌───────────┬───────────────────┬─────────┬────────┐
    │ sample_id ┆ answer            ┆ partial ┆ status │
    │ ---       ┆ ---               ┆ ---     ┆ ---    │
    │ str       ┆ str               ┆ bool    ┆ str    │
    ╞═══════════╪═══════════════════╪═════════╪════════╡
    │ truncated ┆ The total was 1,2 ┆ true    ┆ ok     │
    │ boom      ┆                   ┆ false   ┆ error  │
    └───────────┴───────────────────┴─────────┴────────┘
    """
    return read_log(path, tool="helm", metric=metric)


def read_eee(path: PathLike) -> pl.DataFrame:
    """Read Every Eval Ever logs (schema 0.3; a ``*_samples.jsonl``, its aggregate, or a folder).

    One row per sample and epoch: the lines the converters write once per scorer are folded,
    each scorer's verdict kept in ``eee_scores`` and the first one's as ``tool_score``;
    ``tool_correct`` is that score equal to 1 (the converters' own ``is_correct``, kept as
    ``eee_is_correct``, is true for a partial score). The reply is the last assistant message
    of ``messages`` where the line has them, else ``output.raw`` (``eee_answer_source`` says
    which; in files converted from inspect ``output.raw`` is the scorer's extracted answer).

    Parameters
    ----------
    path
        An instance-level ``*_samples.jsonl``, the run's aggregate JSON beside it, or a folder.

    Returns
    -------
    polars.DataFrame
        The common log columns, ``tool_failure``, ``cache_read_tokens``, ``reasoning_tokens``,
        ``tool_calls`` and ``eee_*`` columns.

    Examples
    --------
    An inspect run converted by ``every_eval_ever convert inspect``: its ``includes()`` scorer
    gave "made 12,400 units." half a point, which the converter calls correct:

    >>> import polars as pl
    >>> import gradeframe as gf
    >>> logs = gf.example_logs()  # small real logs, shipped with gradeframe
    >>> frame = gf.read_eee(logs / "eee")
    >>> frame.filter(pl.col("sample_id") == "units").select(
    ...     "epoch", pl.col("output").struct.field("answer"), "tool_score", "tool_correct",
    ...     "eee_is_correct", "eee_answer_source"
    ... )
    shape: (2, 6)
    ┌───────┬────────────────────┬────────────┬──────────────┬────────────────┬───────────────────┐
    │ epoch ┆ answer             ┆ tool_score ┆ tool_correct ┆ eee_is_correct ┆ eee_answer_source │
    │ ---   ┆ ---                ┆ ---        ┆ ---          ┆ ---            ┆ ---               │
    │ i64   ┆ str                ┆ str        ┆ bool         ┆ bool           ┆ str               │
    ╞═══════╪════════════════════╪════════════╪══════════════╪════════════════╪═══════════════════╡
    │ 1     ┆ made 12,400 units. ┆ 0.5        ┆ false        ┆ true           ┆ output.raw        │
    │ 2     ┆ made 12400 units.  ┆ 0.5        ┆ false        ┆ true           ┆ output.raw        │
    └───────┴────────────────────┴────────────┴──────────────┴────────────────┴───────────────────┘
    """
    return read_log(path, tool="eee")


def read_deepeval(path: PathLike, *, metric: str | None = None) -> pl.DataFrame:
    """Read DeepEval test runs (``.latest_test_run.json``, ``test_run_*.json``, or a folder).

    One row per test case (a conversational test case is one row, its reply the last assistant
    turn); ``expectedOutput`` (``expectedOutcome``) is the acceptable answer; the verdict of
    ``metric`` (default: each case's first metric) is ``tool_score``/``tool_correct``, every
    metric's in ``deepeval_metrics``. A metric that errored on a reply gives
    ``tool_failure="grader_failure"``; a case with no reply, whose metrics errored, is
    ``status="error"``. A folder read skips hidden files: name ``.deepeval/.latest_test_run.json``
    itself to read it.

    Parameters
    ----------
    path
        A DeepEval test-run JSON file or a folder of them.
    metric
        The metric whose verdict is ``tool_score``/``tool_correct``.

    Returns
    -------
    polars.DataFrame
        The common log columns plus ``tool_failure``, ``cost``, ``tool_calls`` and
        ``deepeval_*`` columns.

    Examples
    --------
    DeepEval's exact match fails "Made 12,400 units." against 12400; gradeframe finds it:

    >>> import polars as pl
    >>> import gradeframe as gf
    >>> logs = gf.example_logs()  # small real logs, shipped with gradeframe
    >>> frame = gf.read_deepeval(logs / "deepeval", metric="Exact Match")
    >>> frame.grade.answer_contains("output", "refs").select(
    ...     "sample_id", "tool_correct", "tool_failure", "correct", "failure_kind"
    ... ).head(3)
    shape: (3, 5)
    ┌───────────┬──────────────┬──────────────┬─────────┬──────────────┐
    │ sample_id ┆ tool_correct ┆ tool_failure ┆ correct ┆ failure_kind │
    │ ---       ┆ ---          ┆ ---          ┆ ---     ┆ ---          │
    │ str       ┆ bool         ┆ str          ┆ bool    ┆ str          │
    ╞═══════════╪══════════════╪══════════════╪═════════╪══════════════╡
    │ units     ┆ false        ┆ null         ┆ true    ┆ null         │
    │ height    ┆ false        ┆ null         ┆ false   ┆ wrong        │
    │ temp      ┆ false        ┆ null         ┆ false   ┆ wrong        │
    └───────────┴──────────────┴──────────────┴─────────┴──────────────┘
    """
    return read_log(path, tool="deepeval", metric=metric)


def read_braintrust(path: PathLike, *, scorer: str | None = None) -> pl.DataFrame:
    """Read Braintrust evaluations (``Eval(...).as_json()`` files, or a folder) into one frame.

    One row per case and trial (``epoch``); ``expected`` gives the acceptable answers; the
    score of ``scorer`` (default: the run's first) is ``tool_score``, and ``tool_correct`` is that
    score equal to 1. A task that raised is ``status="error"``; a scorer that raised (named in
    ``metadata.scorer_errors``) gives ``tool_failure="grader_failure"``.

    Parameters
    ----------
    path
        A Braintrust ``as_json()`` file or a folder of them.
    scorer
        The scorer whose score is ``tool_score``/``tool_correct``.

    Returns
    -------
    polars.DataFrame
        The common log columns plus ``tool_failure``, token, ``cost`` and ``braintrust_*``
        columns.

    Examples
    --------
    The judge scorer raised on one case: the grader failed, not the model.

    >>> import polars as pl
    >>> import gradeframe as gf
    >>> logs = gf.example_logs()  # small real logs, shipped with gradeframe
    >>> frame = gf.read_braintrust(logs / "braintrust", scorer="judge")
    >>> frame.filter(pl.col("epoch") == 1).select(
    ...     "sample_id", "input", "tool_score", "tool_failure"
    ... ).tail(3)
    shape: (3, 4)
    ┌───────────┬────────────────────────────────┬────────────┬────────────────┐
    │ sample_id ┆ input                          ┆ tool_score ┆ tool_failure   │
    │ ---       ┆ ---                            ┆ ---        ┆ ---            │
    │ str       ┆ str                            ┆ str        ┆ str            │
    ╞═══════════╪════════════════════════════════╪════════════╪════════════════╡
    │ 5         ┆ Name the fruit.                ┆ 0.0        ┆ null           │
    │ 6         ┆ This one errors.               ┆ null       ┆ null           │
    │ 7         ┆ What is the capital of France? ┆ null       ┆ grader_failure │
    └───────────┴────────────────────────────────┴────────────┴────────────────┘
    """
    return read_log(path, tool="braintrust", scorer=scorer)


def read_langsmith(
    path: PathLike,
    *,
    output: str | None = None,
    reference: str | None = None,
    feedback: str | None = None,
) -> pl.DataFrame:
    """Read LangSmith experiment results (``to_pandas()`` as CSV or Parquet; or a folder).

    One row per example and repetition (``epoch`` numbers an example's rows in order): the
    ``outputs.*`` column is the reply, the ``reference.*`` column the acceptable answer, the
    ``feedback.*`` column the verdict (``tool_correct``: true/false feedback as it is, a score
    equal to 1). A run that raised is ``status="error"``; an evaluator that raised on a reply
    leaves no feedback, read as ``tool_failure="grader_failure"``.

    Parameters
    ----------
    path
        A ``.csv`` or ``.parquet`` of ``evaluate(...).to_pandas()``, or a folder.
    output, reference, feedback
        Which ``outputs.*``, ``reference.*`` and ``feedback.*`` column to use (default: the
        first holding a value; the first ``feedback.*``).

    Returns
    -------
    polars.DataFrame
        The common log columns plus ``tool_failure``, token, ``cost`` and ``langsmith_*``
        columns.

    Examples
    --------
    LangSmith's exact evaluator fails "Made 12,400 units." against 12400:

    >>> import polars as pl
    >>> import gradeframe as gf
    >>> logs = gf.example_logs()  # small real logs, shipped with gradeframe
    >>> frame = gf.read_langsmith(logs / "langsmith" / "gf-langsmith.parquet")
    >>> frame.grade.answer_contains("output", "refs").select(
    ...     "epoch", "input", "tool_score", "correct"
    ... ).head(3)
    shape: (3, 4)
    ┌───────┬───────────────────────────┬────────────┬─────────┐
    │ epoch ┆ input                     ┆ tool_score ┆ correct │
    │ ---   ┆ ---                       ┆ ---        ┆ ---     │
    │ i64   ┆ str                       ┆ str        ┆ bool    │
    ╞═══════╪═══════════════════════════╪════════════╪═════════╡
    │ 1     ┆ How many units were made? ┆ false      ┆ true    │
    │ 1     ┆ How tall is the tower?    ┆ false      ┆ false   │
    │ 1     ┆ How cold did it get?      ┆ false      ┆ false   │
    └───────┴───────────────────────────┴────────────┴─────────┘
    """
    return read_log(path, tool="langsmith", output=output, reference=reference, feedback=feedback)


def read_phoenix(
    path: PathLike, *, annotation: str | None = None, reference: str | None = None
) -> pl.DataFrame:
    """Read Arize Phoenix experiment exports (``/v1/experiments/{id}/json`` or ``/csv``).

    One row per example and repetition (``repetition_number`` is the ``epoch``);
    ``reference_output`` gives the acceptable answer, ``output`` the reply; the annotation named
    ``annotation`` (default: each record's first) gives ``tool_score``/``tool_correct``. A task
    that raised is ``status="error"`` (Phoenix's evaluators still score it, often 0.0); an
    evaluator that raised gives ``tool_failure="grader_failure"``.

    Parameters
    ----------
    path
        A Phoenix experiment export (JSON or CSV) or a folder of them.
    annotation
        The evaluator whose annotation is the verdict.
    reference
        The key of ``reference_output`` holding the acceptable answer (when it has several).

    Returns
    -------
    polars.DataFrame
        The common log columns plus ``tool_failure`` and ``phoenix_*`` columns.

    Examples
    --------
    The errored task, which Phoenix's evaluator scored 0.0, is an error; the judge that raised
    is the grader's failure:

    >>> import polars as pl
    >>> import gradeframe as gf
    >>> logs = gf.example_logs()  # small real logs, shipped with gradeframe
    >>> frame = gf.read_phoenix(logs / "phoenix" / "gf-phoenix.json", annotation="judge")
    >>> frame.grade.answer_contains("output", "refs").filter(pl.col("epoch") == 1).select(
    ...     "input", "tool_score", "tool_failure", "failure_kind"
    ... ).tail(2)
    shape: (2, 4)
    ┌────────────────────────────────┬────────────┬────────────────┬──────────────┐
    │ input                          ┆ tool_score ┆ tool_failure   ┆ failure_kind │
    │ ---                            ┆ ---        ┆ ---            ┆ ---          │
    │ str                            ┆ str        ┆ str            ┆ str          │
    ╞════════════════════════════════╪════════════╪════════════════╪══════════════╡
    │ This one errors.               ┆ 0.0        ┆ null           ┆ error        │
    │ What is the capital of France? ┆ null       ┆ grader_failure ┆ null         │
    └────────────────────────────────┴────────────┴────────────────┴──────────────┘
    """
    return read_log(path, tool="phoenix", annotation=annotation, reference=reference)
