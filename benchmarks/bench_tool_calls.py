"""The ``tool_calls`` benchmark (``python benchmarks/bench.py --tool-calls``), issue 35.

200,000 agent runs of up to 20 tool calls each (tools from a pool of 12, arguments of one to
three keys: text, integers, floats, Booleans, a list, a nested object), the expected calls
against the actual calls, where about half the runs call exactly what was expected and the rest
drop, add, repeat or swap a call, change an argument, or write a number another way (3 as 3.0).

- gradeframe: ``df.grade.tool_calls`` on the 200,000 rows, JSON-text columns and List(Struct)
  columns, for each mode; best of 2, wall clock, in this process.
- agentevals 0.0.9: ``create_trajectory_match_evaluator`` for its four modes (strict, unordered,
  superset, subset; tool arguments "exact"), called row by row on a sample of the same rows (one
  assistant message per side, arguments as OpenAI writes them: JSON text), in its own virtualenv
  (``--agentevals-python``; default ``/work/venvs/toolcalls/bin/python``), and extrapolated to
  200,000 rows. Both sides' verdicts on the sample are compared.

Run by ``bench.py``; ``python benchmarks/bench_tool_calls.py --agentevals SAMPLE.jsonl`` is the
agentevals worker (it prints its timings and verdicts as JSON).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TOOLS = [
    "search",
    "fetch_page",
    "weather",
    "calculator",
    "send_email",
    "calendar_add",
    "read_file",
    "write_file",
    "sql_query",
    "translate",
    "get_stock",
    "book_flight",
]
#: The pairs of modes compared: gradeframe's and agentevals' names for the same question.
PAIRS = [
    ("exact", "strict"),
    ("any_order", "unordered"),
    ("superset", "superset"),
    ("subset", "subset"),
]


def _arguments(tool: int, rng: random.Random) -> dict[str, Any]:
    """Arguments of one call: each tool has its own keys, each key one kind of value."""
    kinds = [
        lambda: rng.choice(["paris", "berlin", "tokyo", "lima", "oslo", "cairo"]),
        lambda: rng.randint(1, 50),
        lambda: round(rng.uniform(0, 100), 2),
        lambda: rng.random() < 0.5,
        lambda: [rng.randint(0, 9) for _ in range(rng.randint(1, 3))],
        lambda: {"unit": rng.choice(["c", "f"]), "days": rng.randint(1, 7)},
    ]
    keys = 1 + tool % 3
    return {f"{TOOLS[tool]}_{k}": kinds[(tool + k) % len(kinds)]() for k in range(keys)}


def _number_written_another_way(arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        k: float(v) if isinstance(v, int) and not isinstance(v, bool) else v
        for k, v in arguments.items()
    }


def make_rows(rows: int, seed: int = 35) -> list[tuple[list[dict], list[dict]]]:
    """(actual, expected) call lists: expected 1 to 20 calls, actual a variation of it."""
    rng = random.Random(seed)
    out = []
    for _ in range(rows):
        n = rng.randint(1, 20)
        expected = []
        for _ in range(n):
            tool = rng.randrange(len(TOOLS))
            expected.append({"name": TOOLS[tool], "arguments": _arguments(tool, rng)})
        actual = [dict(c) for c in expected]
        change = rng.random()
        if change < 0.5:
            pass
        elif change < 0.6 and len(actual) > 1:
            i = rng.randrange(len(actual) - 1)
            actual[i], actual[i + 1] = actual[i + 1], actual[i]
        elif change < 0.7 and len(actual) > 1:
            del actual[rng.randrange(len(actual))]
        elif change < 0.8 and len(actual) < 20:
            tool = rng.randrange(len(TOOLS))
            actual.insert(
                rng.randrange(len(actual) + 1),
                {"name": TOOLS[tool], "arguments": _arguments(tool, rng)},
            )
        elif change < 0.9:
            i = rng.randrange(len(actual))
            tool = TOOLS.index(actual[i]["name"])
            actual[i] = {"name": actual[i]["name"], "arguments": _arguments(tool, rng)}
        else:
            i = rng.randrange(len(actual))
            actual[i] = {
                "name": actual[i]["name"],
                "arguments": _number_written_another_way(actual[i]["arguments"]),
            }
        out.append((actual, expected))
    return out


def _message(calls: list[dict]) -> list[dict]:
    """One assistant message holding the calls, arguments as JSON text (OpenAI's shape)."""
    return [
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": f"call_{i}",
                    "type": "function",
                    "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
                }
                for i, c in enumerate(calls)
            ],
        }
    ]


