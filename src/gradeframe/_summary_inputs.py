"""What the summaries share: their arguments checked and read, and the frame types they take.

:mod:`gradeframe.report`, :mod:`gradeframe.failures`, :mod:`gradeframe.compare`,
:mod:`gradeframe.samples`, :mod:`gradeframe.chart` and the engines read ``by``, ``correct`` and
``failure_kind`` the same way, and take a Polars or a pandas frame the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeAlias, TypeVar

import polars as pl

from gradeframe import kinds
from gradeframe._delegate import insert_section
from gradeframe._inputs import (
    Schema,
    as_text,
    check_column,
    dtype_error,
    is_text,
)

if TYPE_CHECKING:  # pragma: no cover
    pass


Frame: TypeAlias = pl.DataFrame | pl.LazyFrame
By: TypeAlias = str | Sequence[str] | None


Function = TypeVar("Function", bound=Callable[..., Any])

#: The Returns section of a summary that returns the kind of frame it is given.
SAME_KIND_RETURNED: Final = """\
    Returns
    -------
    pl.DataFrame | pl.LazyFrame | pandas.DataFrame
        The same kind of frame as the input.

"""


def returns_same_kind(function: Function) -> Function:
    """Put :data:`SAME_KIND_RETURNED` before a summary's Examples section (written once)."""
    return insert_section(function, SAME_KIND_RETURNED, "    Examples\n    --------\n")


# --------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------


def by_columns(by: By, schema: Schema, argument: str = "by") -> list[str]:
    if by is None:
        return []
    names = [by] if isinstance(by, str) else by
    if not isinstance(names, Sequence) or not all(isinstance(b, str) for b in names):
        msg = f"`{argument}` must be None, a column name or a list of column names, got {by!r}"
        raise TypeError(msg)
    names = list(names)
    if len(set(names)) != len(names):
        msg = f"`{argument}` names a column more than once: {names!r}"
        raise ValueError(msg)
    for name in names:
        check_column(schema, name, argument)
    return names


def column_name(value: Any, argument: str) -> str:
    if not isinstance(value, str):
        kind = type(value).__name__
        msg = f"`{argument}` must be a column name (str), got {kind}: {value!r}"
        raise TypeError(msg)
    return value


def default_name(value: Any, default: str, prefix: str, argument: str) -> tuple[str, bool]:
    """Return the column an argument names, and whether it is the (prefixed) default."""
    name = column_name(value, argument)
    if name == default:
        return prefix + default, True
    return name, False


#: What to do when a summary finds no verdict column: grade the frame first.
GRADE_FIRST: Final = (
    "Grade the frame first: df.grade.answer_contains('answer', 'refs') (or a matcher such as "
    "df.grade.exact_match(...)) adds the Boolean `correct` column; or name your own Boolean "
    "verdict column with correct=..."
)


def correct_expr(correct: str, schema: Schema, argument: str = "correct") -> pl.Expr:
    check_column(schema, correct, argument, GRADE_FIRST)
    dtype = schema[correct]
    if dtype not in (pl.Boolean, pl.Null):
        raise dtype_error(argument, correct, dtype, "Boolean (as answer_contains adds it)")
    # A null is not right: it is counted in n and not in n_correct.
    return pl.col(correct).cast(pl.Boolean).fill_null(value=False)


def kind_expr(failure_kind: str, schema: Schema) -> pl.Expr:
    check_column(schema, failure_kind, "failure_kind")
    dtype = schema[failure_kind]
    if dtype == pl.Null:
        return pl.lit(None, dtype=pl.String)
    if not is_text(dtype):
        raise dtype_error("failure_kind", failure_kind, dtype, "String")
    return as_text(pl.col(failure_kind), dtype)


