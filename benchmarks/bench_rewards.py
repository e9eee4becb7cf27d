r"""The rewards benchmark (``python benchmarks/bench.py --rewards``), SPEC §16 / issue 37.

One RL step's worth of completions, 16,384 by default (256 prompts × 64 samples), graded against
MATH-500's literal gold answers (the golds :func:`gradeframe.equivalent` reads as literals), in
TRL's conversational format, in one process:

1. **gradeframe**: ``gradeframe.rewards.accuracy_reward(completions, solution)``, the whole batch
   in one call (best of 3, after one warm-up call).
2. **The per-completion loop TRL's ``accuracy_reward`` runs**, written here in our own words
   (TRL itself needs torch): for each completion, Math-Verify parses the gold, parses the
   completion (LaTeX only, the boxed answer first, no match without a LaTeX anchor), and
   ``verify`` compares them; a gold that does not parse gives None, an exception gives None.
   Run on every ``SUBSAMPLE``-th completion of the same batch (the loop takes minutes on the
   whole batch) and extrapolated to the whole batch; the section says so.

The golds are given as ``$...$`` to both, as a trainer's dataset holds them in LaTeX (Math-Verify
finds LaTeX by its delimiters; gradeframe's reading removes one pair). Both run in the main
thread, where Math-Verify's own signal-based timeouts work.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import polars as pl

import gradeframe  # noqa: F401  (registers .grade)

HERE = Path(__file__).resolve().parent
KEYS = HERE.parent / "tests" / "fixtures" / "answer_keys" / "math500_answers.jsonl"

#: The loop runs on every this-many-th completion (and is extrapolated).
SUBSAMPLE = 8


def literal_golds() -> list[str]:
    """MATH-500's golds that ``equivalent`` reads as literals (integers, decimals, fractions)."""
    golds = [json.loads(line)["answer"] for line in KEYS.read_text(encoding="utf-8").splitlines()]
    frame = pl.DataFrame({"gold": golds}).grade.equivalent("gold", "gold", fallback=None)
    return frame.filter(pl.col("method") == "literal")["gold"].to_list()


def batch(size: int, seed: int = 37) -> tuple[list[list[dict[str, str]]], list[str]]:
    """Completions (conversations) and their golds: right, wrong and unanswered, in prose."""
    rng = random.Random(seed)
    golds = literal_golds()
    completions, solution = [], []
    for i in range(size):
        gold = golds[(i // 64) % len(golds)]  # 64 samples per prompt
        other = rng.choice(golds)
        steps = " ".join(f"Step {k}: we simplify the expression." for k in range(rng.randint(2, 8)))
        form = rng.random()
        if form < 0.45:
            text = f"{steps}\nTherefore the answer is $\\boxed{{{gold}}}$."
        elif form < 0.75:
            text = f"{steps}\nSo we get $\\boxed{{{other}}}$."
        elif form < 0.9:
            text = f"{steps}\nFirst $\\boxed{{{other}}}$; checking again gives $\\boxed{{{gold}}}$."
        else:
            text = f"{steps}\nI could not finish the computation."
        completions.append([{"role": "assistant", "content": text}])
        solution.append(f"${gold}$")
    return completions, solution


def trl_style_loop(completions: list[Any], solution: list[str]) -> list[float | None]:
    """TRL's accuracy_reward as a per-completion loop of Math-Verify calls (our own words)."""
    from latex2sympy2_extended import NormalizationConfig
    from math_verify import LatexExtractionConfig, parse, verify

    answer_config = [
        LatexExtractionConfig(
            normalization_config=NormalizationConfig(
                nits=False,
                malformed_operators=False,
                basic_latex=True,
                boxed="all",
                units=True,
            ),
            boxed_match_priority=0,
            try_extract_without_anchor=False,
        )
    ]
    rewards: list[float | None] = []
    for completion, gold in zip(completions, solution, strict=True):
        content = completion[0]["content"]
        gold_parsed = parse(gold, extraction_mode="first_match")
        if not gold_parsed:
            rewards.append(None)
            continue
        answer_parsed = parse(
            content, extraction_config=answer_config, extraction_mode="first_match"
        )
        try:
            rewards.append(float(verify(gold_parsed, answer_parsed)))
        except Exception:  # as the loop does: a failure is no reward
            rewards.append(None)
    return rewards


def section(size: int, machine: dict[str, str]) -> str:
    """Run both and return the RESULTS.md section."""
    from gradeframe.rewards import accuracy_reward

    completions, solution = batch(size)
    accuracy_reward(completions[:256], solution[:256])  # warm-up (imports, first compile)
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        ours = accuracy_reward(completions, solution)
        times.append(time.perf_counter() - t0)
    best = min(times)

    picked = list(range(0, size, SUBSAMPLE))
    sub_completions = [completions[i] for i in picked]
    sub_solution = [solution[i] for i in picked]
    trl_style_loop(sub_completions[:16], sub_solution[:16])  # warm-up (imports)
    t0 = time.perf_counter()
    theirs = trl_style_loop(sub_completions, sub_solution)
    loop_time = time.perf_counter() - t0
    projected = loop_time * size / len(picked)
    agree = sum(ours[i] == t for i, t in zip(picked, theirs, strict=True))
    differ = sorted(
        {(solution[i], ours[i], t) for i, t in zip(picked, theirs, strict=True) if ours[i] != t}
    )
    speedup = projected / best
    right = sum(r == 1.0 for r in ours)
    load = machine["load"]
    lines = [
        f"## Rewards: {size:,} completions on MATH-500's literal golds (machine load {load})",
        "",
        f"`python benchmarks/bench.py --rewards`, {machine['date']}; {machine['nproc']} cores,"
        " machine loaded by other helpers' work (ratios in the same run are what count)."
        f" {size:,} conversational completions ({len(set(solution))} distinct golds, 64 samples"
        " per prompt: right, wrong, corrected and unanswered replies), golds as `$...$`."
        " gradeframe: `gradeframe.rewards.accuracy_reward` on the whole batch, best of 3 after"
        " a warm-up. The loop: TRL's `accuracy_reward` as written in `bench_rewards.py` (parse"
        " the gold, parse the completion, `verify`, one completion at a time), timed on every"
        f" {SUBSAMPLE}th completion ({len(picked):,}) and extrapolated to {size:,}.",
        "",
        "| grader | time for the batch | per completion | × gradeframe |",
        "|---|---:|---:|---:|",
        f"| gradeframe `accuracy_reward` (one Polars frame) | {best:.3f} s |"
        f" {best / size * 1e6:,.0f} µs | 1.00× |",
        f"| per-completion Math-Verify loop (TRL's) | {projected:,.1f} s (extrapolated from"
        f" {loop_time:.1f} s on {len(picked):,}) | {projected / size * 1e6:,.0f} µs |"
        f" {speedup:,.0f}× |",
        "",
        f"gradeframe's rewards: {right:,} of {size:,} right. Same verdict as the loop on"
        f" {agree:,} of the {len(picked):,} timed completions. The golds where they differ"
        " (gold, gradeframe, loop): "
        + "; ".join(f"`{g}` {a} {b}" for g, a, b in differ[:8])
        + (" ..." if len(differ) > 8 else "")
        + " (gradeframe reads the completion's last box, which is the gold itself; the loop"
        " reads the first box, or cannot read these shorthand spellings).",
        f"Target: at least 50× faster than the loop: {'met' if speedup >= 50 else 'NOT met'}"
        f" ({speedup:,.0f}×).",
        "",
    ]
    return "\n".join(lines)
