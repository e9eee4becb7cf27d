r"""The ``equivalent`` benchmark (``python benchmarks/bench.py --equivalent``), SPEC §9 / issue 24.

Three measurements, all in this one process, printed as a RESULTS.md section:

1. **Literal path**: 1,000,000 rows of literal (answer, gold) pairs (integers with and without
   separators, decimals, fractions, percents, ``\boxed``, ``$``; most pairs distinct),
   ``equivalent(..., fallback=None)`` against bare Polars ``str.extract`` (``--extract``'s
   ``BARE_NUMBER``) on the answer column of the same frame, interleaved round by round, best of
   3. The frame's columns are cut in one chunk per Polars thread (``bench._aligned``), so the
   bare floor runs on every core as gradeframe does.
2. **Fallback once per distinct pair**: 200,000 rows holding 2,000 distinct non-literal pairs
   (roots, pi, tuples): the number of pairs sent to Math-Verify (``_symbolic.CALLS``) and the
   time, beside 2,000 in-process Math-Verify calls and the projection for 200,000.
3. **Side by side** on the same 3,000 rows (the first of measurement 1, plus 500 MATH-500 golds
   against an answer spelled another way): gradeframe, Math-Verify ``verify(parse(gold),
   parse(answer))`` per row, and lm-eval's hendrycks ``is_equiv`` (imported from
   ``lm_eval.tasks.hendrycks_math.utils`` when lm-eval is installed; else the output says the
   comparison was skipped): time, and agreement on the rows where both sides are literals,
   with every distinct disagreement and who is right by §9 (decided by the independent
   ``fractions.Fraction`` reference of the tests, ``tests/reference_equivalent.py``).
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # for tests.reference_equivalent

# ---- the rows -------------------------------------------------------------------------------


def _value(rng: random.Random) -> tuple[str, Any]:
    """A gold value as a benchmark writes it: (gold text, kind)."""
    kind = rng.random()
    if kind < 0.45:  # GSM8K, AIME: integers
        return str(rng.randint(0, 10 ** rng.randint(1, 7))), "int"
    if kind < 0.65:
        return f"\\frac{{{rng.randint(1, 99)}}}{{{rng.randint(2, 99)}}}", "frac"
    if kind < 0.85:
        return f"{rng.randint(0, 999)}.{rng.randint(1, 99)}", "dec"
    return f"{rng.randint(1, 99)}\\%", "pct"


def _spelled(gold: str, kind: str, rng: random.Random) -> str:
    """The same value spelled as a model might, or (a third of the time) another value."""
    if rng.random() < 0.35:
        other, _ = _value(rng)
        return other
    if kind == "int":
        n = int(gold)
        forms = [gold, f"{n:,}", f"{n}.0", f"\\boxed{{{n}}}", f"${n}$", f"\\${n:,}", f"{n}."]
    elif kind == "frac":
        a, b = gold[6:].strip("}").split("}{")
        forms = [gold, f"{a}/{b}", f"\\dfrac{{{a}}}{{{b}}}", f"\\boxed{{\\frac{{{a}}}{{{b}}}}}"]
        forms.append(f"{int(a) * 2}/{int(b) * 2}")
    elif kind == "dec":
        forms = [gold, gold + "0", f"\\boxed{{{gold}}}", f"${gold}$", f"{float(gold):.6e}"]
    else:
        p = gold[:-2]
        forms = [gold, f"{p}%", p, f"{int(p) / 100}", f"\\boxed{{{p}\\%}}"]
    return rng.choice(forms)


def literal_rows(rows: int, seed: int = 24) -> pl.DataFrame:
    rng = random.Random(seed)
    golds, answers = [], []
    for _ in range(rows):
        gold, kind = _value(rng)
        golds.append(gold)
        answers.append(_spelled(gold, kind, rng))
    return pl.DataFrame({"answer": answers, "gold": golds})


def symbolic_pairs(distinct: int, seed: int = 25) -> list[tuple[str, str]]:
    """Distinct non-literal pairs: roots, multiples of pi, tuples, intervals (half equal)."""
    rng = random.Random(seed)
    pairs: set[tuple[str, str]] = set()
    while len(pairs) < distinct:
        k, m = rng.randint(2, 99), rng.randint(2, 9)
        form = rng.randrange(4)
        if form == 0:
            pair = (f"{m}\\sqrt{{{k}}}", f"\\sqrt{{{m * m * k}}}")
        elif form == 1:
            pair = (f"\\frac{{{k}\\pi}}{{{m}}}", f"{k}\\pi/{m + rng.randint(0, 1)}")
        elif form == 2:
            pair = (f"({k}, {m})", f"\\left( {k}, {m + rng.randint(0, 1)} \\right)")
        else:
            pair = (f"[{m}, {k})", f"[{m},{k})")
        pairs.add(pair)
    return sorted(pairs)


# ---- the measurements -----------------------------------------------------------------------


def _best(calls: dict[str, Callable[[], Any]], repeats: int) -> dict[str, float]:
    best = dict.fromkeys(calls, float("inf"))
    for _ in range(repeats):
        for name, call in calls.items():
            start = time.perf_counter()
            call()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def literal_path(rows: int, bare_number: str, aligned: Callable[[pl.DataFrame], pl.DataFrame]):
    import gradeframe as gf

    frame = aligned(literal_rows(rows))
    methods = frame.grade.equivalent("answer", "gold", fallback=None)["method"].value_counts()
    calls = {
        "bare `str.extract`": lambda: frame.select(pl.col("answer").str.extract(bare_number, 1)),
        "equivalent(fallback=None)": lambda: frame.grade.equivalent(
            "answer", "gold", fallback=None
        ),
        "equivalent(fallback=None, percent='number')": lambda: frame.grade.equivalent(
            "answer", "gold", fallback=None, percent="number"
        ),
        "equivalent(fallback=None, rel_tol=1e-6)": lambda: frame.grade.equivalent(
            "answer", "gold", fallback=None, rel_tol=1e-6
        ),
    }
    del gf
    return (
        _best(calls, 3),
        dict(methods.iter_rows()),
        frame.select(pl.struct("answer", "gold").n_unique()).item(),
    )


def fallback_path(rows: int, distinct: int) -> dict[str, Any]:
    from math_verify import LatexExtractionConfig, parse, verify

    import gradeframe as gf  # noqa: F401
    from gradeframe.matchers import _symbolic

    pairs = symbolic_pairs(distinct)
    rng = random.Random(26)
    chosen = [pairs[rng.randrange(distinct)] for _ in range(rows - distinct)] + pairs
    rng.shuffle(chosen)
    frame = pl.DataFrame({"answer": [a for a, _ in chosen], "gold": [b for _, b in chosen]})
    _symbolic.decide([("1", "1")], timeout=60)  # start the workers (timed apart)
    before = _symbolic.CALLS
    start = time.perf_counter()
    out = frame.grade.equivalent("answer", "gold")
    took = time.perf_counter() - start
    calls = _symbolic.CALLS - before
    config = [LatexExtractionConfig()]
    start = time.perf_counter()
    for a, b in pairs:  # one in-process Math-Verify call per distinct pair, for comparison
        verify(
            parse(f"${b}$", extraction_config=config, parsing_timeout=None),
            parse(f"${a}$", extraction_config=config, parsing_timeout=None),
            timeout_seconds=None,
        )
    one_each = time.perf_counter() - start
    return {
        "rows": rows,
        "distinct": distinct,
        "calls": calls,
        "seconds": took,
        "in_process": one_each,
        "methods": dict(out["method"].value_counts().iter_rows()),
        "correct": int(out["correct"].sum()),
    }


def _hendrycks() -> Any:
    """Return lm-eval's hendrycks MATH module (``is_equiv``), or None when lm-eval is missing."""
    try:
        from lm_eval.tasks.hendrycks_math import utils
    except ImportError:
        return None
    return utils


