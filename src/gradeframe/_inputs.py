"""Resolving arguments to expressions: column names, struct fields, dtype checks and errors.

One rule for every argument: a ``str`` names a column (except where the parameter is documented
as a pattern, label or phrase), a ``pl.Expr`` is used as it is. Errors name the argument, what was
expected and what was given, and are raised when the call is made, not at ``collect()``.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any, TypeAlias

import polars as pl

IntoExpr: TypeAlias = str | pl.Expr
Schema: TypeAlias = Mapping[str, pl.DataType]

_TEXT_DTYPES = (pl.String, pl.Categorical, pl.Enum)


def lone_surrogate(text: str) -> int | None:
    r"""Return where ``text`` holds a lone UTF-16 surrogate (None: it is valid text).

    Python text may hold one (``"\ud800"``, from bytes decoded with ``surrogateescape`` or a
    JSON escape read by Python's json); UTF-8, and so Arrow and Polars, cannot.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def surrogate_error(where: str, text: str, at: int) -> ValueError:
    """Return the error for text with a lone surrogate: where it is, the character, the fix."""
    msg = (
        f"{where} holds a lone surrogate {text[at]!r} at character {at} "
        f"({text[max(0, at - 20) : at + 20]!r}): not text that UTF-8 (so Polars) can hold. It "
        "comes from bytes decoded with errors='surrogateescape' or a lone JSON \\u escape; "
        "replace it first, for example with text.encode('utf-8', 'replace').decode('utf-8')."
    )
    return ValueError(msg)


def check_text(value: object, argument: str) -> None:
    """Raise a ValueError naming ``argument`` when a str argument holds a lone surrogate."""
    if isinstance(value, str) and (at := lone_surrogate(value)) is not None:
        raise surrogate_error(f"`{argument}`", value, at)


def to_expr(value: Any, argument: str) -> pl.Expr:
    """Return the expression an argument stands for: a column name or an expression."""
    if isinstance(value, str):
        check_text(value, argument)
        return pl.col(value)
    if isinstance(value, pl.Expr):
        return value
    msg = (
        f"`{argument}` must be a column name (str) or a polars expression, "
        f"got {type(value).__name__}: {value!r}"
    )
    raise TypeError(msg)


def keep_name(result: pl.Expr, original: pl.Expr) -> pl.Expr:
    """Name a result after the expression it was computed from, as Polars would."""
    name = original.meta.output_name(raise_if_undetermined=False)
    return result.alias(name) if name else result


def frame_schema(frame: pl.DataFrame | pl.LazyFrame) -> pl.Schema:
    """Return the schema of a frame without collecting a lazy one."""
    if isinstance(frame, pl.LazyFrame):
        return frame.collect_schema()
    return frame.schema


class MissingColumnError(pl.exceptions.ColumnNotFoundError, ValueError):
    """A column the call needs is missing, with what to do about it (also a ``ValueError``)."""


def check_column(schema: Schema, name: str, argument: str, advice: str = "") -> None:
    """Raise a ``ColumnNotFoundError`` naming the argument and the closest existing columns.

    ``advice``, when given, is a sentence saying what to do (say, "grade the frame first"); the
    error is then a :class:`MissingColumnError`, which is also a ``ValueError``.
    """
    if name in schema:
        return
    close = difflib.get_close_matches(name, list(schema), n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    shown = ", ".join(repr(c) for c in list(schema)[:20])
    more = ", ..." if len(schema) > 20 else ""
    msg = (
        f"`{argument}={name!r}`: the frame has no column {name!r}.{hint} "
        f"Its columns are: {shown}{more}."
    )
    if advice:
        raise MissingColumnError(f"{msg} {advice}")
    raise pl.exceptions.ColumnNotFoundError(msg)


def check_prefix(prefix: object) -> None:
    """Raise a TypeError unless ``prefix`` is a str."""
    if not isinstance(prefix, str):
        msg = f"`prefix` must be a str, got {type(prefix).__name__}: {prefix!r}"
        raise TypeError(msg)
    check_text(prefix, "prefix")


def check_output_names(schema: Schema, names: list[str]) -> None:
    """Refuse to overwrite input columns with result columns."""
    clash = [n for n in names if n in schema]
    if clash:
        msg = (
            f"the frame already has column(s) {', '.join(repr(c) for c in clash)}, which this "
            "call would add; input columns are never overwritten. Pass `prefix=` (for example "
            "prefix='grade_') to name the new columns apart, or drop the old ones first."
        )
        raise ValueError(msg)


def is_text(dtype: pl.DataType) -> bool:
    """Return whether a dtype holds text (String, Categorical or Enum)."""
    return isinstance(dtype, _TEXT_DTYPES) or dtype == pl.String


def as_text(expr: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """Cast a text column (String, Categorical, Enum) to String."""
    return expr if dtype == pl.String else expr.cast(pl.String)


def dtype_error(argument: str, name: str, dtype: pl.DataType, expected: str) -> TypeError:
    """Return a TypeError naming the argument, the column, its dtype and what was expected."""
    what = "the expression" if name.startswith("__gradeframe_") else f"column {name!r}"
    msg = f"`{argument}`: {what} has dtype {dtype}; expected {expected}."
    return TypeError(msg)


def struct_fields(dtype: pl.DataType) -> dict[str, pl.DataType]:
    """Return the fields of a struct dtype as a mapping (empty for any other dtype)."""
    if isinstance(dtype, pl.Struct):
        return {f.name: f.dtype for f in dtype.fields}
    return {}


#: The item columns tried in order when ``on`` is None:
#: ``question_id``; else ``task`` and ``sample_id`` together (log frames, whose sample ids repeat
#: across tasks); else ``sample_id``.
ITEM_DEFAULTS: tuple[tuple[str, ...], ...] = (
    ("question_id",),
    ("task", "sample_id"),
    ("sample_id",),
)


def item_columns(on: str | list[str] | tuple[str, ...] | None, schema: Schema) -> list[str]:
    """Return the columns that name an item: ``on`` as given, or the first default present.

    Parameters
    ----------
    on
        A column name, a list of column names, or None for the default
        (:data:`ITEM_DEFAULTS`).
    schema
        The frame's schema.

    Examples
    --------
    >>> item_columns(None, {"task": pl.String, "sample_id": pl.String, "model": pl.String})
    ['task', 'sample_id']
    >>> item_columns("qid", {"qid": pl.Int64})
    ['qid']
    """
    if on is not None:
        names = [on] if isinstance(on, str) else list(on)
        for name in names:
            check_column(schema, name, "on")
        return names
    for names in ITEM_DEFAULTS:
        if all(name in schema for name in names):
            return list(names)
    msg = (
        "`on` was not given and the frame has none of the default item columns: `question_id`, "
        "`task` with `sample_id`, or `sample_id`; pass on=... naming the column(s) that identify "
        f"an item (columns: {list(schema)[:12]!r})"
    )
    raise ValueError(msg)
