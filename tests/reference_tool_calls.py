"""A scalar reference of the tool-call rules (SPEC §14), written to be obviously right, not fast.

Calls are Python dicts ``{"name": ..., "arguments": {...}}``. Matchings are found by brute force:
every injective assignment for the unordered modes, every pair of index subsequences for the
longest in-order match; so keep the lists short (up to five or six calls).
"""

from __future__ import annotations

import itertools
import json
from collections import Counter
from typing import Any

MISSING = object()


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def values_equal(a: Any, b: Any, rel_tol: float) -> bool:
    """Equal as JSON values: numbers by value (within rel_tol), null the same as absent."""
    if _number(a) and _number(b):
        a, b = float(a), float(b)
        return a == b or abs(a - b) <= rel_tol * max(abs(a), abs(b))
    if isinstance(a, dict) and isinstance(b, dict):
        keys = set(a) | set(b)
        return all(values_equal(a.get(k), b.get(k), rel_tol) for k in keys)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(
            values_equal(x, y, rel_tol) for x, y in zip(a, b, strict=True)
        )
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return a is None and b is None


def arguments_of(call: dict) -> dict:
    arguments = call.get("arguments")
    if isinstance(arguments, str):
        arguments = json.loads(arguments)
    return arguments or {}


def calls_match(expected: dict, actual: dict, arguments: Any, rel_tol: float) -> bool:
    if expected["name"] != actual["name"]:
        return False
    if arguments == "ignore":
        return True
    e, a = arguments_of(expected), arguments_of(actual)
    if arguments == "exact":
        return values_equal(e, a, rel_tol)
    return all(values_equal(e.get(k), a.get(k), rel_tol) for k in arguments)


def maximum_matching(relation: list[list[bool]], n: int, m: int) -> int:
    """The size of a maximum matching, trying every injective assignment of E into A or none."""
    best = 0
    for choice in itertools.product(range(-1, m), repeat=n):
        used = [a for a in choice if a >= 0]
        if len(used) != len(set(used)):
            continue
        if all(a < 0 or relation[e][a] for e, a in enumerate(choice)):
            best = max(best, len(used))
    return best


def longest_in_order(relation: list[list[bool]], n: int, m: int) -> int:
    """The length of a longest in-order match, trying every pair of index subsequences."""
    for k in range(min(n, m), 0, -1):
        for es in itertools.combinations(range(n), k):
            for as_ in itertools.combinations(range(m), k):
                if all(relation[e][a] for e, a in zip(es, as_, strict=True)):
                    return k
    return 0


def grade(
    actual: list[dict] | None,
    expected: list[dict] | None,
    *,
    mode: str,
    arguments: Any = "exact",
    rel_tol: float = 0.0,
) -> tuple[bool, int, int]:
    """Return (correct, how many expected calls are missing, how many actual calls are extra)."""
    actual, expected = actual or [], expected or []
    n, m = len(expected), len(actual)
    relation = [[calls_match(e, a, arguments, rel_tol) for a in actual] for e in expected]
    if mode in ("exact", "in_order"):
        size = longest_in_order(relation, n, m)
    else:
        size = maximum_matching(relation, n, m)
    correct = {
        "exact": size == n == m,
        "in_order": size == n,
        "any_order": size == n == m,
        "superset": size == n,
        "subset": size == m,
    }[mode]
    return correct, n - size, m - size


def greedy_superset(actual: list[dict], expected: list[dict], rel_tol: float) -> bool:
    """agentevals' way: each expected call takes the first unused actual call that matches."""
    used: set[int] = set()
    for e in expected:
        for i, a in enumerate(actual):
            if i not in used and calls_match(e, a, "exact", rel_tol):
                used.add(i)
                break
        else:
            return False
    return True


def names(calls: list[dict] | None) -> Counter:
    return Counter(c["name"] for c in calls or [])
