"""Issue 38's faults that take seconds or much memory: huge targets (G6) and large JSON Lines
logs (G11).

Skipped by the README's quick command (``slow_fault``); ``.ci/run`` runs them with
``GRADEFRAME_FAULTS=1``, and the scorer test again once inspect_ai is installed. The large logs
repeat the lines of real fixtures (written by the tools themselves), never hand-made lines.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import gradeframe as gf
from tests.utils import slow_fault, to_data

FIXTURES = Path(__file__).parent / "fixtures" / "logs"
LM_EVAL = FIXTURES / "lm_eval" / "demo-org__scripted-a"
LM_EVAL_SAMPLES = LM_EVAL / "samples_gf_gen_2026-11-30T20-34-46.889095.jsonl"
OPENAI_EVALS = FIXTURES / "openai_evals" / "gf-match.jsonl"

#: About 0.5 MB: as a literal needle Polars compiles it into a regex over its size limit.
LONG = "a long reference text " * 24_000

pytestmark = [
    slow_fault,
    # inspect_ai's own event loop and dependencies warn (as in tests/test_inspect.py)
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]


# ---- G6: a needle of any length ------------------------------------------------------------


@pytest.mark.parametrize("layout", ["literal", "string", "list"])
def test_includes_fold_half_megabyte_needle_is_matched_not_a_regex_error(
    constructor, layout
) -> None:
    answers = [f"Quoted: {LONG.upper()} (end)", LONG[:-3]]
    if layout == "literal":
        result = constructor({"actual": answers}).grade.includes("actual", [LONG], fold=True)
    else:
        needles = [LONG, LONG] if layout == "string" else [[LONG], ["long reference", LONG]]
        frame = constructor({"actual": answers, "needles": needles})
        result = frame.grade.includes("actual", "needles", fold=True)
    data = to_data(result)
    assert data["correct"] == [True, False]
    assert data["missing"] == [[], [LONG]]


def test_includes_scorer_matches_a_half_megabyte_target(tmp_path: Path) -> None:
    if os.environ.get("GRADEFRAME_REQUIRE_INSPECT") != "1":
        pytest.importorskip("inspect_ai", reason="inspect_ai is not installed")
    from inspect_ai.dataset import Sample

    import gradeframe.inspect as gi
    from tests.test_inspect import LONG_TARGET, _run, _scores

    samples = [
        Sample(id="long", input="[long] Quote it.", target=LONG_TARGET),
        Sample(id="longer", input="[long] Quote it.", target=LONG_TARGET + "!"),
        Sample(id="units", input="[units] How many units?", target="12,400"),
    ]
    got = _scores(_run(gi.includes(), tmp_path, samples), "includes")
    scores = {sample_id: score for (sample_id, _), score in got.items()}
    assert {k: s.value for k, s in scores.items()} == {"long": "C", "longer": "I", "units": "C"}
    assert scores["longer"].metadata["missing"] == [LONG_TARGET + "!"]
    assert len(scores["longer"].explanation) < 2 * gf.MAX_METADATA_LENGTH


# ---- G11: a large JSON Lines log is read in batches ----------------------------------------

#: The size of the generated logs (the fault: 500 MB peaked at 4.0 GB).
LOG_BYTES = 40 * 2**20

#: Peak memory of the read over the process's memory before it, per byte of log: the readers
#: held every line as Python objects (lm-eval 9.3×, OpenAI evals 7.5× on 100 MB) and now hold a
#: batch (1.3× and 4.3×, the frame returned included).
PEAK_PER_BYTE = {"lm_eval": 3.0, "openai_evals": 6.0}

_MEASURE = """
import resource, sys
import gradeframe as gf
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
frame = gf.read_log(sys.argv[1])
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(frame.height, (after - before) * 1024)
"""


def _lm_eval_log(folder: Path) -> Path:
    """The real lm-eval samples file, its lines repeated to LOG_BYTES."""
    lines = LM_EVAL_SAMPLES.read_bytes()
    out = folder / LM_EVAL_SAMPLES.name
    with out.open("wb") as handle:
        while handle.tell() < LOG_BYTES:
            handle.write(lines)
    return out


def _openai_evals_log(folder: Path) -> Path:
    """The real OpenAI evals record file, its events repeated with sample ids made distinct."""
    records = [json.loads(line) for line in OPENAI_EVALS.read_text().splitlines() if line]
    events = [r for r in records if "spec" not in r and "final_report" not in r]
    out = folder / OPENAI_EVALS.name
    with out.open("w") as handle:
        handle.write(json.dumps(next(r for r in records if "spec" in r)) + "\n")
        copy = 0
        while handle.tell() < LOG_BYTES:
            for event in events:
                if "sample_id" in event:
                    event = {**event, "sample_id": f"{event['sample_id']}.copy{copy}"}
                handle.write(json.dumps(event) + "\n")
            copy += 1
    return out


@pytest.mark.parametrize("tool", ["lm_eval", "openai_evals"])
def test_large_json_lines_log_peak_memory_is_bounded(tmp_path: Path, tool: str) -> None:
    path = _lm_eval_log(tmp_path) if tool == "lm_eval" else _openai_evals_log(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(path)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "POLARS_MAX_THREADS": "2"},
    )
    rows, grown = (int(value) for value in done.stdout.split())
    size = path.stat().st_size
    assert rows > 10_000
    assert grown < PEAK_PER_BYTE[tool] * size, f"{grown / size:.1f}× the log's size"


def test_lm_eval_batches_keep_the_rows_and_their_order(tmp_path: Path) -> None:
    """Rows built in batches are the rows built at once: same values, same order."""
    one = gf.read_log(LM_EVAL_SAMPLES)
    lines = LM_EVAL_SAMPLES.read_bytes()
    copies = 5_000 // one.height + 2  # more rows than one batch
    big = tmp_path / LM_EVAL_SAMPLES.name
    big.write_bytes(lines * copies)
    for results in LM_EVAL.glob("results_*.json"):  # where the model's name is read
        (tmp_path / results.name).write_bytes(results.read_bytes())
    frame = gf.read_log(big)
    assert frame.height == one.height * copies
    expected = pl.concat([one] * copies).drop("log")
    assert frame.drop("log").equals(expected)
    for name in ("raw", "number"):
        chosen = gf.read_log(big, filter=name)
        assert chosen.height == one.filter(pl.col("lm_eval_filter") == name).height * copies
