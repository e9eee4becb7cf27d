"""The matchers: exact_match, includes, matches, within, choice, f1, equivalent, tool_calls.

Each matcher is a function returning one struct expression with the fields ``correct``
(Boolean, never null) and ``expectation`` (String: the ``label``, or the matcher's default
description), plus its own extra fields, all named ``prefix + name``. The ``with_*`` functions
(and the ``.grade`` methods that delegate to them) add those fields to a frame as columns.
Each lives in a module of its own (``exact``, ``includes``, ``matches``, ``within``, ``choice``,
``f1``) over one shared skeleton (``_base``); the package re-exports the functions, so
``gradeframe.matchers.matches`` is the function (the module is
``sys.modules["gradeframe.matchers.matches"]``).

Arguments
---------
``actual`` is always a column name (``str``) or an expression. ``expected`` is a column name or
an expression too; a literal is passed as ``pl.lit(...)``. Because a ``str`` always names a
column, a literal string must be wrapped: ``expected=pl.lit("Paris")``. Values that cannot be
column names are read as literals for convenience: a number or boolean in ``exact_match`` and
``within``, and a list of strings in ``exact_match``, ``includes``, ``choice`` and ``f1`` (the
same for every row). ``pattern``, ``letters`` and ``label`` are values, never column names;
per-row patterns come from ``pattern_column=``.

Dtypes are checked when the expression is built, if the frame's schema is known: the ``with_*``
functions and the ``.grade`` methods always know it. The bare expression functions called
without ``schema=`` work on any dtypes too: they read the dtypes when the data arrives (one
``map_batches`` call over whole columns), so their argument errors surface at ``collect()``.

Reading values
--------------
- Text is String, Categorical or Enum. Numbers are any numeric dtype; a float NaN is read as
  missing, as pandas reads it, so Polars and pandas agree.
- A pandas object column mixing strings, numbers and booleans keeps each value's kind (see
  :mod:`gradeframe._mixed`): ``"12"`` stays text and ``12`` stays a number.
- Where a matcher reads the answer as text (``includes``, ``matches``, ``choice``, ``f1``), a
  number or boolean is written as Polars writes it (``12``, ``2.5``, ``true``) and a null reads
  as ``""``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from gradeframe.matchers._base import Matcher
from gradeframe.matchers.choice import CHOICE, CHOICE_COLUMNS, choice, with_choice
from gradeframe.matchers.equivalent import (
    EQUIVALENT,
    EQUIVALENT_COLUMNS,
    equivalent,
    with_equivalent,
)
from gradeframe.matchers.exact import (
    EXACT_MATCH,
    EXACT_MATCH_COLUMNS,
    exact_match,
    with_exact_match,
)
from gradeframe.matchers.f1 import F1, F1_COLUMNS, f1, with_f1
from gradeframe.matchers.includes import INCLUDES, INCLUDES_COLUMNS, includes, with_includes
from gradeframe.matchers.matches import MATCHES, MATCHES_COLUMNS, matches, with_matches
from gradeframe.matchers.tool_calls import (
    TOOL_CALLS,
    TOOL_CALLS_COLUMNS,
    tool_calls,
    with_tool_calls,
)
from gradeframe.matchers.within import WITHIN, WITHIN_COLUMNS, with_within, within

__all__ = [
    "CHOICE_COLUMNS",
    "EQUIVALENT_COLUMNS",
    "EXACT_MATCH_COLUMNS",
    "F1_COLUMNS",
    "INCLUDES_COLUMNS",
    "MATCHES_COLUMNS",
    "MAX_METADATA_LENGTH",
    "REGEX_BUDGET",
    "REGEX_TIMEOUT",
    "TOOL_CALLS_COLUMNS",
    "WITHIN_COLUMNS",
    "choice",
    "equivalent",
    "exact_match",
    "f1",
    "includes",
    "matches",
    "spec_of",
    "tool_calls",
    "with_choice",
    "with_equivalent",
    "with_exact_match",
    "with_f1",
    "with_includes",
    "with_matches",
    "with_tool_calls",
    "with_within",
    "within",
]

#: Seconds one search may take on the ``regex`` fallback of :func:`matches` before the pattern
#: is reported as too slow (catastrophic backtracking). Read when the search runs, so setting
#: ``gradeframe.matchers.REGEX_TIMEOUT`` at run time takes effect.
REGEX_TIMEOUT: float = 1.0

#: Seconds all the searches of one call on the ``regex`` fallback may take together (one call:
#: a DataFrame, or one batch of a LazyFrame's rows), so that many slow answers, each under
#: :data:`REGEX_TIMEOUT`, cannot add up to minutes: past it the call raises naming the pattern
#: and how many rows were done. Read when a call starts.
REGEX_BUDGET: float = 10.0

#: Each frame function's description (the pandas accessor reads its ``roles``).
_SPECS: dict[Callable[..., Any], Matcher] = {
    with_choice: CHOICE,
    with_equivalent: EQUIVALENT,
    with_exact_match: EXACT_MATCH,
    with_f1: F1,
    with_includes: INCLUDES,
    with_matches: MATCHES,
    with_tool_calls: TOOL_CALLS,
    with_within: WITHIN,
}


def spec_of(function: Callable[..., Any]) -> Matcher:
    """Return the description of a matcher's ``with_*`` frame function."""
    return _SPECS[function]


def __getattr__(name: str) -> Any:
    """``MAX_METADATA_LENGTH`` is ``gradeframe.MAX_METADATA_LENGTH``, read when asked for.

    So setting ``gradeframe.MAX_METADATA_LENGTH`` at run time shows here too.
    """
    if name == "MAX_METADATA_LENGTH":
        return sys.modules["gradeframe"].MAX_METADATA_LENGTH
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)
