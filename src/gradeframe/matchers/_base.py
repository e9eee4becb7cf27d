"""The skeleton every matcher shares; a matcher module holds only its rule.

A matcher is described by a :class:`Matcher` (its name, the columns it adds with their dtypes,
and which arguments name columns, for the pandas accessor) and a *rule*: a function that takes
the resolved inputs (:class:`Input`: the expression, its name for messages, its dtype) and
returns one struct expression holding ``correct`` and the matcher's extra fields. Everything
else is here and written once:

- :func:`expression` checks ``prefix`` and ``label``, resolves the inputs against the frame's
  schema (or, without one, defers the whole matcher to when the data arrives, see
  :func:`deferred`, over :mod:`gradeframe._deferred`), runs the rule and builds the result
  struct, named ``prefix + name``, with ``expectation`` added and every field named
  ``prefix + field``.
- :func:`frame_result` is the body of every ``with_*`` function: it checks the prefix and the
  output names against the frame, computes the struct once and unnests it.
- :func:`column_arguments` is the pandas delegation hook: it tells the pandas accessor which
  columns a call needs and how to read each one through Arrow (the matcher's ``roles``).
- Reading values by kind (:func:`read`, :class:`Value`), text as a matcher reads it
  (:func:`as_text`), flags and labels (:func:`check_flag`, :func:`expectation`), and raising
  naming the row of a bad expected value (:func:`check_rows`).
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from numbers import Real
from typing import Any, Final, TypeAlias, TypeVar

import polars as pl

from gradeframe import _deferred, _mixed
from gradeframe._delegate import bind, insert_section
from gradeframe._inputs import (
    Schema,
    as_text,
    check_column,
    check_output_names,
    check_prefix,
    check_text,
    dtype_error,
    frame_schema,
    is_text,
    to_expr,
)
from gradeframe._threads import one_at_a_time

Frame: TypeAlias = pl.DataFrame | pl.LazyFrame
#: A rule: the resolved inputs, by argument name, to a struct with ``correct`` and the extras.
Rule: TypeAlias = Callable[[dict[str, "Input"]], pl.Expr]

#: A name no input column is expected to have, for the struct a frame function unnests.
_RESULT = "__gradeframe_matcher__"


@dataclass(frozen=True)
class Matcher:
    """What the skeleton needs to know about one matcher.

    Attributes
    ----------
    name
        The matcher's name: the struct expression is named ``prefix + name``.
    fields
        The columns it adds, in order, with their dtypes; always ``correct`` and
        ``expectation`` first.
    roles
        For the pandas accessor: the arguments that may name columns, each with how an object
        column is read through Arrow (``"mixed"``, ``"refs"``, ``"text"`` or None).
    """

    name: str
    fields: Mapping[str, pl.DataType]
    roles: Mapping[str, str | None] = field(default_factory=dict)

    @property
    def columns(self) -> tuple[str, ...]:
        """The names of the columns it adds, before ``prefix``."""
        return tuple(self.fields)

    def dtype(self, prefix: str) -> pl.Struct:
        """Return the dtype of the struct expression."""
        return pl.Struct({prefix + k: v for k, v in self.fields.items()})


Function = TypeVar("Function", bound=Callable[..., Any])


def matcher(name: str, roles: Mapping[str, str | None], **extra: pl.DataType) -> Matcher:
    """Describe a matcher: ``correct`` and ``expectation``, then its own fields."""
    fields = {"correct": pl.Boolean(), "expectation": pl.String(), **extra}
    return Matcher(name, fields, dict(roles))


# --------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------


#: The parameters every matcher's expression function ends with, documented here once and
#: added to each function's Parameters section by :func:`shares_parameters`.
SHARED_PARAMETERS: Final = """\
    prefix
        Put before each output name.
    schema
        The frame's schema, to check columns and dtypes now (the frame functions pass it).
"""


def shares_parameters(function: Function) -> Function:
    """Add :data:`SHARED_PARAMETERS` to the end of a matcher's Parameters section.

    The docstring in the source documents the matcher's own parameters; ``help()``, the
    methods built from it and the documentation show ``prefix`` and ``schema`` too.
    """
    return insert_section(function, SHARED_PARAMETERS, "\n    Returns\n    -------\n")


def check_flag(value: object, argument: str) -> None:
    """Raise unless a flag is True or False."""
    if not isinstance(value, bool):
        msg = f"`{argument}` must be True or False, got {type(value).__name__}: {value!r}"
        raise TypeError(msg)


def expectation(label: object, default: str) -> str:
    """Return the ``expectation`` text: the label, or the matcher's default description."""
    if label is None:
        return default
    if not isinstance(label, str):
        msg = f"`label` must be a str or None, got {type(label).__name__}: {label!r}"
        raise TypeError(msg)
    check_text(label, "label")
    return label