def agentevals_worker(path: str) -> dict[str, Any]:
    """Time agentevals' four trajectory-match evaluators row by row on the sample in ``path``."""
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    rows = [json.loads(line) for line in Path(path).read_text().splitlines()]
    messages = [(_message(actual), _message(expected)) for actual, expected in rows]
    out: dict[str, Any] = {}
    for _, theirs in PAIRS:
        evaluator = create_trajectory_match_evaluator(
            trajectory_match_mode=theirs, tool_args_match_mode="exact"
        )
        start, cpu = time.perf_counter(), time.process_time()
        scores = [evaluator(outputs=o, reference_outputs=r)["score"] for o, r in messages]
        out[theirs] = {
            "seconds": time.perf_counter() - start,
            "cpu": time.process_time() - cpu,
            "scores": scores,
        }
    return out


def section(rows: int, sample: int, agentevals_python: str) -> str:
    """Run the benchmark; return the RESULTS.md section."""
    import polars as pl

    import gradeframe  # noqa: F401  (registers .grade)

    data = make_rows(rows)
    text = pl.DataFrame(
        {
            "tool_calls": [json.dumps(a) for a, _ in data],
            "expected_calls": [json.dumps(e) for _, e in data],
        }
    )
    structs = text.select(
        pl.col(c).str.json_decode(
            pl.List(pl.Struct({"name": pl.String, "arguments": _arguments_dtype()}))
        )
        for c in text.columns
    )
    calls = structs.get_column("tool_calls").list.len()

    def best(run, repeats: int = 2) -> tuple[float, Any]:
        return best_cpu(run, repeats)[0::2]  # type: ignore[return-value]

    def best_cpu(run, repeats: int = 2) -> tuple[float, float, Any]:
        """Best wall-clock and best CPU time (all threads) of ``repeats`` runs, and the result."""
        times, cpus, result = [], [], None
        for _ in range(repeats):
            start, cpu = time.perf_counter(), time.process_time()
            result = run()
            times.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu)
        return min(times), min(cpus), result

    dtype = pl.List(pl.Struct({"name": pl.String, "arguments": _arguments_dtype()}))
    floor, _ = best(lambda: text.select(pl.col(c).str.json_decode(dtype) for c in text.columns))
    ours: dict[str, dict[str, Any]] = {}
    for mode in ["exact", "in_order", "any_order", "superset", "subset"]:
        seconds, cpu, result = best_cpu(lambda mode=mode: text.grade.tool_calls(mode=mode))
        struct_seconds, struct_cpu, struct_result = best_cpu(
            lambda mode=mode: structs.grade.tool_calls(mode=mode)
        )
        assert result.get_column("correct").equals(struct_result.get_column("correct"))
        ours[mode] = {
            "seconds": seconds,
            "cpu": cpu,
            "struct_seconds": struct_seconds,
            "struct_cpu": struct_cpu,
            "correct": result.get_column("correct").to_list(),
        }

    # agentevals on an evenly spread sample of the same rows, in its own virtualenv
    step = max(1, rows // sample)
    picks = list(range(0, rows, step))[:sample]
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for i in picks:
            f.write(json.dumps(data[i]) + "\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",)}
    env["LANGSMITH_TRACING"] = "false"
    done = subprocess.run(
        [agentevals_python, str(Path(__file__).resolve()), "--agentevals", f.name],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    os.unlink(f.name)
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    version = subprocess.run(
        [agentevals_python, "-c", "import importlib.metadata as m; print(m.version('agentevals'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()

    import datetime as dt
    import platform

    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    mean_calls = calls.mean()
    lines = [
        "## Tool calls: gradeframe against agentevals' trajectory match",
        "",
        f"- {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC; "
        f"`python benchmarks/bench.py --tool-calls`; {os.cpu_count()} cores, load average "
        f"at the end {load} (the machine was shared with "
        "other jobs: absolute times are noisy; both sides ran in the same run); Python "
        f"{platform.python_version()}, Polars {pl.__version__}, agentevals {version}.",
        f"- {rows:,} rows, 1 to 20 expected calls each (actual calls: {mean_calls:.1f} a row on "
        "average), about half exactly as expected; the rest drop, add, swap or repeat a call, "
        "change an argument, or write an integer as a float. gradeframe: best of 2 on all rows "
        "(JSON-text columns, and the same calls as List(Struct) columns). agentevals: "
        f"`create_trajectory_match_evaluator(trajectory_match_mode=..., "
        f'tool_args_match_mode="exact")` called row by row on {len(picks):,} rows spread evenly '
        f"over the same rows (one assistant message per side, OpenAI's shape), once, "
        f"extrapolated to {rows:,} rows; `bare Polars` is `str.json_decode` of both text "
        "columns into the calls' dtype, given.",
        "",
        "| mode (gradeframe / agentevals) | gradeframe, JSON text | gradeframe, List(Struct) "
        "| agentevals (extrapolated) | agentevals per row | speed-up, JSON text "
        "| speed-up, List(Struct) | speed-up in CPU time, JSON text / List(Struct) "
        "| verdicts that differ on the sample |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    verdict_notes = []
    worst = worst_struct = None
    worst_cpu: list[float] = []
    for mode, their_mode in PAIRS:
        t = theirs[their_mode]
        per_row = t["seconds"] / len(picks)
        projected = per_row * rows
        speed = projected / ours[mode]["seconds"]
        struct_speed = projected / ours[mode]["struct_seconds"]
        worst = speed if worst is None else min(worst, speed)
        worst_struct = struct_speed if worst_struct is None else min(worst_struct, struct_speed)
        their_cpu = t["cpu"] / len(picks) * rows
        cpu_speeds = (their_cpu / ours[mode]["cpu"], their_cpu / ours[mode]["struct_cpu"])
        worst_cpu = [min(x, y) for x, y in zip(worst_cpu or cpu_speeds, cpu_speeds, strict=True)]
        mine = [ours[mode]["correct"][i] for i in picks]
        pairs = zip(picks, zip(mine, t["scores"], strict=True), strict=True)
        differ = [i for i, (x, y) in pairs if bool(x) != bool(y)]
        lines.append(
            f"| {mode} / {their_mode} | {ours[mode]['seconds']:.3f} s | "
            f"{ours[mode]['struct_seconds']:.3f} s | {projected:,.1f} s | "
            f"{per_row * 1000:.3f} ms | {speed:,.0f}× | {struct_speed:,.0f}× "
            f"| {cpu_speeds[0]:,.0f}× / {cpu_speeds[1]:,.0f}× | {len(differ)} |"
        )
        if differ:
            verdict_notes.append((mode, their_mode, differ[:3]))
    lines.append(
        f"| in_order / (none) | {ours['in_order']['seconds']:.3f} s | "
        f"{ours['in_order']['struct_seconds']:.3f} s | - | - | - | - | - | - |"
    )
    lines.append(
        f"| bare Polars: json_decode of both columns (dtype given) | {floor:.3f} s "
        "| - | - | - | - | - | - | - |"
    )
    lines += [
        "",
        f"Target: at least 50× faster than agentevals row by row (slowest mode): List(Struct) "
        f"columns {worst_struct:,.0f}× ({'met' if worst_struct >= 50 else 'NOT met'}), JSON-text "
        f"columns {worst:,.0f}× ({'met' if worst >= 50 else 'NOT met'}). In CPU time (all "
        f"threads, both sides; what the machine's load changes least): List(Struct) "
        f"{worst_cpu[1]:,.0f}×, JSON text {worst_cpu[0]:,.0f}×.",
        "",
        "agentevals' strict mode compares the messages in order but the calls inside one message "
        "in any order (each takes the first unused call that matches); all of a row's calls are "
        "in one message here, so its strict verdict on a row whose calls were swapped is "
        "gradeframe's any_order verdict, not its exact one: those are the rows that differ.",
    ]
    for mode, their_mode, examples in verdict_notes:
        shown = "; ".join(
            f"row {i}: actual {json.dumps(data[i][0])[:160]}…, "
            f"expected {json.dumps(data[i][1])[:160]}…"
            for i in examples[:1]
        )
        lines.append(f"\nVerdicts that differ, {mode} / {their_mode} (first): {shown}")
    lines.append("")
    return "\n".join(lines)


def _arguments_dtype():
    import polars as pl

    fields = {}
    rng = random.Random(0)
    for tool in range(len(TOOLS)):
        for key, value in _arguments(tool, rng).items():
            if isinstance(value, bool):
                fields[key] = pl.Boolean
            elif isinstance(value, int | float):
                fields[key] = pl.Float64
            elif isinstance(value, str):
                fields[key] = pl.String
            elif isinstance(value, list):
                fields[key] = pl.List(pl.Int64)
            else:
                fields[key] = pl.Struct({"unit": pl.String, "days": pl.Int64})
    return pl.Struct(fields)


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "--agentevals":
    print(json.dumps(agentevals_worker(sys.argv[2])))
