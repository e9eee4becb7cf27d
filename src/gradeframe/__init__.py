"""gradeframe: grade model answers held in Polars or pandas frames.

``import gradeframe`` registers the ``.grade`` namespace on Polars (DataFrame, LazyFrame, Series,
Expr) and on pandas (DataFrame, Series); on Dask too when ``dask.dataframe`` is already imported
(else ``import gradeframe.dask``). Spark: ``gradeframe.spark``; Ray: ``gradeframe.ray``. None of
them is imported otherwise. ``gradeframe.rewards`` (reward functions for RL trainers, no extra
dependency) is imported with the package; its names stay in its own namespace.
"""

import sys
from importlib import metadata as _metadata

from gradeframe import _pandas, _polars  # noqa: F401  (register .grade)
from gradeframe._limits import MAX_METADATA_LENGTH
from gradeframe._record import StatusWarning
from gradeframe.answer import (
    DEFAULT_NOT_FOUND_PHRASES,
    answer_contains,
    is_not_found,
    with_answer_contains,
)
from gradeframe.chart import chart, compare_chart, pass_at_k_chart
from gradeframe.cli.reading import read_table
from gradeframe.compare import agreement, compare
from gradeframe.example import example, example_document, example_logs
from gradeframe.extract import extract, extract_answer, extract_boxed, extract_number
from gradeframe.failures import failures
from gradeframe.fold import fold
from gradeframe.html import html_report
from gradeframe.kinds import KINDS
from gradeframe.logs import (
    read_braintrust,
    read_deepeval,
    read_eee,
    read_helm,
    read_inspect,
    read_langsmith,
    read_lm_eval,
    read_log,
    read_openai_evals,
    read_phoenix,
    read_promptfoo,
    scan_log,
)
from gradeframe.matchers import (
    choice,
    equivalent,
    exact_match,
    f1,
    includes,
    matches,
    tool_calls,
    with_choice,
    with_equivalent,
    with_exact_match,
    with_f1,
    with_includes,
    with_matches,
    with_tool_calls,
    with_within,
    within,
)
from gradeframe.refusal import DEFAULT_REFUSAL_PHRASES, is_refusal
from gradeframe.report import report, report_counts, report_from_counts
from gradeframe.rubric import rubric_report, with_rubric
from gradeframe.samples import consistency, flaky, pass_at_k
from gradeframe.verdict import judge, read_verdict, with_judge

try:
    #: The installed version, from the package metadata (as ``gradeframe --version`` prints).
    __version__: str = _metadata.version("gradeframe")
except _metadata.PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"
del _metadata

__all__ = [
    "DEFAULT_NOT_FOUND_PHRASES",
    "DEFAULT_REFUSAL_PHRASES",
    "KINDS",
    "MAX_METADATA_LENGTH",
    "StatusWarning",
    "agreement",
    "answer_contains",
    "chart",
    "choice",
    "compare",
    "compare_chart",
    "consistency",
    "equivalent",
    "exact_match",
    "example",
    "example_document",
    "example_logs",
    "extract",
    "extract_answer",
    "extract_boxed",
    "extract_number",
    "f1",
    "failures",
    "flaky",
    "fold",
    "html_report",
    "includes",
    "is_not_found",
    "is_refusal",
    "judge",
    "matches",
    "pass_at_k",
    "pass_at_k_chart",
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
    "read_table",
    "read_verdict",
    "report",
    "report_counts",
    "report_from_counts",
    "rubric_report",
    "scan_log",
    "tool_calls",
    "with_answer_contains",
    "with_choice",
    "with_equivalent",
    "with_exact_match",
    "with_f1",
    "with_includes",
    "with_judge",
    "with_matches",
    "with_rubric",
    "with_tool_calls",
    "with_within",
    "within",
]

if "dask.dataframe" in sys.modules:  # Dask is in use already: register ddf.grade too
    try:
        from gradeframe import dask as _dask  # noqa: F401
    except ImportError as _error:  # a Dask gradeframe.dask was not tested with
        import warnings

        warnings.warn(f"ddf.grade is not registered: {_error}", stacklevel=2)
        del warnings, _error

# Reward functions for RL trainers (no extra dependency), in their own namespace:
# gradeframe.rewards.accuracy_reward, compute_score, answer_contains_reward.
from gradeframe import rewards  # noqa: E402, F401

# The namespace is the public API and the submodules: not the names used to build it.
del sys
