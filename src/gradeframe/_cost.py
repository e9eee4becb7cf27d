"""Cost, tokens and latency per group of a report: the columns ``report(..., cost=)`` adds.

A report is built in two steps (see :mod:`gradeframe.report`), and so is its cost. The
additive step, :func:`grouped_counts`, adds to :func:`gradeframe.report_counts`'s group-by the
token sums and counts of unknowns (priced per model, then every one adds up across
partitions); the final step,
:func:`report_columns`, turns the summed counts into the cost columns, and :func:`with_pareto`
marks the groups no other group beats on both accuracy and cost. The latency percentiles are
not additive: :func:`percentiles` computes them from the rows themselves.

The readers' token convention, which the prices follow (inspect's ``ModelUsage``):

- ``input_tokens`` are the input tokens charged at the full rate: they do *not* include the
  ``cache_read_tokens`` (read from the provider's prompt cache), which are charged at the
  ``cache_read`` price, so no token is charged twice;
- ``reasoning_tokens`` are part of ``output_tokens`` (every provider inspect reads counts them
  there): they are charged at the ``reasoning`` price *instead of* the output price. A price
  without a ``reasoning`` key charges them what any output token costs (they are output
  tokens; charging them 0 would make a reasoning model look free). Every other missing key
  is 0.
- A null ``cache_read_tokens`` or ``reasoning_tokens`` is none (the tools leave them out when
  there were none); a null ``input_tokens`` or ``output_tokens`` is unknown usage.
- A row with a grader's tokens (either count) had a grader call; with one count of the two,
  or no price for its ``grader_model``, the call's cost is unknown.

The grader's tokens (``grader_input_tokens``, ``grader_output_tokens``, read apart from the
model's) are priced at the grader model's own price (its name in ``grader_model``) into
``grader_cost``, never into ``cost``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import polars as pl

from gradeframe._inputs import Schema

#: The keys of a model's prices: dollars per million tokens.
PRICE_KEYS: Final = ("input", "output", "cache_read", "reasoning")

#: The columns the prices are read against.
MODEL: Final = "model"
INPUT: Final = "input_tokens"
OUTPUT: Final = "output_tokens"
CACHE_READ: Final = "cache_read_tokens"
REASONING: Final = "reasoning_tokens"
SECONDS: Final = "seconds"
GRADER_INPUT: Final = "grader_input_tokens"
GRADER_OUTPUT: Final = "grader_output_tokens"
GRADER_MODEL: Final = "grader_model"

#: The additive columns :func:`grouped_counts` adds to :func:`gradeframe.report_counts`.
COUNT_COLUMNS: Final = (
    "input_tokens",
    "output_tokens",
    "tokens_unknown",
    "cost_sum",
    "cost_unknown",
    "grader_cost_sum",
    "grader_cost_unknown",
)

#: The columns ``report(cost=)`` adds, in order (the percentiles with ``seconds``, the grader's
#: cost with grader tokens).
REPORT_COLUMNS: Final = (
    "input_tokens",
    "output_tokens",
    "cost",
    "cost_per_correct",
    "correct_per_1k_tokens",
    "seconds_p50",
    "seconds_p95",
    "pareto",
    "cost_unknown",
    "grader_cost",
)

_MILLION: Final = 1_000_000.0

#: Prices as checked: model -> key -> dollars per million tokens (every key present).
Prices = dict[str, dict[str, float]]


# --------------------------------------------------------------------------------------------
# The prices
# --------------------------------------------------------------------------------------------


def _price(model: str, key: Any, value: Any) -> float:
    if key not in PRICE_KEYS:
        msg = (
            f"`cost`: model {model!r} has an unknown price key {key!r}; the keys are "
            f"{list(PRICE_KEYS)!r} (dollars per million tokens)."
        )
        raise ValueError(msg)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        msg = (
            f"`cost`: the {key!r} price of model {model!r} must be a number (dollars per "
            f"million tokens), got {type(value).__name__}: {value!r}"
        )
        raise TypeError(msg)
    number = float(value)
    if not math.isfinite(number) or number < 0:
        msg = (
            f"`cost`: the {key!r} price of model {model!r} must be a finite number >= 0 "
            f"(dollars per million tokens), got {value!r}"
        )
        raise ValueError(msg)
    return number


def _model_prices(model: Any, given: Any) -> dict[str, float]:
    if not isinstance(model, str):
        msg = f"`cost`: a model name must be a string, got {type(model).__name__}: {model!r}"
        raise TypeError(msg)
    if not isinstance(given, Mapping):
        msg = (
            f"`cost`: the prices of model {model!r} must be a mapping of {list(PRICE_KEYS)!r} "
            f"to dollars per million tokens, got {type(given).__name__}: {given!r}"
        )
        raise TypeError(msg)
    checked = {key: _price(model, key, value) for key, value in given.items()}
    prices = {key: checked.get(key, 0.0) for key in PRICE_KEYS}
    # Reasoning tokens are output tokens: without their own price they cost what output does.
    prices["reasoning"] = checked.get("reasoning", prices["output"])
    return prices


def _frame_prices(frame: pl.DataFrame) -> Prices:
    if MODEL not in frame.columns:
        msg = (
            f"`cost`: a frame of prices needs a {MODEL!r} column (and some of "
            f"{list(PRICE_KEYS)!r}); its columns are {frame.columns!r}."
        )
        raise ValueError(msg)
    models = frame[MODEL].to_list()
    duplicated = sorted({str(m) for m in models if models.count(m) > 1})
    if duplicated:
        msg = f"`cost`: the frame of prices gives model(s) {duplicated!r} more than once."
        raise ValueError(msg)
    prices = {}
    for row in frame.to_dicts():
        model = row.pop(MODEL)
        # A null price is a missing one (a CSV cell left empty).
        prices[model] = _model_prices(model, {k: v for k, v in row.items() if v is not None})
    return prices


def check_cost(cost: Any) -> Prices | str | None:
    """Return the prices checked (every key present), the per-row cost column, or None.

    ``cost`` is a mapping ``{model: {"input": $, "output": $, "cache_read": $, "reasoning":
    $}}`` (dollars per million tokens), a Polars or pandas frame with a ``model`` column and
    those columns, or the name of a per-row cost column.
    """
    if cost is None or isinstance(cost, str):
        return cost
    if isinstance(cost, Mapping):
        return {model: _model_prices(model, given) for model, given in cost.items()}
    if type(cost).__module__.startswith("pandas"):
        from gradeframe import _frames

        cost = _frames.to_polars(cost, dict.fromkeys(str(c) for c in cost.columns))
    if isinstance(cost, pl.LazyFrame):
        cost = cost.collect()
    if isinstance(cost, pl.DataFrame):
        return _frame_prices(cost)
    msg = (
        "`cost` must be a mapping {model: {'input': $, 'output': $, 'cache_read': $, "
        "'reasoning': $}} (dollars per million tokens), a frame with a 'model' column and those "
        f"columns, or the name of a per-row cost column; got {type(cost).__name__}: {cost!r}"
    )
    raise TypeError(msg)


def input_columns(names: Sequence[str], cost: Prices | str) -> list[str]:
    """Return the frame's columns the cost columns read (``names``: the frame's columns)."""
    wanted = [INPUT, OUTPUT, CACHE_READ, REASONING, SECONDS, GRADER_INPUT, GRADER_OUTPUT]
    wanted += [GRADER_MODEL]
    wanted += [cost] if isinstance(cost, str) else [MODEL]
    present = set(names)
    return [name for name in dict.fromkeys(wanted) if name in present]


# --------------------------------------------------------------------------------------------
# The additive step
# --------------------------------------------------------------------------------------------


def _number(schema: Schema, name: str) -> pl.Expr | None:
    """Return the column as a number (NaN is null), None when the frame lacks it."""
    if name not in schema:
        return None
    dtype = schema[name]
    if dtype == pl.Null:
        return pl.col(name).cast(pl.Int64)
    if not dtype.is_numeric():
        msg = f"`cost`: the column {name!r} must hold numbers, got {dtype}"
        raise TypeError(msg)
    if dtype.is_float():
        return pl.col(name).fill_nan(None)
    return pl.col(name)


def _model_name(name: str) -> pl.Expr:
    return pl.col(name).cast(pl.String)


def _price_of(model: pl.Expr, prices: Prices, key: str) -> pl.Expr:
    """Return the price of ``key`` for each model named (null for a model without prices)."""
    return model.replace_strict(
        list(prices), [p[key] for p in prices.values()], default=None, return_dtype=pl.Float64
    )


def _sum(expr: pl.Expr | None, name: str) -> pl.Expr:
    return pl.lit(0, pl.Int64).alias(name) if expr is None else expr.sum().alias(name)


def _no_nulls(frame: pl.DataFrame | None, schema: Schema, name: str) -> bool:
    """Return whether a column of an eager frame is known to hold no null (nor NaN).

    A Series keeps its null count, so this reads no row: the counts of unknowns are then 0
    without a pass over the rows. A float column may hold NaN (read as null): never known.
    """
    return (
        frame is not None
        and name in schema
        and schema[name].is_integer()
        and frame.get_column(name).null_count() == 0
    )


def _count_nulls(exprs: Sequence[tuple[pl.Expr | None, bool]], name: str) -> pl.Expr:
    """Count the rows where any of the columns is null (``(expr, known to hold no null)``)."""
    if any(expr is None for expr, _ in exprs):
        return pl.len().cast(pl.Int64).alias(name)
    maybe = [expr for expr, no_nulls in exprs if not no_nulls]
    if not maybe:
        return pl.lit(0, pl.Int64).alias(name)
    if len(maybe) == 1:
        return maybe[0].null_count().cast(pl.Int64).alias(name)
    # Counting nulls costs a group-by several times what a sum does: one count serves all.
    any_null = maybe[0]
    for expr in maybe[1:]:
        any_null = any_null + expr  # null wherever one of them is
    return any_null.is_null().sum().cast(pl.Int64).alias(name)


def grouped_counts(
    frame: pl.DataFrame | pl.LazyFrame,
    keys: Sequence[str],
    aggregations: Sequence[pl.Expr],
    schema: Schema,
    cost: Prices | str,
) -> pl.LazyFrame:
    """Group ``frame`` by ``keys`` with ``aggregations`` and the cost counts (COUNT_COLUMNS).

    A cost is linear in the tokens, and a price depends on the model alone: so the rows are
    summed per group *and model* (and grader model) first, in the one group-by the report
    makes, and the sums are priced afterwards, once per model instead of once per row, and
    summed over the models in the same step. The counts of unknowns make the cost null
    wherever a sum left a row out (a null count, a model without a price), so the sums need
    not know which rows. On an eager frame, a count column without nulls (the Series knows)
    needs no count of its unknowns.
    """
    eager = frame if isinstance(frame, pl.DataFrame) else None
    frame = frame.lazy()
    tokens_in, tokens_out = _number(schema, INPUT), _number(schema, OUTPUT)
    cache_read, reasoning = _number(schema, CACHE_READ), _number(schema, REASONING)
    grader_in, grader_out = _number(schema, GRADER_INPUT), _number(schema, GRADER_OUTPUT)
    graded = grader_in is not None or grader_out is not None
    priced = not isinstance(cost, str)
    extra = _model_keys(schema, keys, priced=priced, graded=graded)

    def known(name: str) -> bool:
        return _no_nulls(eager, schema, name)

    sums = [*aggregations]
    sums += [_sum(tokens_in, INPUT), _sum(tokens_out, OUTPUT)]
    sums.append(
        _count_nulls([(tokens_in, known(INPUT)), (tokens_out, known(OUTPUT))], "tokens_unknown")
    )
    if isinstance(cost, str):
        sums += _row_cost_sums(schema, cost, known)
    else:
        sums += [_sum(cache_read, "__cache_read"), _sum(reasoning, "__reasoning")]
    if graded:
        sums += _grader_sums(grader_in, grader_out, known)

    group = [*keys, *extra]
    out = frame.group_by(group).agg(*sums) if group else frame.select(*sums)
    priced_columns = [] if isinstance(cost, str) else _model_cost(cost)
    if graded:
        named = not isinstance(cost, str) and GRADER_MODEL in schema
        priced_columns += _grader_cost(cost if named else None)
    temporary = {"__cache_read", "__reasoning", "__grader_in", "__grader_out"}
    temporary |= {"__grader_called", "__grader_bad"}
    if not extra:
        return out.with_columns(priced_columns).drop(*temporary, strict=False)
    # Priced and summed over the models in one step (a small frame: a row per group and model).
    replaced = {expr.meta.output_name() for expr in priced_columns}
    names = [expr.meta.output_name() for expr in sums]
    kept = [n for n in names if n not in temporary and n not in replaced and n not in keys]
    summed = [pl.col(n).sum() for n in kept] + [expr.sum() for expr in priced_columns]
    return out.group_by(list(keys)).agg(summed) if keys else out.select(summed)


def _model_keys(schema: Schema, keys: Sequence[str], *, priced: bool, graded: bool) -> list[str]:
    """Return the model columns to group by besides ``keys``: prices are per model."""
    if priced and MODEL not in schema:
        msg = (
            f"`cost`: prices are given per model, but the frame has no {MODEL!r} column. "
            f"Its columns are: {list(schema)!r}."
        )
        raise pl.exceptions.ColumnNotFoundError(msg)
    extra = [MODEL] if priced and MODEL not in keys else []
    if priced and graded and GRADER_MODEL in schema and GRADER_MODEL not in keys:
        extra.append(GRADER_MODEL)
    return extra


def _row_cost_sums(schema: Schema, cost: str, known: Callable[[str], bool]) -> list[pl.Expr]:
    """Return the sum of a per-row cost column and the count of its unknowns."""
    row = _number(schema, cost)
    if row is None:
        msg = (
            f"`cost`: the frame has no per-row cost column {cost!r}; give prices instead "
            f"(a mapping or frame), or name a column. Its columns are: {list(schema)!r}."
        )
        raise pl.exceptions.ColumnNotFoundError(msg)
    return [
        row.sum().cast(pl.Float64).alias("cost_sum"),
        _count_nulls([(row, known(cost))], "cost_unknown"),
    ]


def _grader_sums(
    grader_in: pl.Expr | None, grader_out: pl.Expr | None, known: Callable[[str], bool]
) -> list[pl.Expr]:
    """Return the grader's token sums, its calls and the calls with one count of two."""
    # A row with a grader's tokens had a grader call; one with one count of two is unknown.
    missing = pl.lit(None, pl.Int64)
    g_in = missing if grader_in is None else grader_in
    g_out = missing if grader_out is None else grader_out
    called = (g_in.is_not_null() | g_out.is_not_null()).sum().cast(pl.Int64)
    bad = (g_in.is_null() ^ g_out.is_null()).sum().cast(pl.Int64)
    if known(GRADER_INPUT) or known(GRADER_OUTPUT):  # every row has a grader's count
        called = pl.len().cast(pl.Int64)
    if known(GRADER_INPUT) and known(GRADER_OUTPUT):  # every row has both
        bad = pl.lit(0, pl.Int64)
    sums = [_sum(grader_in, "__grader_in"), _sum(grader_out, "__grader_out")]
    return [*sums, called.alias("__grader_called"), bad.alias("__grader_bad")]


