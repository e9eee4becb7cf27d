r"""The statistics of the reports, as plain functions over counts and expressions.

Every function here takes column names or Polars expressions (counts, sums, per-item
differences) and returns expressions, so the reports compute each group's numbers in one query,
with no Python loop over rows or groups. The two exact tail probabilities (the binomial tail of
McNemar's test and Student's t) run on the few rows of a finished report, vectorized with NumPy
through the regularized incomplete beta function :func:`betainc`.

Sources
-------
- Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference.
  *JASA* 22(158), 209-212.
- Miller, E. (2024). Adding error bars to evals: a statistical approach to language model
  evaluations. arXiv:2411.00640. (Clustered standard errors of a mean score.)
- Liang, K.-Y. and Zeger, S. L. (1986); Cameron, A. C. and Miller, D. L. (2015). A
  practitioner's guide to cluster-robust inference. *J. Human Resources* 50(2), 317-372.
  (The CR0 sandwich estimator, without small-sample correction.)
- McNemar, Q. (1947). Note on the sampling error of the difference between correlated
  proportions or percentages. *Psychometrika* 12(2), 153-157. (The exact form is the two-sided
  binomial test of the discordant pairs at one half.)
- Student (1908). The probable error of a mean. *Biometrika* 6(1), 1-25. (The paired t-test.)
- Holm, S. (1979). A simple sequentially rejective multiple test procedure. *Scandinavian
  Journal of Statistics* 6(2), 65-70. (The step-down adjustment of several p-values.)
- Cohen, J. (1960). A coefficient of agreement for nominal scales. *Educational and
  Psychological Measurement* 20(1), 37-46.
- Chen, M. et al. (2021). Evaluating large language models trained on code. arXiv:2107.03374.
  (The unbiased estimator of pass@k from n samples of which c are right.)
- Press, W. H. et al. (2007). *Numerical Recipes*, 3rd ed., §6.4 (the incomplete beta function
  by Lentz's continued fraction) and §6.14 (the t and binomial distributions through it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final, Literal

import numpy as np
import polars as pl

from gradeframe._inputs import IntoExpr, to_expr

__all__ = [
    "ADJUSTMENTS",
    "Z_95",
    "adjusted_p_value",
    "betainc",
    "binomial_cdf_half",
    "bounded_mean",
    "bounded_sum",
    "clustered_standard_error",
    "cohens_kappa",
    "mcnemar_p_value",
    "mean_interval",
    "normal_interval",
    "ordered_sum",
    "paired_t_p_value",
    "pass_all_k_estimate",
    "pass_at_k_estimate",
    "student_t_two_sided",
    "wilson_interval",
]

#: The normal quantile of a two-sided 95 % interval (1.959964 to six places).
Z_95: Final = 1.959963984540054

_EPSILON: Final = 4 * float(np.finfo(float).eps)
_TINY: Final = 1e-300
_MAX_ITERATIONS: Final = 20_000


# --------------------------------------------------------------------------------------------
# Intervals of a proportion and of a mean
# --------------------------------------------------------------------------------------------


def wilson_interval(
    n_correct: IntoExpr, n: IntoExpr, *, z: float = Z_95
) -> tuple[pl.Expr, pl.Expr]:
    r"""Return the Wilson score interval of a proportion, as two Float64 expressions.

    With :math:`\hat p = k / n`, the interval is (Wilson 1927)
    :math:`\frac{\hat p + z^2/2n \pm z \sqrt{\hat p(1-\hat p)/n + z^2/4n^2}}{1 + z^2/n}`.
    It is exactly 0 at the low end when ``k = 0`` and exactly 1 at the high end when ``k = n``,
    and clipped to [0, 1]. It is null when ``n`` is 0 or null: no answers say nothing.

    Parameters
    ----------
    n_correct
        The number right (a column name or an integer expression).
    n
        The number of answers.
    z
        The normal quantile; the default gives a 95 % interval.

    Returns
    -------
    tuple[pl.Expr, pl.Expr]
        The low and high ends, named ``ci_low`` and ``ci_high``.

    Examples
    --------
    >>> import polars as pl
    >>> from gradeframe.stats import wilson_interval
    >>> df = pl.DataFrame({"k": [0, 8, 10, 0], "n": [10, 10, 10, 0]})
    >>> df.with_columns(*wilson_interval("k", "n")).with_columns(pl.selectors.float().round(4))
    shape: (4, 4)
    ┌─────┬─────┬────────┬─────────┐
    │ k   ┆ n   ┆ ci_low ┆ ci_high │
    │ --- ┆ --- ┆ ---    ┆ ---     │
    │ i64 ┆ i64 ┆ f64    ┆ f64     │
    ╞═════╪═════╪════════╪═════════╡
    │ 0   ┆ 10  ┆ 0.0    ┆ 0.2775  │
    │ 8   ┆ 10  ┆ 0.4902 ┆ 0.9433  │
    │ 10  ┆ 10  ┆ 0.7225 ┆ 1.0     │
    │ 0   ┆ 0   ┆ null   ┆ null    │
    └─────┴─────┴────────┴─────────┘
    """
    k = to_expr(n_correct, "n_correct").cast(pl.Float64)
    total = to_expr(n, "n").cast(pl.Float64)
    z2 = z * z
    p = k / total
    denominator = 1.0 + z2 / total
    centre = (p + z2 / (2.0 * total)) / denominator
    half = z * (p * (1.0 - p) / total + z2 / (4.0 * total * total)).sqrt() / denominator
    some = total > 0
    low = pl.when(some & (k <= 0)).then(0.0).when(some).then((centre - half).clip(0.0, 1.0))
    high = pl.when(some & (k >= total)).then(1.0).when(some).then((centre + half).clip(0.0, 1.0))
    return low.alias("ci_low"), high.alias("ci_high")


def normal_interval(
    estimate: IntoExpr,
    standard_error: IntoExpr,
    *,
    z: float = Z_95,
    clip: tuple[float, float] | None = None,
) -> tuple[pl.Expr, pl.Expr]:
    r"""Return the normal interval :math:`\hat\theta \pm z \cdot \mathrm{SE}`, optionally clipped.

    Null where the estimate or the standard error is null. ``clip=(0, 1)`` keeps the interval
    of a proportion inside [0, 1].

    Examples
    --------
    >>> import polars as pl
    >>> from gradeframe.stats import normal_interval
    >>> df = pl.DataFrame({"p": [0.5, 0.97, 0.5], "se": [0.1, 0.02, None]})
    >>> df.with_columns(*normal_interval("p", "se", clip=(0, 1))).with_columns(
    ...     pl.selectors.float().round(4)
    ... )
    shape: (3, 4)
    ┌──────┬──────┬────────┬─────────┐
    │ p    ┆ se   ┆ ci_low ┆ ci_high │
    │ ---  ┆ ---  ┆ ---    ┆ ---     │
    │ f64  ┆ f64  ┆ f64    ┆ f64     │
    ╞══════╪══════╪════════╪═════════╡
    │ 0.5  ┆ 0.1  ┆ 0.304  ┆ 0.696   │
    │ 0.97 ┆ 0.02 ┆ 0.9308 ┆ 1.0     │
    │ 0.5  ┆ null ┆ null   ┆ null    │
    └──────┴──────┴────────┴─────────┘
    """
    centre = to_expr(estimate, "estimate").cast(pl.Float64)
    half = z * to_expr(standard_error, "standard_error").cast(pl.Float64)
    low, high = centre - half, centre + half
    if clip is not None:
        low, high = low.clip(*clip), high.clip(*clip)
    return low.alias("ci_low"), high.alias("ci_high")


def bounded_sum(
    values: IntoExpr, *, bound: float = 1.0, weights: IntoExpr | None = None
) -> pl.Expr:
    r"""Return the sum of Float64 values of magnitude at most ``bound``, the same in every run.

    Polars adds floats in an order that depends on its threads, chunks and memory alignment, so
    two identical calls can differ in the last bits. Here each value becomes a 128-bit integer
    count of units of :math:`2^{-64} b` (``b``, the power of two at or above ``bound``), and
    integers add exactly in any order; the total is turned into a float once. A value of at
    least :math:`2^{-11} b` is held exactly (so sums of such values are exact before that one
    rounding), a smaller one to within :math:`2^{-64} b`; up to :math:`2^{63}` values. With
    ``weights`` (non-negative integers: how many times each value counts), the sum of
    ``values * weights``, just as exact. Nulls are skipped; a value beyond ``bound`` (or NaN) is
    a programming error and raises.

    Examples
    --------
    >>> import polars as pl
    >>> from gradeframe.stats import bounded_sum
    >>> df = pl.DataFrame({"g": [1, 1, 1, 2], "x": [0.1, 0.2, 0.3, None]})
    >>> df.group_by("g", maintain_order=True).agg(bounded_sum("x"))
    shape: (2, 2)
    ┌─────┬─────┐
    │ g   ┆ x   │
    │ --- ┆ --- │
    │ i64 ┆ f64 │
    ╞═════╪═════╡
    │ 1   ┆ 0.6 │
    │ 2   ┆ 0.0 │
    └─────┴─────┘
    """
    scale = 2.0 ** (64 - math.ceil(math.log2(bound)))
    units = (to_expr(values, "values").cast(pl.Float64) * scale).cast(pl.Int128)
    if weights is not None:
        units = units * to_expr(weights, "weights").cast(pl.Int128)
    return (units.sum().cast(pl.Float64) / scale).fill_null(0.0)


def bounded_mean(
    values: IntoExpr, *, bound: float = 1.0, weights: IntoExpr | None = None
) -> pl.Expr:
    """Return the mean of values of magnitude at most ``bound``, the same in every run.

    :func:`bounded_sum` divided once by the count of non-null values (with ``weights``, by
    the sum of their weights); null when there is none.
    """
    expr = to_expr(values, "values")
    if weights is None:
        count = expr.count().cast(pl.Float64)
    else:
        count = to_expr(weights, "weights").filter(expr.is_not_null()).sum().cast(pl.Float64)
    total = bounded_sum(expr, bound=bound, weights=weights)
    return pl.when(count > 0).then(total / count)


def ordered_sum(values: IntoExpr) -> pl.Expr:
    """Return the sum of Float64 values of any size, added in one fixed order: same in every run.

    For values with no known bound (a user's scores), where :func:`bounded_sum` cannot be used:
    the non-null values are sorted and added one after the other, so the order, and with it the
    rounding, no longer depends on Polars' threads and chunks. Nulls are skipped, and no value
    sums to 0.0. It costs a sort of each group's values.

    Examples
    --------
    >>> import polars as pl
    >>> from gradeframe.stats import ordered_sum
    >>> df = pl.DataFrame({"g": [1, 1, 1, 2], "x": [0.5, 2.0, 0.25, None]})
    >>> df.group_by("g", maintain_order=True).agg(ordered_sum("x"))
    shape: (2, 2)
    ┌─────┬──────┐
    │ g   ┆ x    │
    │ --- ┆ ---  │
    │ i64 ┆ f64  │
    ╞═════╪══════╡
    │ 1   ┆ 2.75 │
    │ 2   ┆ 0.0  │
    └─────┴──────┘
    """
    expr = to_expr(values, "values").cast(pl.Float64)
    return expr.drop_nulls().sort().cum_sum().last().fill_null(0.0)


def mean_interval(
    total: IntoExpr, sum_of_squares: IntoExpr, n: IntoExpr, *, z: float = Z_95
) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    r"""Return the mean and its normal interval from the sum, the sum of squares and the count.

    :math:`\bar x = S/n`, :math:`s^2 = (Q - S^2/n)/(n-1)` (ddof = 1, floored at 0 against
    rounding), :math:`\bar x \pm z\,s/\sqrt n`. The mean is null when ``n`` is 0; the interval
    is null when ``n < 2`` (one value says nothing about spread). The sums are additive, so the
    sums of several partitions give the interval of the whole; the one-pass variance loses
    precision only when the values are large next to their spread (not for scores in [0, 1]).

    Returns
    -------
    tuple[pl.Expr, pl.Expr, pl.Expr]
        The mean, the low end and the high end (named ``mean``, ``ci_low``, ``ci_high``).

    Examples
    --------
    >>> import polars as pl
    >>> from gradeframe.stats import mean_interval
    >>> df = pl.DataFrame({"s": [1.5, 2.0], "q": [1.25, 4.0], "n": [2, 1]})
    >>> df.select(*mean_interval("s", "q", "n")).with_columns(pl.all().round(4))
    shape: (2, 3)
    ┌──────┬────────┬─────────┐
    │ mean ┆ ci_low ┆ ci_high │
    │ ---  ┆ ---    ┆ ---     │
    │ f64  ┆ f64    ┆ f64     │
    ╞══════╪════════╪═════════╡
    │ 0.75 ┆ 0.26   ┆ 1.24    │
    │ 2.0  ┆ null   ┆ null    │
    └──────┴────────┴─────────┘
    """
    s = to_expr(total, "total").cast(pl.Float64)
    q = to_expr(sum_of_squares, "sum_of_squares").cast(pl.Float64)
    count = to_expr(n, "n").cast(pl.Float64)
    mean = pl.when(count > 0).then(s / count)
    variance = ((q - s * s / count) / (count - 1.0)).clip(lower_bound=0.0)
    se = pl.when(count > 1).then((variance / count).sqrt())
    low, high = normal_interval(mean, se, z=z)
    return mean.alias("mean"), low, high


def clustered_standard_error(
    cluster_total: IntoExpr, cluster_n: IntoExpr, *, integer: bool = False
) -> pl.Expr:
    r"""Return the cluster-robust (CR0) standard error of a mean, as an aggregation.

    Used in a ``group_by(...).agg(...)`` over rows that each hold one cluster's total
    :math:`T_g` (the sum of its values: right answers, or scores) and its count :math:`n_g`.
    With :math:`N = \sum_g n_g` and the mean :math:`\hat\mu = \sum_g T_g / N`,

    .. math:: \mathrm{SE}_{CR0} = \frac{1}{N}\sqrt{\sum_g \big(T_g - n_g\hat\mu\big)^2}

    which is the sandwich estimator of the intercept of a least-squares fit on a constant,
    clustered by :math:`g`, without small-sample correction (Liang and Zeger 1986; Cameron and
    Miller 2015), and Miller (2024)'s clustered standard error of an eval score,
    :math:`\sqrt{\mathrm{SE}^2_{CLT} + \frac{1}{N^2}\sum_g\sum_i\sum_{j\ne i}
    (x_{ig}-\hat\mu)(x_{jg}-\hat\mu)}`. Null with fewer than two clusters (one cluster gives 0,
    which would claim certainty).

    ``integer=True`` (the totals are counts, as right answers are) computes the sum exactly, as
    :math:`\sum_g (N T_g - n_g S)^2 / N^4` in 128-bit integers with :math:`S = \sum_g T_g`: the
    result then does not depend on the order of the clusters, so counts summed from any number
    of partitions give the same standard error to the last bit.

    Examples
    --------
    >>> import polars as pl
    >>> from gradeframe.stats import clustered_standard_error
    >>> per_question = pl.DataFrame({"right": [3, 0, 2, 5], "n": [5, 5, 5, 5]})
    >>> per_question.select(clustered_standard_error("right", "n").round(4))
    shape: (1, 1)
    ┌────────┐
    │ se     │
    │ ---    │
    │ f64    │
    ╞════════╡
    │ 0.1803 │
    └────────┘
    """
    t = to_expr(cluster_total, "cluster_total")
    n = to_expr(cluster_n, "cluster_n")
    some = (n > 0).sum() >= 2
    if integer:
        t, n = t.cast(pl.Int128), n.cast(pl.Int128)
        total, count = t.sum(), n.sum()
        scaled = ((count * t - n * total) ** 2).sum().cast(pl.Float64)
        count_f = count.cast(pl.Float64)
        return pl.when(some).then(scaled.sqrt() / (count_f * count_f)).alias("se")
    # Float totals (scores) are added in one fixed order: the same bits in every run.
    t, n = t.cast(pl.Float64), n.cast(pl.Float64)
    mean = ordered_sum(t) / n.sum()
    spread = ordered_sum((t - n * mean) ** 2)
    return pl.when(some).then(spread.sqrt() / n.sum()).alias("se")


# --------------------------------------------------------------------------------------------
# Tail probabilities (NumPy, on the rows of a finished report)
# --------------------------------------------------------------------------------------------


def _lgamma(values: np.ndarray) -> np.ndarray:
    # One call per value of a finished report (a few rows): NumPy has no log-gamma.
    return np.array([math.lgamma(v) for v in values.ravel()], dtype=float).reshape(values.shape)


def _beta_fraction(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Lentz's continued fraction for the incomplete beta function (Numerical Recipes §6.4)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = np.ones_like(x)
    d = 1.0 - qab * x / qap
    d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
    h = d.copy()
    for m in range(1, _MAX_ITERATIONS + 1):
        m2 = 2.0 * m
        for numerator in (
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / np.where(np.abs(d) < _TINY, _TINY, d)
            c = 1.0 + numerator / c
            c = np.where(np.abs(c) < _TINY, _TINY, c)
            delta = d * c
            h = h * delta
        if np.all(np.abs(delta - 1.0) <= _EPSILON):
            break
    return h


def betainc(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    r"""Return the regularized incomplete beta function :math:`I_x(a, b)`, elementwise.

    :math:`I_x(a,b) = \frac{x^a(1-x)^b}{a\,B(a,b)}\,\mathrm{cf}(a,b,x)` with Lentz's continued
    fraction, used directly when :math:`x < (a+1)/(a+b+2)` and through
    :math:`I_x(a,b) = 1 - I_{1-x}(b,a)` otherwise (Numerical Recipes §6.4); accurate to about
    1e-15. ``a`` and ``b`` must be positive and ``x`` in [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from gradeframe.stats import betainc
    >>> betainc(np.array([1.0, 2.0]), np.array([1.0, 3.0]), np.array([0.3, 0.5])).round(6)
    array([0.3   , 0.6875])
    """
    a, b, x = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (a, b, x)))
    out = np.where(x <= 0.0, 0.0, 1.0)
    inner = (x > 0.0) & (x < 1.0)
    if not inner.any():
        return out
    a, b, x = a[inner], b[inner], x[inner]
    log_front = _lgamma(a + b) - _lgamma(a) - _lgamma(b) + a * np.log(x) + b * np.log1p(-x)
    front = np.exp(log_front)
    direct = x < (a + 1.0) / (a + b + 2.0)
    first, second = np.where(direct, a, b), np.where(direct, b, a)
    fraction = _beta_fraction(first, second, np.where(direct, x, 1.0 - x))
    value = front * fraction / first
    out[inner] = np.where(direct, value, 1.0 - value)
    return out


def binomial_cdf_half(k: np.ndarray, m: np.ndarray) -> np.ndarray:
    r"""Return :math:`P(X \le k)` for :math:`X \sim \mathrm{Binomial}(m, 1/2)`, elementwise.

    :math:`P(X \le k) = I_{1/2}(m - k, k + 1)` (Numerical Recipes §6.14); 1 when
    :math:`k \ge m`, 0 when :math:`k < 0`.

    Examples
    --------
    >>> import numpy as np
    >>> from gradeframe.stats import binomial_cdf_half
    >>> binomial_cdf_half(np.array([0, 1, 3]), np.array([3, 3, 3]))
    array([0.125, 0.5  , 1.   ])
    """
    k, m = np.broadcast_arrays(np.asarray(k, dtype=float), np.asarray(m, dtype=float))
    out = np.where(k >= m, 1.0, 0.0)
    inside = (k >= 0) & (k < m)
    if inside.any():
        out[inside] = betainc(m[inside] - k[inside], k[inside] + 1.0, np.full(inside.sum(), 0.5))
    return out


def student_t_two_sided(t: np.ndarray, df: np.ndarray) -> np.ndarray:
    r"""Return the two-sided tail :math:`P(|T| \ge |t|)` of Student's t with ``df`` degrees.

    :math:`P(|T| \ge |t|) = I_{\nu/(\nu + t^2)}(\nu/2, 1/2)` (Numerical Recipes §6.14.9).
    NaN where ``t`` or ``df`` is NaN; 0 for an infinite ``t``.

    Examples
    --------
    >>> import numpy as np
    >>> from gradeframe.stats import student_t_two_sided
    >>> student_t_two_sided(np.array([0.0, 2.0, np.inf]), np.array([5.0, 5.0, 5.0])).round(6)
    array([1.      , 0.101939, 0.      ])
    """
    t, df = np.broadcast_arrays(np.asarray(t, dtype=float), np.asarray(df, dtype=float))
    out = np.full(t.shape, np.nan)
    known = ~(np.isnan(t) | np.isnan(df)) & (df > 0)
    t, nu = np.abs(t[known]), df[known]
    x = np.where(np.isinf(t), 0.0, nu / (nu + np.where(np.isinf(t), 0.0, t) ** 2))
    out[known] = betainc(nu / 2.0, np.full(nu.shape, 0.5), x)
    return out


def _float_column(series: pl.Series) -> np.ndarray:
    return series.cast(pl.Float64).fill_null(np.nan).to_numpy()


def _mcnemar_batch(pair: pl.Series) -> pl.Series:
    b = _float_column(pair.struct.field("b"))
    c = _float_column(pair.struct.field("c"))
    known = ~(np.isnan(b) | np.isnan(c))
    p = np.full(b.shape, np.nan)
    m = b[known] + c[known]
    p[known] = np.minimum(1.0, 2.0 * binomial_cdf_half(np.minimum(b[known], c[known]), m))
    return pl.Series(p, dtype=pl.Float64).fill_nan(None)


def mcnemar_p_value(only_a: IntoExpr, only_b: IntoExpr) -> pl.Expr:
    r"""Return the exact McNemar p-value from the two discordant counts, as an expression.

    With :math:`b` items right only under A and :math:`c` only under B, under the null
    hypothesis each discordant item is equally likely to go either way, so
    :math:`b \sim \mathrm{Binomial}(b + c, 1/2)` and the two-sided exact p-value is
    :math:`\min(1, 2\,P(X \le \min(b, c)))` (McNemar 1947; the exact binomial form, as
    ``scipy.stats.binomtest(b, b + c, 0.5)``). It is 1 when there are no discordant items.

    Examples
    --------
    >>> import polars as pl
    >>> from gradeframe.stats import mcnemar_p_value
    >>> df = pl.DataFrame({"b": [0, 1, 8, 3], "c": [0, 9, 1, 3]})
    >>> df.with_columns(p=mcnemar_p_value("b", "c").round(6))
    shape: (4, 3)
    ┌─────┬─────┬──────────┐
    │ b   ┆ c   ┆ p        │
    │ --- ┆ --- ┆ ---      │
    │ i64 ┆ i64 ┆ f64      │
    ╞═════╪═════╪══════════╡
    │ 0   ┆ 0   ┆ 1.0      │
    │ 1   ┆ 9   ┆ 0.021484 │
    │ 8   ┆ 1   ┆ 0.039062 │
    │ 3   ┆ 3   ┆ 1.0      │
    └─────┴─────┴──────────┘
    """
    pair = pl.struct(to_expr(only_a, "only_a").alias("b"), to_expr(only_b, "only_b").alias("c"))
    return pair.map_batches(_mcnemar_batch, return_dtype=pl.Float64, is_elementwise=True).alias(
        "p_value"
    )


def _paired_t_batch(values: pl.Series) -> pl.Series:
    mean = _float_column(values.struct.field("mean"))
    sd = _float_column(values.struct.field("sd"))
    n = _float_column(values.struct.field("n"))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / np.sqrt(n))
    p = student_t_two_sided(t, n - 1.0)
    p = np.where((sd == 0.0) & (mean == 0.0), 1.0, p)  # no difference at all
    p = np.where(np.isnan(mean) | np.isnan(sd) | (n < 2), np.nan, p)
    return pl.Series(p, dtype=pl.Float64).fill_nan(None)


def paired_t_p_value(mean: IntoExpr, sd: IntoExpr, n: IntoExpr) -> pl.Expr:
    r"""Return the two-sided paired t-test p-value from the differences' mean, sd and count.

    :math:`t = \bar d / (s_d/\sqrt n)` with :math:`s_d` the standard deviation of the per-item
    differences (ddof = 1), and :math:`p = P(|T_{n-1}| \ge |t|)` (Student 1908), as
    ``scipy.stats.ttest_rel``. Null when ``n < 2``; 1 when every difference is 0; 0 when every
    difference is the same non-zero value.

    Examples
    --------
    >>> import polars as pl
    >>> from gradeframe.stats import paired_t_p_value
    >>> df = pl.DataFrame({"mean": [0.1, 0.0, 0.2], "sd": [0.3, 0.0, 0.1], "n": [30, 10, 1]})
    >>> df.with_columns(p=paired_t_p_value("mean", "sd", "n").round(6))
    shape: (3, 4)
    ┌──────┬─────┬─────┬──────────┐
    │ mean ┆ sd  ┆ n   ┆ p        │
    │ ---  ┆ --- ┆ --- ┆ ---      │
    │ f64  ┆ f64 ┆ i64 ┆ f64      │
    ╞══════╪═════╪═════╪══════════╡
    │ 0.1  ┆ 0.3 ┆ 30  ┆ 0.078203 │
    │ 0.0  ┆ 0.0 ┆ 10  ┆ 1.0      │
    │ 0.2  ┆ 0.1 ┆ 1   ┆ null     │
    └──────┴─────┴─────┴──────────┘
    """
    values = pl.struct(
        to_expr(mean, "mean").alias("mean"),
        to_expr(sd, "sd").alias("sd"),
        to_expr(n, "n").alias("n"),
    )
    return values.map_batches(_paired_t_batch, return_dtype=pl.Float64, is_elementwise=True).alias(
        "p_value"
    )


# --------------------------------------------------------------------------------------------
# Several p-values at once
# --------------------------------------------------------------------------------------------

#: The adjustments of :func:`adjusted_p_value` (``None``: no adjustment).
ADJUSTMENTS: Final = ("holm", "bonferroni")

Adjustment = Literal["holm", "bonferroni"] | None


def check_adjust(adjust: object) -> Adjustment:
    """Return ``adjust`` when it is one of :data:`ADJUSTMENTS` or None; else raise naming them."""
    if adjust is None or (isinstance(adjust, str) and adjust in ADJUSTMENTS):
        return adjust  # type: ignore[return-value]
    msg = f"`adjust` must be one of 'holm', 'bonferroni' or None, got {adjust!r}"
    raise ValueError(msg)


def adjusted_p_value(
    p_value: IntoExpr, adjust: Adjustment = "holm", *, over: Sequence[str] = ()
) -> pl.Expr:
    r"""Return p-values adjusted for how many were computed together, as an expression.

    The family is the rows of one frame, or of each group of ``over``; a null p-value is not
    one of the family and stays null. With :math:`m` p-values in the family:

    - ``"holm"`` (Holm 1979, step-down): the :math:`j`-th smallest, :math:`p_{(j)}`, becomes
      :math:`\max_{i \le j} \min(1, (m - i + 1)\, p_{(i)})` (tied p-values get the same
      value), which controls the chance of any false "better" at the level without assuming the
      tests are independent, and never adjusts more than Bonferroni;
    - ``"bonferroni"``: :math:`\min(1, m\, p)`;
    - ``None``: the p-values as they are.

    One p-value in its family is unchanged by either. The same values as ``statsmodels``'
    ``multipletests(p, method="holm")`` (or ``"bonferroni"``).

    Parameters
    ----------
    p_value
        A column name or expression of p-values.
    adjust
        ``"holm"``, ``"bonferroni"`` or None.
    over
        The columns whose groups are separate families (none: the whole frame is one).

    Returns
    -------
    pl.Expr
        A Float64 expression named ``p_adjusted``.

    Examples
    --------
    >>> import polars as pl
    >>> from gradeframe.stats import adjusted_p_value
    >>> df = pl.DataFrame({"p": [0.01, 0.04, 0.03, None]})
    >>> df.with_columns(
    ...     holm=adjusted_p_value("p"), bonferroni=adjusted_p_value("p", "bonferroni")
    ... )
    shape: (4, 3)
    ┌──────┬──────┬────────────┐
    │ p    ┆ holm ┆ bonferroni │
    │ ---  ┆ ---  ┆ ---        │
    │ f64  ┆ f64  ┆ f64        │
    ╞══════╪══════╪════════════╡
    │ 0.01 ┆ 0.03 ┆ 0.03       │
    │ 0.04 ┆ 0.06 ┆ 0.12       │
    │ 0.03 ┆ 0.06 ┆ 0.09       │
    │ null ┆ null ┆ null       │
    └──────┴──────┴────────────┘
    """
    adjust = check_adjust(adjust)
    p = to_expr(p_value, "p_value").cast(pl.Float64)
    partition = list(over)

    def within(expr: pl.Expr) -> pl.Expr:
        return expr.over(partition) if partition else expr

    if adjust is None:
        return p.alias("p_adjusted")
    m = within(p.count())
    if adjust == "bonferroni":
        return (m * p).clip(upper_bound=1.0).alias("p_adjusted")
    # "min" ranks: tied p-values take the larger factor, as the running maximum gives them.
    step = ((m - within(p.rank("min")) + 1) * p).clip(upper_bound=1.0)
    running = step.cum_max()
    running = running.over(partition, order_by=p) if partition else running.over(order_by=p)
    return running.alias("p_adjusted")


# --------------------------------------------------------------------------------------------
# Agreement
# --------------------------------------------------------------------------------------------


def cohens_kappa(
    both_right: IntoExpr, only_a: IntoExpr, only_b: IntoExpr, both_wrong: IntoExpr
) -> pl.Expr:
    r"""Return Cohen's kappa of two verdicts from their 2×2 counts, as an expression.

    :math:`\kappa = (p_o - p_e)/(1 - p_e)` with the observed agreement
    :math:`p_o = (n_{11} + n_{00})/n` and the agreement expected by chance from the margins
    :math:`p_e = p_a p_b + (1-p_a)(1-p_b)`, :math:`p_a = (n_{11} + n_{10})/n`,
    :math:`p_b = (n_{11} + n_{01})/n` (Cohen 1960). Null when :math:`p_e = 1` (both verdicts
    constant and equal: kappa is 0/0) or ``n`` is 0.

    Examples
    --------
    >>> import polars as pl
    >>> from gradeframe.stats import cohens_kappa
    >>> df = pl.DataFrame({"rr": [40, 5], "ra": [5, 0], "rb": [5, 0], "ww": [50, 0]})
    >>> df.select(kappa=cohens_kappa("rr", "ra", "rb", "ww").round(4))
    shape: (2, 1)
    ┌───────┐
    │ kappa │
    │ ---   │
    │ f64   │
    ╞═══════╡
    │ 0.798 │
    │ null  │
    └───────┘
    """
    n11, n10, n01, n00 = (
        to_expr(v, name).cast(pl.Float64)
        for v, name in (
            (both_right, "both_right"),
            (only_a, "only_a"),
            (only_b, "only_b"),
            (both_wrong, "both_wrong"),
        )
    )
    n = n11 + n10 + n01 + n00
    observed = (n11 + n00) / n
    p_a, p_b = (n11 + n10) / n, (n11 + n01) / n
    chance = p_a * p_b + (1.0 - p_a) * (1.0 - p_b)
    return (
        pl.when((n > 0) & (chance < 1.0)).then((observed - chance) / (1.0 - chance)).alias("kappa")
    )


# --------------------------------------------------------------------------------------------
# Repeated samples: pass@k and pass^k of one item
# --------------------------------------------------------------------------------------------


def _ratio_product(top: pl.Expr, n: pl.Expr, k: pl.Expr) -> pl.Expr:
    r"""Return :math:`\prod_{j=0}^{k-1} (t - j)/(n - j)`, a term of 0 making the product 0.

    Each factor is one correctly rounded division, so the product of ``k`` of them is within
    about ``k`` units in the last place of the exact ratio: no factorial, no overflow, no
    cancellation. Callers make sure that ``n >= k`` (no zero denominator).
    """
    # Every branch of a when/then is computed for every row: capped at n, a short item (n < k,
    # null anyway) does not build a list of k factors for an absurd k.
    j = pl.int_ranges(0, pl.min_horizontal(k, n).clip(lower_bound=0), dtype=pl.Int64)
    numerator = (top - j).cast(pl.List(pl.Float64))
    denominator = (n - j).cast(pl.List(pl.Float64))
    # t - j runs down through 0 when t < k: that factor is 0 and so is the product (a negative
    # factor after it is clipped to 0 too, so the result is never -0.0).
    return (numerator / denominator).list.agg(pl.element().clip(lower_bound=0.0).product())


def _share(c: pl.Expr, n: pl.Expr) -> pl.Expr:
    return c.cast(pl.Float64) / n.cast(pl.Float64)


def _sample_counts(n: IntoExpr, c: IntoExpr, k: IntoExpr) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    return (
        to_expr(n, "n").cast(pl.Int64),
        to_expr(c, "c").cast(pl.Int64),
        to_expr(k, "k").cast(pl.Int64),
    )


def pass_at_k_estimate(n: IntoExpr, c: IntoExpr, k: IntoExpr) -> pl.Expr:
    r"""Return the unbiased pass@k of one item from its n samples, c of them right.

    :math:`1 - \binom{n-c}{k} / \binom{n}{k}` (Chen et al. 2021): the chance that k samples
    drawn without replacement from the item's n hold at least one right answer. Computed as
    :math:`1 - \prod_{j=0}^{k-1} \frac{n-c-j}{n-j}`, which equals the product form
    :math:`1 - \prod_{i=n-c+1}^{n} (1 - k/i)` and is exact to about ``k`` units in the last
    place for any n (no binomial coefficient is formed); for k = 1 it is c/n, exactly the
    accuracy. It is 1 when :math:`n - c < k` (every
    draw of k holds a right one), 0 when c is 0, and null when :math:`n < k` (too few samples)
    or an input is null.

    Parameters
    ----------
    n, c, k
        Integer columns or expressions: samples, right samples, and k (at least 1).

    Examples
    --------
    >>> import polars as pl
    >>> from gradeframe.stats import pass_at_k_estimate
    >>> df = pl.DataFrame({"n": [10, 10, 10, 3], "c": [0, 3, 8, 1], "k": [5, 5, 5, 5]})
    >>> df.with_columns(pass_at_k=pass_at_k_estimate("n", "c", "k").round(6))
    shape: (4, 4)
    ┌─────┬─────┬─────┬───────────┐
    │ n   ┆ c   ┆ k   ┆ pass_at_k │
    │ --- ┆ --- ┆ --- ┆ ---       │
    │ i64 ┆ i64 ┆ i64 ┆ f64       │
    ╞═════╪═════╪═════╪═══════════╡
    │ 10  ┆ 0   ┆ 5   ┆ 0.0       │
    │ 10  ┆ 3   ┆ 5   ┆ 0.916667  │
    │ 10  ┆ 8   ┆ 5   ┆ 1.0       │
    │ 3   ┆ 1   ┆ 5   ┆ null      │
    └─────┴─────┴─────┴───────────┘
    """
    n_, c_, k_ = _sample_counts(n, c, k)
    none_right = _ratio_product(n_ - c_, n_, k_)
    return (
        pl.when((n_ >= k_) & (k_ == 1))
        .then(_share(c_, n_))  # c/n exactly, so pass@1 is the accuracy to the last bit
        .when((n_ >= k_) & (k_ >= 1))
        .then(1.0 - none_right)
        .alias("pass_at_k")
    )


def pass_all_k_estimate(n: IntoExpr, c: IntoExpr, k: IntoExpr) -> pl.Expr:
    r"""Return pass^k of one item: the chance that k of its samples are all right.

    :math:`\binom{c}{k} / \binom{n}{k} = \prod_{j=0}^{k-1} \frac{c-j}{n-j}` (k samples drawn
    without replacement from the item's n, c of them right), exact to about ``k`` units in the
    last place. 0 when :math:`c < k`; null when :math:`n < k` or an input is null.

    Examples
    --------
    >>> import polars as pl
    >>> from gradeframe.stats import pass_all_k_estimate
    >>> df = pl.DataFrame({"n": [10, 10, 10], "c": [3, 8, 10], "k": [5, 5, 5]})
    >>> df.with_columns(pass_all_k=pass_all_k_estimate("n", "c", "k").round(6))
    shape: (3, 4)
    ┌─────┬─────┬─────┬────────────┐
    │ n   ┆ c   ┆ k   ┆ pass_all_k │
    │ --- ┆ --- ┆ --- ┆ ---        │
    │ i64 ┆ i64 ┆ i64 ┆ f64        │
    ╞═════╪═════╪═════╪════════════╡
    │ 10  ┆ 3   ┆ 5   ┆ 0.0        │
    │ 10  ┆ 8   ┆ 5   ┆ 0.222222   │
    │ 10  ┆ 10  ┆ 5   ┆ 1.0        │
    └─────┴─────┴─────┴────────────┘
    """
    n_, c_, k_ = _sample_counts(n, c, k)
    return (
        pl.when((n_ >= k_) & (k_ == 1))
        .then(_share(c_, n_))
        .when((n_ >= k_) & (k_ >= 1))
        .then(_ratio_product(c_, n_, k_))
        .alias("pass_all_k")
    )