def check_tolerance(value: object, argument: str) -> float:
    """Return a tolerance argument as a float; raise naming it unless a finite number >= 0."""
    if not is_number(value):
        msg = f"`{argument}` must be a number, got {type(value).__name__}: {value!r}"
        raise TypeError(msg)
    if not math.isfinite(value) or value < 0:  # type: ignore[arg-type]
        msg = f"`{argument}` must be a finite number >= 0, got {value!r}"
        raise ValueError(msg)
    return float(value)  # type: ignore[arg-type]


def is_number(value: object) -> bool:
    """Return whether a Python value is a number (a bool is not)."""
    return isinstance(value, Real) and not isinstance(value, bool)


def into(value: Any, argument: str, *, literals: tuple[type, ...] = ()) -> pl.Expr:
    """Return the expression for a column name or expression, or a literal of the given types."""
    if literals and isinstance(value, literals) and not isinstance(value, str):
        return pl.lit(value)
    if isinstance(value, str | pl.Expr):
        return to_expr(value, argument)
    allowed = "a column name (str) or a polars expression (for a literal: pl.lit(...))"
    msg = f"`{argument}` must be {allowed}, got {type(value).__name__}: {value!r}"
    raise TypeError(msg)


def inputs(**values: Any) -> dict[str, tuple[Any, pl.Expr]]:
    """Return each argument as (the value as given, its expression): :func:`expression`'s input."""
    return {name: (value, into(value, name)) for name, value in values.items()}


def text_list(value: Any, argument: str, what: str) -> list[str] | None:
    """Return a Python list or tuple of strings as a list (None for anything else).

    Raises naming the item when an item is not a str.
    """
    if not isinstance(value, list | tuple):
        return None
    for i, item in enumerate(value):
        if not isinstance(item, str):
            kind = type(item).__name__
            msg = f"`{argument}[{i}]` must be a str ({what}), got {kind}: {item!r}"
            raise TypeError(msg)
    return list(value)


def expected_argument(
    value: Any, what: str, *, literals: tuple[type, ...] = ()
) -> tuple[Any, pl.Expr]:
    """Resolve ``expected`` as ``(what was given, its expression)`` for :func:`expression`.

    A Python list or tuple of strings is one literal list for every row; anything else is a
    column name, an expression or (of the ``literals`` types) a literal, as :func:`into` reads it.
    """
    listed = text_list(value, "expected", what)
    if listed is None:
        return value, into(value, "expected", literals=literals)
    literal = pl.lit(listed, dtype=pl.List(pl.String))
    return literal, literal


@dataclass(frozen=True)
class Input:
    """One input of a matcher, resolved against the frame's schema."""

    argument: str
    expr: pl.Expr
    name: str  # the column name, or "__gradeframe_<argument>__" for an expression
    dtype: pl.DataType

    @property
    def value(self) -> Value:
        """The input read by kind of value."""
        return read(self.expr, self.dtype)

    def error(self, expected: str) -> TypeError:
        """Return a dtype error naming this input."""
        return dtype_error(self.argument, self.name, self.dtype, expected)

    def text(self) -> pl.Expr:
        """Return the input read as text (see :func:`as_text_value`)."""
        return as_text_value(self.value, self)


def resolve(value: Any, expr: pl.Expr, argument: str, schema: Schema) -> Input:
    """Check a column exists and return the input with its dtype."""
    if isinstance(value, str):
        check_column(schema, value, argument)
        return Input(argument, expr, value, schema[value])
    dtype = pl.LazyFrame(schema=schema).select(expr.alias("_")).collect_schema()["_"]
    return Input(argument, expr, f"__gradeframe_{argument}__", dtype)


# --------------------------------------------------------------------------------------------
# The expression, deferred or not, and the frame function
# --------------------------------------------------------------------------------------------


