"""A scalar reference of SPEC §10 (repeated samples), exact: ``math.comb`` and ``Fraction``.

Independent of the library: no Polars, no product trick. Each function takes plain Python
values (one item's counts, or a group's items) and returns exact fractions; the tests compare
the library's floats with them.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from statistics import NormalDist

#: The two-sided 95 % normal quantile (SPEC: 1.959964 to six places).
Z_95 = NormalDist().inv_cdf(0.975)


def pass_at_k_item(n: int, c: int, k: int) -> Fraction | None:
    """1 - C(n - c, k) / C(n, k) (Chen et al. 2021); None when n < k."""
    if n < k:
        return None
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))  # comb is 0 when n - c < k


def pass_at_k_product_form(n: int, c: int, k: int) -> Fraction | None:
    """1 - prod_{i = n-c+1..n} (1 - k/i), and 1 when n - c < k (the form SPEC §10 names)."""
    if n < k:
        return None
    if n - c < k:
        return Fraction(1)
    product = Fraction(1)
    for i in range(n - c + 1, n + 1):
        product *= 1 - Fraction(k, i)
    return 1 - product


def pass_all_k_item(n: int, c: int, k: int) -> Fraction | None:
    """C(c, k) / C(n, k); None when n < k."""
    if n < k:
        return None
    return Fraction(math.comb(c, k), math.comb(n, k))


def pass_at_k_group(items: Sequence[tuple[int, int]], k: int) -> dict[str, object]:
    """One row of the pass@k table for a group's items, given as (n, c) pairs."""
    short = sum(1 for n, _ in items if n < k)
    row: dict[str, object] = {
        "k": k,
        "n_items": len(items),
        "pass_at_k": None,
        "ci_low": None,
        "ci_high": None,
        "pass_all_k": None,
        "short_items": short,
    }
    if short or not items:
        return row
    values = [pass_at_k_item(n, c, k) for n, c in items]
    mean = sum(values, Fraction(0)) / len(values)  # type: ignore[arg-type]
    row["pass_at_k"] = mean
    row["pass_all_k"] = sum((pass_all_k_item(n, c, k) for n, c in items), Fraction(0)) / len(items)  # type: ignore[arg-type]
    if len(values) >= 2:
        variance = sum(((v - mean) ** 2 for v in values), Fraction(0)) / (len(values) - 1)  # type: ignore[operator]
        half = Z_95 * math.sqrt(variance / len(values))
        row["ci_low"] = min(max(float(mean) - half, 0.0), 1.0)
        row["ci_high"] = min(max(float(mean) + half, 0.0), 1.0)
    return row


def consistency_group(items: Sequence[tuple[int, int]]) -> dict[str, object]:
    """One row of the consistency table (without the vote columns) for (n, c) pairs."""
    p = [Fraction(c, n) for n, c in items]
    return {
        "n_items": len(items),
        "n_samples": sum(n for n, _ in items),
        "mean_accuracy": sum(p, Fraction(0)) / len(p) if p else None,
        "always_right": sum(1 for n, c in items if c == n),
        "always_wrong": sum(1 for _, c in items if c == 0),
        "flaky": sum(1 for n, c in items if 0 < c < n),
        "item_variance": sum((q * (1 - q) for q in p), Fraction(0)) / len(p) if p else None,
    }


def majority_item(votes: Sequence[tuple[str | None, bool]]) -> tuple[bool, bool]:
    """(majority answer right, tie) for an item's (folded answer or None, correct) samples."""
    counted = Counter(a for a, _ in votes if a is not None)
    if not counted:
        return False, False
    ranked = counted.most_common()
    if len(ranked) >= 2 and ranked[0][1] == ranked[1][1]:
        return False, True
    top = ranked[0][0]
    right = sum(1 for a, ok in votes if a == top and ok)
    return 2 * right > counted[top], False
