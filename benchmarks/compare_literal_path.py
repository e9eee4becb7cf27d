"""Before/after: the literal ``equivalent`` path of two checkouts, interleaved, in CPU time.

``python benchmarks/compare_literal_path.py BEFORE AFTER [ROUNDS]`` runs, ROUNDS times (default
3), one fresh process per checkout (``PYTHONPATH`` set to its ``src``), each timing bare Polars
``str.extract`` (``bench.BARE_NUMBER``) and ``equivalent(fallback=None)`` (with and without
``rel_tol``) on ``bench_equivalent.literal_rows(1_000_000)``, best of 3, in wall and CPU time.
CPU time (every Polars thread summed) is what a loaded machine moves least.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

_ONE_ROUND = r"""
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
import polars as pl
import bench, bench_equivalent
import gradeframe as gf

frame = bench._aligned(bench_equivalent.literal_rows(1_000_000))


def best(call, repeats=3):
    wall = cpu = float("inf")
    for _ in range(repeats):
        start, used = time.perf_counter(), time.process_time()
        call()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - used)
    return wall, cpu


out = {"gradeframe": gf.__file__, "load": os.getloadavg()[0]}
for name, call in (
    ("bare", lambda: frame.select(pl.col("answer").str.extract(bench.BARE_NUMBER, 1))),
    ("fallback_none", lambda: frame.grade.equivalent("answer", "gold", fallback=None)),
    ("rel_tol", lambda: frame.grade.equivalent("answer", "gold", fallback=None, rel_tol=1e-6)),
):
    out[name] = best(call)
print(json.dumps(out))
"""


def main() -> None:
    before, after = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    for _ in range(rounds):
        for checkout in (before, after):
            env = {**os.environ, "PYTHONPATH": f"{checkout}/src:{checkout}"}
            found = subprocess.run(
                [sys.executable, "-c", _ONE_ROUND, str(HERE)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            row = json.loads(found)
            bare = row["bare"][1]
            print(
                f"{checkout}: load {row['load']:.1f}; CPU equivalent/bare "
                f"{row['fallback_none'][1] / bare:.1f}x, rel_tol {row['rel_tol'][1] / bare:.1f}x "
                f"(bare {bare:.3f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
