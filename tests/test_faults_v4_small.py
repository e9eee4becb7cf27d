"""Issue 38's small faults whose tests take seconds (run by .ci/run with GRADEFRAME_FAULTS=1).

The quick tests of the same faults are in test_cli.py, test_bad_input.py and test_samples.py.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import polars as pl

from tests.utils import slow_fault


def _leftovers(folder: Path) -> list[str]:
    """Hidden temporary entries of a write (the old name and the new end in .tmp)."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def _score(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "gradeframe.cli", "score", *args, "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _killed_during_the_write(source: Path, target: Path) -> list[str]:
    """SIGKILL a run as soon as its temporary folder appears; return what it left behind."""
    for _ in range(3):  # the kill may land just as the write ends: then try again
        process = _score(str(source), "-o", str(target))
        deadline = time.monotonic() + 240
        while not _leftovers(target.parent) and process.poll() is None:
            assert time.monotonic() < deadline, "the temporary folder never appeared"
            time.sleep(0.001)
        process.kill()
        process.communicate(timeout=60)
        left = _leftovers(target.parent)
        if left:
            return left
    raise AssertionError("the run was never killed during its write")


@slow_fault
def test_a_run_killed_during_the_write_leaves_what_the_next_run_removes(tmp_path: Path) -> None:
    # G22: a SIGKILL (the OOM killer, a closed laptop's session) while -o was written left a
    # hidden folder of the size of the output, which no later run removed.
    rows = 60_000
    filler = " and so on" * 40
    source = tmp_path / "answers.csv"
    pl.DataFrame(
        {"answer": [f"It was {i:,} units{filler}." for i in range(rows)], "refs": ["1"] * rows}
    ).write_csv(source)
    target = tmp_path / "out" / "graded.csv"
    target.parent.mkdir()
    target.write_text("answer,refs\nthe old file,1\n")
    before = target.read_bytes()
    assert _killed_during_the_write(source, target)
    assert target.read_bytes() == before  # atomic: the old file as it was

    small = tmp_path / "small.csv"
    small.write_text("answer,refs\nIt was 12.,12\n")
    later = _score(str(small), "-o", str(target.parent / "other.csv"))
    _, err = later.communicate(timeout=120)
    assert later.returncode == 0, err
    assert _leftovers(target.parent) == []
    assert sorted(p.name for p in target.parent.iterdir()) == ["graded.csv", "other.csv"]