def _model_cost(cost: Prices) -> list[pl.Expr]:
    """Return the model's cost of the summed tokens and its unknowns, priced per model."""
    model = _model_name(MODEL)
    price_in = _price_of(model, cost, "input")
    reasoning_extra = {m: {"extra": p["reasoning"] - p["output"]} for m, p in cost.items()}
    total = (
        pl.col(INPUT) * price_in
        + pl.col(OUTPUT) * _price_of(model, cost, "output")
        + pl.col("__cache_read") * _price_of(model, cost, "cache_read")
        + pl.col("__reasoning") * _price_of(model, reasoning_extra, "extra")  # type: ignore[arg-type]
    ) / _MILLION
    return [
        total.alias("cost_sum"),
        pl.when(price_in.is_null())
        .then(pl.col("n"))
        .otherwise(pl.col("tokens_unknown"))
        .alias("cost_unknown"),
    ]


def _grader_cost(prices: Prices | None) -> list[pl.Expr]:
    """Return the grader's cost and its unknowns, at the grader model's ``prices`` if any."""
    if prices is not None:
        grader_model = _model_name(GRADER_MODEL)
        g_price_in = _price_of(grader_model, prices, "input")
        g_price_out = _price_of(grader_model, prices, "output")
        grader_sum = (
            pl.col("__grader_in") * g_price_in + pl.col("__grader_out") * g_price_out
        ) / _MILLION
        unknown = (
            pl.when(g_price_in.is_null())
            .then(pl.col("__grader_called"))
            .otherwise(pl.col("__grader_bad"))
        )
    else:
        # No prices (a per-row cost column prices the model's calls only), or no grader
        # named: every grader call is unknown.
        grader_sum, unknown = pl.lit(0.0), pl.col("__grader_called")
    return [
        pl.when(pl.col("__grader_called") > 0)
        .then(grader_sum)
        .otherwise(0.0)
        .alias("grader_cost_sum"),
        unknown.alias("grader_cost_unknown"),
    ]