def expression(
    spec: Matcher,
    arguments: Mapping[str, tuple[Any, pl.Expr]],
    rule: Rule,
    *,
    expectation: str,
    prefix: str,
    schema: Schema | None,
) -> pl.Expr:
    """Build a matcher's struct expression from its inputs and its rule.

    ``arguments`` maps each input's argument name to (the value as the user gave it, its
    expression). With a schema, the inputs are resolved now (missing columns and bad dtypes
    raise here); without one, the matcher runs when the data arrives (:func:`deferred`).
    """
    check_prefix(prefix)
    if schema is None:
        return deferred(spec, arguments, rule, expectation=expectation, prefix=prefix)
    inputs = {
        a: resolve(value, _deferred.broadcast(expr), a, schema)
        for a, (value, expr) in arguments.items()
    }
    stages = rule(inputs)
    fields = [
        (
            pl.lit(expectation, pl.String)
            if name == "expectation"
            else pl.field(name).cast(dtype, strict=False)
        ).alias(prefix + name)
        for name, dtype in spec.fields.items()
    ]
    return (
        stages.struct.with_fields(pl.struct(fields).alias(_RESULT))
        .struct.field(_RESULT)
        .alias(prefix + spec.name)
    )


def deferred(
    spec: Matcher,
    arguments: Mapping[str, tuple[Any, pl.Expr]],
    rule: Rule,
    *,
    expectation: str,
    prefix: str,
) -> pl.Expr:
    """Build the expression when the data arrives, from the dtypes it has (no schema given).

    The mechanism is :func:`gradeframe._deferred.deferred`, shared with answer_contains: the
    inputs become a frame and the same expression the frame functions use runs on it. Inputs
    are then expressions, so messages call them "the expression".
    """
    names = list(arguments)

    def grade(frame: pl.DataFrame) -> pl.Series:
        inner = {a: (pl.col(f"_{i}"), pl.col(f"_{i}")) for i, a in enumerate(names)}
        built = expression(
            spec, inner, rule, expectation=expectation, prefix=prefix, schema=frame.schema
        )
        return frame.select(built).to_series()

    inputs = {f"_{i}": expr for i, (_, expr) in enumerate(arguments.values())}
    return _deferred.deferred(
        inputs, grade, return_dtype=spec.dtype(prefix), name=prefix + spec.name
    )


def frame_result(
    columns: Sequence[str], frame: Frame, prefix: str, build: Callable[[Schema], pl.Expr]
) -> Frame:
    """Add a matcher's columns to a DataFrame or LazyFrame (the body of every ``with_*``).

    Same rows, same order, input columns untouched; a LazyFrame stays lazy. ``build`` makes the
    matcher's expression from the frame's schema, so columns and dtypes are checked now.
    """
    check_prefix(prefix)
    schema = frame_schema(frame)
    check_output_names(schema, [prefix + c for c in columns])
    # The struct is computed once, then taken apart: unnesting it in place would run the rule
    # (and any regex fallback in it) once per field.
    return (
        frame.with_columns(build(schema).alias(_RESULT))
        .with_columns(pl.col(_RESULT).struct.unnest())
        .drop(_RESULT)
    )


def frame_function(
    columns: Sequence[str],
    rule: Callable[..., pl.Expr],
    doc: str,
    *,
    guard: Callable[[], AbstractContextManager[Any]] = nullcontext,
) -> Callable[..., Any]:
    """Make a ``with_*`` frame function from the expression function ``rule``.

    Its parameters are the rule's, with the frame first and without ``schema`` (the frame's is
    passed); it adds the rule's ``columns`` (a struct's fields, before the prefix) with
    :func:`frame_result`, under the grading lock, inside ``guard()`` (a context that may reword
    an error), and ``doc`` is its docstring. ``inspect.signature`` and ``help()`` show the
    parameters. The matchers' and :func:`gradeframe.with_judge` are made so.
    """
    parameters = list(inspect.signature(rule).parameters.values())
    first = inspect.Parameter("frame", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation="Frame")
    own = [p for p in parameters if p.name != "schema"]
    signature = inspect.Signature([first, *own], return_annotation="Frame")

    def with_rule(*args: Any, **kwargs: Any) -> Any:
        bound = bind(f"with_{rule.__name__}", signature, args, kwargs)
        bound.apply_defaults()
        frame, *_ = bound.args
        given = dict(list(bound.arguments.items())[1:])
        with guard():
            return frame_result(
                columns, frame, given["prefix"], lambda schema: rule(**given, schema=schema)
            )

    with_rule.__name__ = with_rule.__qualname__ = f"with_{rule.__name__}"
    with_rule.__module__ = rule.__module__
    with_rule.__doc__ = doc
    with_rule.__signature__ = signature  # type: ignore[attr-defined]
    with_rule.__annotations__ = {
        **{p.name: p.annotation for p in [first, *own]},
        "return": "Frame",
    }
    return one_at_a_time(with_rule)


