"""The ``.grade`` accessor on pandas DataFrame and Series: an Arrow round trip, nothing more.

Only the columns a call needs go to Polars (through Arrow); the same frame-level function runs
there; the columns it adds come back and are attached to a copy of the caller's frame, by
position, so the index (RangeIndex, labels, MultiIndex, duplicates) is kept as it was. The
caller's frame is never changed.

Result dtypes: Boolean columns without nulls are NumPy ``bool``; String columns use the pandas
string dtype ``str`` (``pd.StringDtype(na_value=nan)``, the pandas 3 default); other columns are
what ``polars.Series.to_pandas`` gives.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final

import pandas as pd
import polars as pl

from gradeframe import answer as answer_rules
from gradeframe import matchers as matcher_rules
from gradeframe import rubric as rubric_rules
from gradeframe import verdict as verdict_rules
from gradeframe._delegate import add_methods
from gradeframe._frames import (
    Role,
    needed_columns,
    to_pandas_column,
    to_polars,
)
from gradeframe._inputs import check_output_names, check_prefix
from gradeframe._methods import GRADING, TEXT
from gradeframe._record import BY_NAME
from gradeframe._summary import SummaryMethods
from gradeframe.matchers import _base as matcher_base


def run_on_pandas(
    frame: pd.DataFrame,
    function: Callable[..., pl.DataFrame],
    columns: Mapping[str, Role | None],
    /,
    *args: Any,
    **kwargs: Any,
) -> pd.DataFrame:
    """Run a Polars frame-level function on a pandas frame and attach the columns it adds."""
    polars_frame = to_polars(frame, columns)
    result = function(polars_frame, *args, **kwargs)
    added = [c for c in result.columns if c not in polars_frame.columns]
    out = frame.copy(deep=False)  # copy-on-write: the caller's frame is never changed
    for name in added:
        out[name] = to_pandas_column(result.get_column(name))
    return out


#: The Series methods whose expression is a struct: they return a frame of its fields.
_FIELDS: Final = {"read_verdict": "pd.DataFrame"}


@pd.api.extensions.register_dataframe_accessor("grade")
@add_methods(GRADING, returns="pd.DataFrame", runner="_grade")
class PandasFrameGrade(SummaryMethods[pd.DataFrame]):
    """``df.grade``: gradeframe on a pandas DataFrame (same answers as Polars).

    Each method has the parameters and docstring of the function it runs (see
    :mod:`gradeframe._delegate`). A grading method runs through :meth:`_grade`, which finds the
    columns it reads with their roles, and :meth:`_add_columns` converts just those through
    Arrow.
    """

    def __init__(self, frame: pd.DataFrame) -> None:
        if not isinstance(frame, pd.DataFrame):  # pragma: no cover - pandas guarantees this
            msg = "`.grade` works on a pandas DataFrame"
            raise AttributeError(msg)
        self._frame = frame

    def _add_columns(
        self,
        function: Callable[..., pl.DataFrame],
        columns: Sequence[str],
        arguments: Iterable[tuple[str, Any, Role | None]],
        /,
        *args: Any,
        **kwargs: Any,
    ) -> pd.DataFrame:
        """Check the arguments on the whole pandas frame, then run a Polars frame function."""
        prefix = kwargs.get("prefix", "")
        check_prefix(prefix)
        needed = needed_columns(self._frame, arguments)
        present = {str(c): pl.Null() for c in self._frame.columns}
        check_output_names(present, [prefix + c for c in columns])
        return run_on_pandas(self._frame, function, needed, *args, **kwargs)

    def _grade(
        self, function: Callable[..., pl.DataFrame], /, *args: Any, **kwargs: Any
    ) -> pd.DataFrame:
        """Run a grading method's frame function on the columns it reads (by their roles)."""
        bound = inspect.signature(function).bind(None, *args, **kwargs)
        bound.apply_defaults()  # a column named by a default is read too
        given = dict(list(bound.arguments.items())[1:])  # not the frame
        if function in _ROLES:
            columns, roles = _ROLES[function](given, self._frame)
        else:  # a matcher: its description says which arguments name columns
            spec = matcher_rules.spec_of(function)
            columns = spec.columns
            roles = matcher_base.column_arguments(spec, function, (), given)
        return self._add_columns(function, columns, roles, *args, **kwargs)


def _by_name(frame: pd.DataFrame, roles: Iterable[str]) -> list[tuple[str, Any, Role | None]]:
    """Return the flat record columns a rule reads by name (BY_NAME) that the frame has."""
    present = {str(c) for c in frame.columns}
    return [(role, role, None) for role in BY_NAME if role in roles and role in present]


def _answer_contains_roles(given: Mapping[str, Any], frame: pd.DataFrame) -> tuple[Any, Any]:
    arguments = [
        ("answer", given["answer"], "text"),
        ("refs", given["refs"], "refs"),
        *[(name, given[name], None) for name in ("partial", "notes", "trace", "status")],
        ("failure_kind", given["failure_kind"], None),
        *[
            (name, value if isinstance(value, str | pl.Expr) else None, None)
            for name, value in (("not_found", given["not_found"]), ("refusal", given["refusal"]))
        ],
    ]
    unset = [role for role in BY_NAME if given[role] is None]
    columns = answer_rules.output_columns(explain=given["explain"])
    return columns, arguments + _by_name(frame, unset)


def _judge_roles(given: Mapping[str, Any], frame: pd.DataFrame) -> tuple[Any, Any]:
    arguments = [(name, given[name], "text" if name == "text" else None) for name in _JUDGE_READS]
    if given["answer"] is not None:
        arguments += _by_name(frame, BY_NAME)
    return verdict_rules.JUDGE_COLUMNS, arguments


def _rubric_roles(given: Mapping[str, Any], frame: pd.DataFrame) -> tuple[Any, Any]:
    return rubric_rules.RUBRIC_COLUMNS, [(name, given[name], None) for name in ("criteria", "met")]


_JUDGE_READS: Final = ("text", "expected", "answer")

#: The output columns and the (argument, value, role) of each column read, for the grading
#: methods that are not matchers (a matcher's description says it: ``spec_of``).
_ROLES: Final = {
    answer_rules.with_answer_contains: _answer_contains_roles,
    verdict_rules.with_judge: _judge_roles,
    rubric_rules.with_rubric: _rubric_roles,
}


@pd.api.extensions.register_series_accessor("grade")
@add_methods(TEXT, returns={**dict.fromkeys(TEXT, "pd.Series"), **_FIELDS}, runner="_run")
class PandasSeriesGrade:
    """``s.grade``: the text rules on a pandas Series, with its index kept."""

    def __init__(self, series: pd.Series) -> None:
        self._series = series

    def _run(
        self, function: Callable[..., pl.Expr], /, *args: Any, **kwargs: Any
    ) -> pd.Series | pd.DataFrame:
        """Run an expression function on this Series (as text); the index and name are kept.

        A struct result (``read_verdict``'s) comes back as a DataFrame of its fields.
        """
        name = "__gradeframe__"
        frame = to_polars(self._series.to_frame(name), {name: "text"})
        values = frame.select(function(pl.col(name), *args, **kwargs).alias(name)).to_series()
        if function.__name__ in _FIELDS:
            fields = values.struct.unnest()
            return pd.DataFrame(
                {c: to_pandas_column(fields.get_column(c)) for c in fields.columns},
                index=self._series.index,
            )
        return pd.Series(to_pandas_column(values), index=self._series.index, name=self._series.name)