def integer_counts(columns: Sequence[str]) -> list[str]:
    """Return the count columns present that are integers (the unknowns and known counts)."""
    return [c for c in columns if c in COUNT_COLUMNS and (c.endswith(("_known", "_unknown")))]


# --------------------------------------------------------------------------------------------
# The final step
# --------------------------------------------------------------------------------------------


def report_columns(columns: Sequence[str]) -> list[pl.Expr]:
    """Return the cost columns from summed counts (and ``n_correct``), pareto aside."""
    total = pl.col(INPUT) + pl.col(OUTPUT)
    cost_known = pl.col("cost_unknown") == 0
    usage_known = pl.col("tokens_unknown") < pl.col("n")
    exprs = [
        # Null when no row's usage is known (0 would read as "used no tokens").
        pl.when(usage_known).then(pl.col(INPUT)).alias(INPUT),
        pl.when(usage_known).then(pl.col(OUTPUT)).alias(OUTPUT),
        pl.when(cost_known).then(pl.col("cost_sum")).alias("cost"),
        pl.when(cost_known & (pl.col("n_correct") > 0))
        .then(pl.col("cost_sum") / pl.col("n_correct"))
        .alias("cost_per_correct"),
        pl.when((pl.col("tokens_unknown") == 0) & (total > 0))
        .then(1000.0 * pl.col("n_correct") / total)
        .alias("correct_per_1k_tokens"),
        pl.col("cost_unknown"),
    ]
    if "grader_cost_sum" in columns:
        exprs.append(
            pl.when(pl.col("grader_cost_unknown") == 0)
            .then(pl.col("grader_cost_sum"))
            .alias("grader_cost")
        )
    return exprs