def column_arguments(
    spec: Matcher, function: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any]
) -> list[tuple[str, Any, str | None]]:
    """Return the (argument, value, role) of each argument naming columns (the pandas hook).

    ``function`` is the matcher's ``with_*`` function, called as ``function(frame, *args,
    **kwargs)``; its signature maps the positional arguments to their names.
    """
    bound = inspect.signature(function).bind_partial(None, *args, **kwargs).arguments
    return [(argument, bound.get(argument), role) for argument, role in spec.roles.items()]


# --------------------------------------------------------------------------------------------
# Reading values by dtype
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Value:
    """A column read by kind; a part is None when the column can hold no value of that kind."""

    expr: pl.Expr  # the column itself
    text: pl.Expr | None = None
    number: pl.Expr | None = None
    boolean: pl.Expr | None = None
    other: pl.Expr | None = None
    other_dtype: pl.DataType | None = None

    def parts(self) -> list[pl.Expr]:
        """Return the parts that can hold a value."""
        return [p for p in (self.text, self.number, self.boolean, self.other) if p is not None]

    def is_null(self) -> pl.Expr:
        """Return True where the value is missing in every part."""
        parts = self.parts()
        if not parts:
            return self.expr.is_null()  # a Null column: true in every row
        return pl.all_horizontal([p.is_null() for p in parts])


def read(expr: pl.Expr, dtype: pl.DataType) -> Value:
    """Read a column by kind: text, number (NaN is missing), boolean, or anything else."""
    if dtype == pl.Null:
        return Value(expr)
    if is_text(dtype):
        return Value(expr, text=as_text(expr, dtype))
    if dtype == pl.Boolean:
        return Value(expr, boolean=expr)
    if dtype.is_float():
        return Value(expr, number=expr.fill_nan(None))
    if dtype.is_numeric():
        return Value(expr, number=expr)
    if _mixed.is_mixed(dtype):
        number_dtype = next(f.dtype for f in dtype.fields if f.name == _mixed.NUMBER)  # type: ignore[union-attr]
        number = expr.struct.field(_mixed.NUMBER)
        return Value(
            expr,
            text=expr.struct.field(_mixed.TEXT),
            number=number.fill_nan(None) if number_dtype.is_float() else number,
            boolean=expr.struct.field(_mixed.BOOLEAN),
        )
    return Value(expr, other=expr, other_dtype=dtype)


def as_text_value(value: Value, source: Input) -> pl.Expr:
    """Read a value as text, as Ruby's ``to_s`` does: null reads as "".

    Numbers and booleans are written as Polars writes them (``12``, ``2.5``, ``true``).
    """
    parts = [value.text] if value.text is not None else []
    for part in (value.number, value.boolean):
        if part is not None:
            parts.append(part.cast(pl.String))
    if value.other is not None:
        other = value.other_dtype
        if other is None or other.is_nested() or other in (pl.Binary, pl.Object):
            raise source.error("text, a number or a boolean")
        parts.append(value.other.cast(pl.String))
    return pl.coalesce([*parts, pl.lit("")])


def shown(value: Value) -> pl.Expr:
    """How a value is shown in an error message: text quoted, numbers as written, else null."""
    parts = []
    if value.text is not None:
        parts.append(pl.lit("'") + value.text + pl.lit("'"))
    for part in (value.number, value.boolean):
        if part is not None:
            parts.append(part.cast(pl.String))
    return pl.coalesce([*parts, pl.lit("null")])


