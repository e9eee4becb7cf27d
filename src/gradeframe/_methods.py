"""The ``.grade`` methods, one table each: what every namespace and accessor offers.

A row names a method, the function it runs and the function documenting the rule in full (or
None). The Polars and pandas namespaces (and Dask's accessor, through pandas) build their
methods from these tables with :func:`gradeframe._delegate.add_methods`, so a method's
parameters are its function's, written once, where the rule is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from gradeframe import answer as answer_rules
from gradeframe import extract as extract_rules
from gradeframe import fold as fold_rules
from gradeframe import matchers as matcher_rules
from gradeframe import rubric as rubric_rules
from gradeframe import verdict as verdict_rules

Table = dict[str, tuple[Callable[..., Any], Callable[..., Any] | None]]

#: The grading methods of a frame: each runs a ``with_*`` frame function.
GRADING: Final[Table] = {
    "answer_contains": (answer_rules.with_answer_contains, answer_rules.answer_contains),
    "exact_match": (matcher_rules.with_exact_match, matcher_rules.exact_match),
    "includes": (matcher_rules.with_includes, matcher_rules.includes),
    "choice": (matcher_rules.with_choice, matcher_rules.choice),
    "f1": (matcher_rules.with_f1, matcher_rules.f1),
    "matches": (matcher_rules.with_matches, matcher_rules.matches),
    "within": (matcher_rules.with_within, matcher_rules.within),
    "equivalent": (matcher_rules.with_equivalent, matcher_rules.equivalent),
    "judge": (verdict_rules.with_judge, verdict_rules.judge),
    "rubric": (rubric_rules.with_rubric, None),
    "tool_calls": (matcher_rules.with_tool_calls, matcher_rules.tool_calls),
}

#: The text methods of an expression or a Series: each runs an expression function.
TEXT: Final[Table] = {
    "fold": (fold_rules.fold, None),
    "is_not_found": (answer_rules.is_not_found, None),
    "is_refusal": (answer_rules.is_refusal, None),
    "extract_answer": (extract_rules.extract_answer, None),
    "extract": (extract_rules.extract, None),
    "extract_number": (extract_rules.extract_number, None),
    "extract_boxed": (extract_rules.extract_boxed, None),
    "read_verdict": (verdict_rules.read_verdict, None),
}