def with_pareto(report: pl.LazyFrame) -> pl.LazyFrame:
    """Add ``pareto``: no other group has both a higher accuracy and a lower cost.

    Groups with a null cost (or a null accuracy) take no part and get a null. Ties do not
    beat: a group with the same cost and a higher accuracy does not dominate (its cost is not
    lower), nor does one with the same accuracy and a lower cost.
    """
    taking_part = pl.col("cost").is_not_null() & pl.col("accuracy").is_not_null()
    cost = pl.when(taking_part).then(pl.col("cost"))
    # The best accuracy so far, in order of cost (the groups not taking part last: their null
    # cost sorts after every cost, and their accuracy is left out).
    best_so_far = pl.when(taking_part).then(pl.col("accuracy")).sort_by(cost, nulls_last=True)
    best_so_far = best_so_far.cum_max()
    # A group's first place among equal costs, from 0: the groups before it cost strictly less.
    first = cost.rank("min").cast(pl.Int64) - 1
    best_below = pl.when(first > 0).then(best_so_far.gather(first - 1))
    # One step over the report's rows, in their order: no join, no sort of the report.
    return report.with_columns(
        pl.when(taking_part)
        .then(best_below.is_null() | (pl.col("accuracy") >= best_below))
        .alias("pareto")
    )