def score_expr(score: str, schema: Schema) -> pl.Expr:
    check_column(schema, score, "score")
    dtype = schema[score]
    if not (dtype.is_numeric() or dtype in (pl.Boolean, pl.Null)):
        raise dtype_error("score", score, dtype, "numeric (a score per row, such as f1)")
    # NaN is no score, like null: it is left out of the mean and its count.
    return pl.col(score).cast(pl.Float64).fill_nan(None)


def carried_kind_names(
    frame: Frame, kind: pl.Expr, carried_kinds: Sequence[str] | None
) -> list[str]:
    if carried_kinds is not None:
        if isinstance(carried_kinds, str) or not all(isinstance(k, str) for k in carried_kinds):
            msg = f"`carried_kinds` must be a list of failure kinds (str), got {carried_kinds!r}"
            raise TypeError(msg)
        return sorted(set(carried_kinds) - set(kinds.KINDS))
    distinct = frame.lazy().select(kind.drop_nulls().unique().alias("kind")).collect()
    return sorted(set(distinct.get_column("kind").to_list()) - set(kinds.KINDS))


def same_kind(result: pl.LazyFrame, frame: Frame) -> Frame:
    return result if isinstance(frame, pl.LazyFrame) else result.collect()


# --------------------------------------------------------------------------------------------
# Frame types
# --------------------------------------------------------------------------------------------


def is_pandas(frame: Any) -> bool:
    module = type(frame).__module__
    if not module.startswith("pandas"):
        return False
    import pandas as pd

    return isinstance(frame, pd.DataFrame)


def on_pandas(frame: Any, columns: Mapping[str, Any], run: Callable[[pl.DataFrame], Any]) -> Any:
    """Run a summary on a pandas frame, converted once at the edge each way.

    The columns ``columns`` names (with their roles, see :func:`gradeframe._frames.to_polars`)
    go to Polars through Arrow once; ``run`` computes the summary on them with Polars alone;
    a Polars DataFrame it returns comes back as a new pandas frame once (a default index, as
    every summary table has). Anything else it returns (a chart) is returned as it is.
    """
    from gradeframe import _frames

    result = run(_frames.to_polars(frame, columns))
    if isinstance(result, pl.LazyFrame):
        result = result.collect()
    if isinstance(result, pl.DataFrame):
        return _frames.to_pandas_frame(result)
    return result


def check_frame(frame: Any, function: str) -> None:
    if not isinstance(frame, pl.DataFrame | pl.LazyFrame):
        msg = (
            f"`{function}` takes a Polars DataFrame or LazyFrame or a pandas DataFrame, "
            f"got {type(frame).__name__}"
        )
        raise TypeError(msg)


def _pandas_by(by: By) -> list[str]:
    if by is None:
        return []
    return [by] if isinstance(by, str) else list(by)


def pandas_report_columns(
    frame: Any,
    by: By,
    correct: str,
    failure_kind: str | None,
    prefix: str,
    cluster: str | None = None,
    score: str | None = None,
) -> dict[str, None]:
    """Return the columns a report needs from a pandas frame, a missing one named by argument."""
    from gradeframe import _frames

    present = dict.fromkeys(str(c) for c in frame.columns)
    arguments: list[tuple[str, Any, None]] = [("by", name, None) for name in _pandas_by(by)]
    _frames.needed_columns(frame, arguments)  # a wrong `by` is named first, as on Polars
    correct_name, _ = default_name(correct, "correct", prefix, "correct")
    check_column(dict.fromkeys(present), correct_name, "correct", GRADE_FIRST)  # type: ignore[arg-type]
    arguments.append(("correct", correct_name, None))
    if failure_kind is not None:
        kind_name, default = default_name(failure_kind, "failure_kind", prefix, "failure_kind")
        if kind_name in present or not default:
            arguments.append(("failure_kind", kind_name, None))
    if cluster is not None:
        arguments.append(("cluster", cluster, None))
    if score is not None:
        arguments.append(("score", score, None))
    return _frames.needed_columns(frame, arguments)  # type: ignore[return-value]
