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

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pandas as pd
import polars as pl

from gradeframe import answer as answer_rules
from gradeframe import extract as extract_rules
from gradeframe import fold as fold_rules
from gradeframe import matchers as matcher_rules
from gradeframe import rubric as rubric_rules
from gradeframe import verdict as verdict_rules
from gradeframe._delegate import delegates
from gradeframe._frames import (
    Role,
    needed_columns,
    to_pandas_column,
    to_polars,
)
from gradeframe._inputs import IntoExpr, check_output_names, check_prefix
from gradeframe._record import BY_NAME
from gradeframe._summary import SummaryMethods
from gradeframe.answer import NotFound, Refusal
from gradeframe.extract import Which
from gradeframe.matchers import _base as matcher_base
from gradeframe.matchers.equivalent import Fallback, Percent
from gradeframe.matchers.matches import PatternLike
from gradeframe.matchers.tool_calls import Arguments, Mode
from gradeframe.verdict import OnConflict, Scheme


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


@pd.api.extensions.register_dataframe_accessor("grade")
class PandasFrameGrade(SummaryMethods[pd.DataFrame]):
    """``df.grade``: gradeframe on a pandas DataFrame (same answers as Polars).

    Each method spells out its parameters and takes its docstring from the function it runs (see
    :mod:`gradeframe._delegate`). A grading method lists the columns it reads with their roles
    (``arguments``), and :meth:`_add_columns` converts just those through Arrow.
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

    @delegates(answer_rules.with_answer_contains, doc=answer_rules.answer_contains)
    def answer_contains(
        self,
        answer: IntoExpr = "answer",
        refs: IntoExpr = "refs",
        *,
        partial: IntoExpr | None = None,
        notes: IntoExpr | None = None,
        trace: IntoExpr | None = None,
        status: IntoExpr | None = None,
        failure_kind: IntoExpr | None = None,
        not_found: NotFound = None,
        refusal: Refusal = None,
        whole_words: bool = False,
        explain: bool = False,
        prefix: str = "",
    ) -> pd.DataFrame:
        arguments = [
            ("answer", answer, "text"),
            ("refs", refs, "refs"),
            ("partial", partial, None),
            ("notes", notes, None),
            ("trace", trace, None),
            ("status", status, None),
            ("failure_kind", failure_kind, None),
            ("not_found", not_found if isinstance(not_found, str | pl.Expr) else None, None),
            ("refusal", refusal if isinstance(refusal, str | pl.Expr) else None, None),
        ]
        # Flat record columns read by name (BY_NAME) go to Polars too.
        given = {"partial": partial, "notes": notes, "trace": trace, "status": status}
        present = {str(c) for c in self._frame.columns}
        arguments += [
            (role, role, None) for role in BY_NAME if given[role] is None and role in present
        ]
        return self._add_columns(
            answer_rules.with_answer_contains,
            answer_rules.output_columns(explain=explain),
            arguments,
            answer,
            refs,
            partial=partial,
            notes=notes,
            trace=trace,
            status=status,
            failure_kind=failure_kind,
            not_found=not_found,
            refusal=refusal,
            whole_words=whole_words,
            explain=explain,
            prefix=prefix,
        )

    def _matcher(self, function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> pd.DataFrame:
        """Run a matcher's frame function; its description says which arguments name columns."""
        spec = matcher_rules.spec_of(function)
        arguments = matcher_base.column_arguments(spec, function, args, kwargs)
        return self._add_columns(function, spec.columns, arguments, *args, **kwargs)

    @delegates(matcher_rules.with_exact_match, doc=matcher_rules.exact_match)
    def exact_match(
        self,
        actual: IntoExpr,
        expected: IntoExpr | bool | float | Sequence[str],
        *,
        ignore_case: bool = True,
        strip: bool = True,
        fold: bool = False,
        label: str | None = None,
        prefix: str = "",
    ) -> pd.DataFrame:
        return self._matcher(
            matcher_rules.with_exact_match,
            actual,
            expected,
            ignore_case=ignore_case,
            strip=strip,
            fold=fold,
            label=label,
            prefix=prefix,
        )

    @delegates(matcher_rules.with_includes, doc=matcher_rules.includes)
    def includes(
        self,
        actual: IntoExpr,
        expected: IntoExpr | Sequence[str],
        *,
        ignore_case: bool = True,
        fold: bool = False,
        label: str | None = None,
        prefix: str = "",
    ) -> pd.DataFrame:
        return self._matcher(
            matcher_rules.with_includes,
            actual,
            expected,
            ignore_case=ignore_case,
            fold=fold,
            label=label,
            prefix=prefix,
        )

    @delegates(matcher_rules.with_matches, doc=matcher_rules.matches)
    def matches(
        self,
        actual: IntoExpr,
        pattern: PatternLike | None = None,
        *,
        pattern_column: IntoExpr | None = None,
        label: str | None = None,
        prefix: str = "",
    ) -> pd.DataFrame:
        return self._matcher(
            matcher_rules.with_matches,
            actual,
            pattern,
            pattern_column=pattern_column,
            label=label,
            prefix=prefix,
        )

    @delegates(matcher_rules.with_within, doc=matcher_rules.within)
    def within(
        self,
        actual: IntoExpr,
        expected: IntoExpr | float,
        *,
        delta: float | None = None,
        percent: float | None = None,
        label: str | None = None,
        prefix: str = "",
    ) -> pd.DataFrame:
        return self._matcher(
            matcher_rules.with_within,
            actual,
            expected,
            delta=delta,
            percent=percent,
            label=label,
            prefix=prefix,
        )

    @delegates(matcher_rules.with_choice, doc=matcher_rules.choice)
    def choice(
        self,
        actual: IntoExpr,
        expected: IntoExpr | Sequence[str],
        *,
        letters: str = "ABCDEFGHIJ",
        label: str | None = None,
        prefix: str = "",
    ) -> pd.DataFrame:
        return self._matcher(
            matcher_rules.with_choice, actual, expected, letters=letters, label=label, prefix=prefix
        )

    @delegates(matcher_rules.with_f1, doc=matcher_rules.f1)
    def f1(
        self,
        actual: IntoExpr,
        expected: IntoExpr | Sequence[str],
        *,
        threshold: float = 0.5,
        label: str | None = None,
        prefix: str = "",
    ) -> pd.DataFrame:
        return self._matcher(
            matcher_rules.with_f1, actual, expected, threshold=threshold, label=label, prefix=prefix
        )

    @delegates(matcher_rules.with_equivalent, doc=matcher_rules.equivalent)
    def equivalent(
        self,
        actual: IntoExpr,
        expected: IntoExpr,
        *,
        percent: Percent = "either",
        rel_tol: float = 0.0,
        abs_tol: float = 0.0,
        fallback: Fallback = "symbolic",
        timeout: float = 5.0,
        label: str | None = None,
        prefix: str = "",
    ) -> pd.DataFrame:
        return self._matcher(
            matcher_rules.with_equivalent,
            actual,
            expected,
            percent=percent,
            rel_tol=rel_tol,
            abs_tol=abs_tol,
            fallback=fallback,
            timeout=timeout,
            label=label,
            prefix=prefix,
        )

    @delegates(verdict_rules.with_judge, doc=verdict_rules.judge)
    def judge(
        self,
        text: IntoExpr = "judge",
        *,
        scheme: Scheme = "grade",
        expected: IntoExpr | None = None,
        answer: IntoExpr | None = None,
        pass_score: float | None = None,
        choices: Sequence[str] | None = None,
        scale: tuple[float, float] | None = None,
        on_conflict: OnConflict = "last",
        prefix: str = "",
    ) -> pd.DataFrame:
        arguments = [("text", text, "text"), ("expected", expected, None), ("answer", answer, None)]
        if answer is not None:  # flat record columns read by name (BY_NAME)
            present = {str(c) for c in self._frame.columns}
            arguments += [(role, role, None) for role in BY_NAME if role in present]
        return self._add_columns(
            verdict_rules.with_judge,
            verdict_rules.JUDGE_COLUMNS,
            arguments,
            text,
            scheme=scheme,
            expected=expected,
            answer=answer,
            pass_score=pass_score,
            choices=choices,
            scale=scale,
            on_conflict=on_conflict,
            prefix=prefix,
        )

    @delegates(rubric_rules.with_rubric)
    def rubric(
        self, criteria: str = "rubric", met: str = "met", *, prefix: str = ""
    ) -> pd.DataFrame:
        arguments = [("criteria", criteria, None), ("met", met, None)]
        return self._add_columns(
            rubric_rules.with_rubric,
            rubric_rules.RUBRIC_COLUMNS,
            arguments,
            criteria,
            met,
            prefix=prefix,
        )

    @delegates(matcher_rules.with_tool_calls, doc=matcher_rules.tool_calls)
    def tool_calls(
        self,
        actual: IntoExpr = "tool_calls",
        expected: IntoExpr = "expected_calls",
        *,
        mode: Mode = "in_order",
        arguments: Arguments = "exact",
        rel_tol: float = 0.0,
        label: str | None = None,
        prefix: str = "",
    ) -> pd.DataFrame:
        return self._matcher(
            matcher_rules.with_tool_calls,
            actual,
            expected,
            mode=mode,
            arguments=arguments,
            rel_tol=rel_tol,
            label=label,
            prefix=prefix,
        )


