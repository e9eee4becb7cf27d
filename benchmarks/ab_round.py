"""One round of an A/B between two checkouts: ``python benchmarks/ab_round.py TREE``.

Imports gradeframe and the benchmark frames from TREE, times answer_contains (list refs and
String ref) against bare Polars contains and equivalent's literal path against a bare
``str.extract``, best of 3 calls, on 400,000 rows, and prints one JSON line. Run it for the two
trees in alternation, in fresh processes, and compare the ratios.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from typing import Any

TREE = sys.argv[1]
sys.path[:0] = [f"{TREE}/src", f"{TREE}/benchmarks", TREE]

import bench  # noqa: E402
import bench_equivalent  # noqa: E402
import polars as pl  # noqa: E402

import gradeframe  # noqa: E402, F401  (registers .grade)

ROWS = 400_000


def best(call: Callable[[], Any], repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


frame = bench.make_frame(ROWS, "natural", 11)
literal = bench_equivalent.literal_rows(ROWS)
print(
    json.dumps(
        {
            "bare": best(lambda: bench._bare(frame)),
            "list": best(lambda: frame.grade.answer_contains("answer", "refs")),
            "string": best(lambda: frame.grade.answer_contains("answer", "ref")),
            "equivalent": best(lambda: literal.grade.equivalent("answer", "gold")),
            "bare_extract": best(
                lambda: literal.select(pl.col("answer").str.extract(r"(-?\d+(?:\.\d+)?)"))
            ),
        }
    )
)