def on_distinct(expr: pl.Expr, build: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
    """Compute ``build(expr)`` once per distinct value of ``expr`` and give each row its result.

    For columns whose values repeat (expected letters, keys): the work runs on the distinct
    values and the rows take theirs by a join (null is a value like any other).
    """
    dtype = pl.select(build(pl.lit(None, pl.String)).alias("_")).to_series().dtype
    return expr.map_batches(lambda batch: _by_distinct(batch, build), return_dtype=dtype)


def _by_distinct(batch: pl.Series, build: Callable[[pl.Expr], pl.Expr]) -> pl.Series:
    """Compute ``build`` on the distinct values of a batch; the rows take theirs by a join."""
    rows = batch.alias("v").to_frame()
    distinct = rows.unique(maintain_order=False)
    table = distinct.select("v", out=build(pl.col("v")))
    joined = rows.join(table, on="v", how="left", nulls_equal=True, maintain_order="left")
    return joined.get_column("out").alias(batch.name)


#: :func:`on_repeats` looks at this many rows of a batch, spread evenly over it ...
REPEAT_SAMPLE = 10_000
#: ... and dedupes when at most this share of them are distinct.
REPEAT_SHARE = 0.2


def on_repeats(
    expr: pl.Expr, build: Callable[[pl.Expr], pl.Expr], *, return_dtype: pl.DataType
) -> pl.Expr:
    """Return ``build(expr)``, computed once per distinct value when the values repeat.

    Adaptive, because deduping is not free: finding the distinct values of a batch and joining
    the rows back costs more than a rule such as choice's reading does on every row when the
    values are all distinct (long reasoning replies: two to four times the time), but saves
    nearly all of it when they repeat (multiple-choice replies: "B", "(B)", "ANSWER: B"). So
    each batch is looked at first, by a sample of :data:`REPEAT_SAMPLE` rows spread over it
    (about a millisecond on a million rows). When at most :data:`REPEAT_SHARE` of the sampled
    values are distinct, ``build`` runs on the batch's distinct values and the rows take theirs
    by a join (as :func:`on_distinct` does); else it runs on every row (in one chunk per
    thread, see :func:`in_chunks`). On choice's benchmark replies with a share of them made
    unique, deduping paid off up to about 30 % distinct; a fifth leaves a margin. A sample
    underestimates how many values repeat when there are more distinct values than sampled rows
    (10,000 rows drawn from 50,000 values are nearly all distinct): such a batch is read row by
    row, as it was before. Either way the result is the same; only the time differs.

    ``build`` must be elementwise (each row's result depends on its value alone): the call is
    marked elementwise, so it streams.
    """

    def run(batch: pl.Series) -> pl.Series:
        step = max(1, batch.len() // REPEAT_SAMPLE)
        sample = batch.gather_every(step)
        if sample.n_unique() <= REPEAT_SHARE * sample.len():
            return _by_distinct(batch, build)
        rows = in_chunks(batch.alias("v").to_frame())
        return rows.select(build(pl.col("v"))).to_series().alias(batch.name)

    return expr.map_batches(run, return_dtype=return_dtype, is_elementwise=True)


#: :func:`in_chunks` leaves a chunk at least this many rows.
CHUNK_ROWS = 50_000


def in_chunks(frame: pl.DataFrame) -> pl.DataFrame:
    """Return the frame in one chunk per thread of Polars' pool (the same rows, in order).

    Polars runs a string kernel (a regex, a split) on the chunks of a column in parallel, but
    on one chunk in one thread; a column built in one piece is one chunk, so a rule run on it
    uses one core however many the machine has. The chunks are zero-copy slices. A frame that
    already has as many chunks, or too few rows to be worth it, is returned as it is.
    """
    parts = min(pl.thread_pool_size(), frame.height // CHUNK_ROWS)
    if parts < 2 or frame.n_chunks() >= parts:
        return frame
    size = -(-frame.height // parts)
    slices = [frame.slice(start, size) for start in range(0, frame.height, size)]
    return pl.concat(slices, rechunk=False)


def check_rows(checked: pl.Expr, *, matcher: str, return_dtype: pl.DataType) -> pl.Expr:
    """Pass a value through, raising naming the first row where something is wrong with it.

    ``checked`` is a struct with the fields ``value`` (passed through) and ``problem`` (String:
    null where the row is fine, else what is wrong with its expected value, as in "is null;
    ..."). One ``map_batches`` over whole columns, never row by row.
    """

    def run(batch: pl.Series) -> pl.Series:
        problems = batch.struct.field("problem")
        bad = problems.is_not_null()
        if bad.any():
            row = int(bad.arg_true()[0])
            msg = f"`{matcher}`: the expected value in row {row} {problems[row]}"
            raise ValueError(msg)
        return batch.struct.field("value")

    return checked.map_batches(run, return_dtype=return_dtype)