def percentiles(frame: pl.LazyFrame, keys: Sequence[str], schema: Schema) -> pl.LazyFrame:
    """``seconds_p50`` and ``seconds_p95`` per group (linear interpolation, numpy's default)."""
    seconds = _number(schema, SECONDS)
    assert seconds is not None  # the caller checks the frame has the column
    seconds = seconds.cast(pl.Float64)
    aggregations = [
        seconds.quantile(0.5, "linear").alias("seconds_p50"),
        seconds.quantile(0.95, "linear").alias("seconds_p95"),
    ]
    if keys:
        return frame.group_by(list(keys)).agg(*aggregations)
    return frame.select(*aggregations)


def with_percentiles(
    report: pl.DataFrame | pl.LazyFrame, frame: Any, keys: Sequence[str], schema: Schema
) -> pl.LazyFrame:
    """Join ``seconds_p50``/``seconds_p95`` of ``frame`` onto ``report`` (cost columns last)."""
    seconds = percentiles(frame.lazy(), keys, schema)
    if keys:
        joined = report.lazy().join(
            seconds, on=list(keys), how="left", nulls_equal=True, maintain_order="left"
        )
    else:
        joined = pl.concat([report.lazy(), seconds], how="horizontal")
    return joined.select(order(joined.collect_schema().names()))


def pandas_input(frame: Any, columns: dict[str, None], cost: Any) -> tuple[pl.DataFrame, Any]:
    """Return the pandas frame's report columns and cost columns as Polars, and the prices."""
    from gradeframe import _frames

    prices = check_cost(cost)
    if prices is not None:
        columns = columns | dict.fromkeys(input_columns([str(c) for c in frame.columns], prices))
    return _frames.to_polars(frame, columns), prices


def order(columns: Sequence[str]) -> list[str]:
    """Return the columns with the cost columns last, in :data:`REPORT_COLUMNS` order."""
    first = [c for c in columns if c not in REPORT_COLUMNS]
    return first + [c for c in REPORT_COLUMNS if c in columns]