def _unboxed(hendrycks: Any, answer: str) -> str:
    """The answer as lm-eval hands it to ``is_equiv``: the last ``\\boxed{...}``'s content."""
    if "\\boxed" not in answer and "\\fbox" not in answer:
        return answer
    boxed = hendrycks.last_boxed_only_string(answer)
    return answer if boxed is None else hendrycks.remove_boxed(boxed)


def side_by_side(literal: pl.DataFrame, rows: int) -> dict[str, Any]:
    from math_verify import parse, verify

    from tests import reference_equivalent as reference

    keys = HERE.parent / "tests" / "fixtures" / "answer_keys" / "math500_answers.jsonl"
    golds = [json.loads(line)["answer"] for line in keys.read_text().splitlines()]
    rng = random.Random(27)
    respelled = [rng.choice([f"\\boxed{{{g}}}", f"${g}$", g + ".", f"\\( {g} \\)"]) for g in golds]
    frame = pl.concat(
        [literal.head(rows - len(golds)), pl.DataFrame({"answer": respelled, "gold": golds})]
    )
    answers, gold = frame["answer"].to_list(), frame["gold"].to_list()
    start = time.perf_counter()
    ours = frame.grade.equivalent("answer", "gold")
    t_ours = time.perf_counter() - start
    start = time.perf_counter()
    mv = []
    for a, b in zip(answers, gold, strict=True):
        try:
            mv.append(bool(verify(parse(f"${b}$"), parse(f"${a}$"))))
        except Exception:
            mv.append(False)
    t_mv = time.perf_counter() - start
    hendrycks = _hendrycks()
    start = time.perf_counter()
    hd = [
        bool(hendrycks.is_equiv(_unboxed(hendrycks, a), b)) if hendrycks else None
        for a, b in zip(answers, gold, strict=True)
    ]
    t_hd = time.perf_counter() - start if hendrycks else None
    verdicts = ours.with_columns(
        math_verify=pl.Series(mv), hendrycks=pl.Series(hd, dtype=pl.Boolean)
    )
    literal_rows_ = verdicts.filter(pl.col("method") == "literal")
    right = [
        reference.equivalent(a, b) for a, b in literal_rows_.select("answer", "gold").iter_rows()
    ]
    literal_rows_ = literal_rows_.with_columns(section_9=pl.Series(right))
    differences = (
        literal_rows_.filter(
            (pl.col("correct") != pl.col("math_verify"))
            | (pl.col("correct") != pl.col("hendrycks")).fill_null(value=False)
            | (pl.col("correct") != pl.col("section_9"))
        )
        # one line per kind of difference: the pairs' shapes, digits written N
        .with_columns(
            shape_a=pl.col("answer").str.replace_all("[0-9]+", "N"),
            shape_b=pl.col("gold").str.replace_all("[0-9]+", "N"),
        )
        .group_by("shape_a", "shape_b", "correct", "math_verify", "hendrycks", "section_9")
        .agg(pl.len(), pl.col("answer").first(), pl.col("gold").first())
        .sort("len", "shape_a", descending=[True, False])
        .select("answer", "gold", "correct", "math_verify", "hendrycks", "section_9", "len")
    )
    n = literal_rows_.height
    return {
        "rows": frame.height,
        "times": {"gradeframe": t_ours, "Math-Verify per row": t_mv, "hendrycks is_equiv": t_hd},
        "literal": n,
        "agree": {
            "Math-Verify": int((literal_rows_["correct"] == literal_rows_["math_verify"]).sum()),
            "hendrycks": int((literal_rows_["correct"] == literal_rows_["hendrycks"]).sum()),
            "§9 reference": int((literal_rows_["correct"] == literal_rows_["section_9"]).sum()),
        },
        "differences": differences,
        "methods": dict(ours["method"].value_counts().iter_rows()),
        "golds_correct": int(ours.tail(len(golds))["correct"].sum()),
    }