@pd.api.extensions.register_series_accessor("grade")
class PandasSeriesGrade:
    """``s.grade``: the text rules on a pandas Series, with its index kept."""

    def __init__(self, series: pd.Series) -> None:
        self._series = series

    def _run(self, function: Callable[..., pl.Expr], /, *args: Any, **kwargs: Any) -> pd.Series:
        """Run an expression function on this Series (as text); the index and name are kept."""
        name = "__gradeframe__"
        frame = to_polars(self._series.to_frame(name), {name: "text"})
        values = frame.select(function(pl.col(name), *args, **kwargs).alias(name)).to_series()
        return pd.Series(to_pandas_column(values), index=self._series.index, name=self._series.name)

    @delegates(fold_rules.fold)
    def fold(self) -> pd.Series:
        return self._run(fold_rules.fold)

    @delegates(answer_rules.is_not_found)
    def is_not_found(self, *, phrases: Sequence[str] | None = None) -> pd.Series:
        return self._run(answer_rules.is_not_found, phrases=phrases)

    @delegates(answer_rules.is_refusal)
    def is_refusal(self, *, phrases: Sequence[str] | None = None) -> pd.Series:
        return self._run(answer_rules.is_refusal, phrases=phrases)

    @delegates(extract_rules.extract_answer)
    def extract_answer(self, *, marker: str = "answer") -> pd.Series:
        return self._run(extract_rules.extract_answer, marker=marker)

    @delegates(extract_rules.extract)
    def extract(self, pattern: PatternLike, *, group: int = 1, which: Which = "last") -> pd.Series:
        return self._run(extract_rules.extract, pattern, group=group, which=which)

    @delegates(extract_rules.extract_number)
    def extract_number(self, *, which: Which = "last") -> pd.Series:
        return self._run(extract_rules.extract_number, which=which)

    @delegates(extract_rules.extract_boxed)
    def extract_boxed(self) -> pd.Series:
        return self._run(extract_rules.extract_boxed)

    @delegates(verdict_rules.read_verdict)
    def read_verdict(
        self,
        *,
        scheme: Scheme = "grade",
        choices: Sequence[str] | None = None,
        scale: tuple[float, float] | None = None,
        on_conflict: OnConflict = "last",
    ) -> pd.DataFrame:
        """Return a pandas DataFrame of ``verdict``, ``score``, ``grader_failure`` (index kept)."""
        expr = verdict_rules.read_verdict(
            pl.col("__gradeframe__"),
            scheme=scheme,
            choices=choices,
            scale=scale,
            on_conflict=on_conflict,
        )
        name = "__gradeframe__"
        frame = to_polars(self._series.to_frame(name), {name: "text"})
        fields = frame.select(expr.alias(name)).unnest(name)
        return pd.DataFrame(
            {c: to_pandas_column(fields.get_column(c)) for c in fields.columns},
            index=self._series.index,
        )