def section(rows: int, bare_number: str, aligned: Callable[[pl.DataFrame], pl.DataFrame]) -> str:
    from gradeframe.matchers import _symbolic

    load = os.getloadavg()
    times, methods, distinct = literal_path(rows, bare_number, aligned)
    bare = times["bare `str.extract`"]
    fb = fallback_path(200_000 if rows >= 1_000_000 else rows // 5, 2_000)
    side = side_by_side(literal_rows(3_000), 3_000)
    v = _symbolic.versions()
    lines = [
        f"## equivalent: {rows:,} literal rows, best of 3, interleaved (machine load "
        f"{load[0]:.2f} at the start, {os.getloadavg()[0]:.2f} at the end)",
        "",
        f"{distinct:,} distinct (answer, gold) pairs; methods: {methods}.",
        "",
        f"| call | time | × bare `str.extract({bare_number!r})` on the answer column |",
        "|---|---:|---:|",
    ]
    lines += [f"| {name} | {t:.3f} s | {t / bare:.1f}× |" for name, t in times.items()]
    lines += [
        "",
        f"**Fallback once per distinct pair**: {fb['rows']:,} rows holding {fb['distinct']:,} "
        f"distinct non-literal pairs: {fb['calls']:,} pairs sent to Math-Verify, "
        f"{fb['seconds']:.1f} s (workers already started); {fb['distinct']:,} Math-Verify calls "
        f"in this process take {fb['in_process']:.1f} s, so one per row would take about "
        f"{fb['in_process'] / fb['distinct'] * fb['rows']:.0f} s. Methods: {fb['methods']}, "
        f"{fb['correct']:,} rows correct.",
        "",
        f"**Side by side** on the same {side['rows']:,} rows ({side['rows'] - 500:,} of the "
        f"literal rows above and MATH-500's 500 golds against themselves, respelled as "
        f"`\\boxed{{...}}`, `$...$`, a final '.' or `\\( ... \\)`); methods {side['methods']}; "
        f"gradeframe finds {side['golds_correct']} of the 500 golds equivalent to themselves.",
        "",
        "| grader | time | agrees with gradeframe on the literal rows |",
        "|---|---:|---:|",
        f"| gradeframe `equivalent` | {side['times']['gradeframe']:.2f} s | - |",
        f"| Math-Verify `verify(parse(...))` per row | {side['times']['Math-Verify per row']:.2f} s"
        f" | {side['agree']['Math-Verify']:,} of {side['literal']:,} |",
        (
            f"| lm-eval hendrycks `is_equiv` | {side['times']['hendrycks is_equiv']:.3f} s | "
            f"{side['agree']['hendrycks']:,} of {side['literal']:,} |"
            if side["times"]["hendrycks is_equiv"] is not None
            else "| lm-eval hendrycks `is_equiv` | skipped: lm-eval is not installed "
            "(`pip install lm-eval` to compare) | - |"
        ),
        f"| §9 reference (`fractions.Fraction`, the tests' oracle) | - | "
        f"{side['agree']['§9 reference']:,} of {side['literal']:,} |",
        "",
        "Every kind of disagreement on the literal rows (rows whose answer and gold have the "
        "same shape, digits aside, and the same verdicts; one example each; `right by §9` is "
        "the Fraction reference; hendrycks gets the answer as lm-eval hands it over, the last "
        "`\\boxed{}`'s content):",
        "",
        "| example answer | example gold | gradeframe | Math-Verify | hendrycks | right by §9 "
        "| rows |",
        "|---|---|---|---|---|---|---:|",
    ]
    for a, b, ours, mv, hd, ref, n in side["differences"].iter_rows():
        lines.append(f"| `{a}` | `{b}` | {ours} | {mv} | {hd} | {ref} | {n} |")
    lines += [
        "",
        f"(`python benchmarks/bench.py --equivalent`; Math-Verify {v['math-verify']}, SymPy "
        f"{v['sympy']}, ANTLR runtime {v['antlr4-python3-runtime']}, latex2sympy2_extended "
        f"{v['latex2sympy2_extended']}, Polars {pl.__version__}.)",
    ]
    return "\n".join(lines)
