"""Faults a user meets in a service, a notebook or a shared drive (issue 23): each reproduced.

Item 4 (several threads grading at once) is in ``test_threads.py``.
"""

from __future__ import annotations

import errno
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import gradeframe  # noqa: F401  (registers .grade)
from gradeframe import cli, matchers
from tests.utils import run_cli

# --------------------------------------------------------------------------------------------
# Item 2: -o is atomic, and never the input
# --------------------------------------------------------------------------------------------


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``gradeframe ARGS`` run in this process (tests.utils.run_cli)."""
    return run_cli(*args, cwd=cwd)


def _answers_csv(path: Path, rows: int, width: int = 0) -> Path:
    filler = " and so on" * (width // 10)
    pl.DataFrame(
        {
            "answer": [f"It was {i:,} units{filler}." for i in range(rows)],
            "refs": [str(i) for i in range(rows)],
        }
    ).write_csv(path)
    return path


@pytest.mark.parametrize("how", ["same path", "relative path", "symlink"])
def test_output_naming_the_input_file_is_refused_and_the_input_kept(
    tmp_path: Path, how: str
) -> None:
    source = _answers_csv(tmp_path / "answers.csv", 5)
    before = source.read_bytes()
    output = {
        "same path": str(source),
        "relative path": "./sub/../answers.csv",
        "symlink": "link.csv",
    }[how]
    (tmp_path / "sub").mkdir()
    if how == "symlink":
        (tmp_path / "link.csv").symlink_to(source)
    result = _cli("score", str(source), "-o", output, cwd=tmp_path)
    assert result.returncode == 2
    assert "is the input file" in result.stderr
    assert "Traceback" not in result.stderr
    assert source.read_bytes() == before


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize(
    ("signum", "code", "said"),
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")],
)
def test_a_signal_during_the_write_leaves_the_old_output_intact(
    tmp_path: Path, signum: int, code: int, said: str
) -> None:
    # The trap: SIGTERM while -o was written left a header-only CSV, which scored as "0 answers,
    # 0 right" with exit 0. The rows are many and long, so that writing them takes a while; the
    # signal is sent as soon as the temporary file appears beside the target.
    source = _answers_csv(tmp_path / "answers.csv", 40_000, width=400)
    target = tmp_path / "out" / "graded.csv"
    target.parent.mkdir()
    target.write_text("answer,refs\nthe old file,1\n")
    before = target.read_bytes()
    process = subprocess.Popen(
        [sys.executable, "-m", "gradeframe.cli", "score", str(source), "-o", str(target), "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 240
    while not _leftovers(target.parent) and process.poll() is None:
        assert time.monotonic() < deadline, "the temporary file never appeared"
        time.sleep(0.001)
    process.send_signal(signum)
    _, err = process.communicate(timeout=120)
    assert "Traceback" not in err
    assert _leftovers(target.parent) == []
    if process.returncode == 0:  # the signal came as the write ended (Polars took it): done
        assert pl.read_csv(target).height == 40_000
    else:
        assert process.returncode == code, err
        assert f"gradeframe: {said}" in err
        assert target.read_bytes() == before


def test_a_full_disk_during_the_write_leaves_the_old_output_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The disk fills up half way: the write raises ENOSPC after writing part of the rows.
    source = _answers_csv(tmp_path / "answers.csv", 50)
    target = tmp_path / "graded.csv"
    target.write_text("answer,refs\nthe old file,1\n")
    before = target.read_bytes()
    written: list[str] = []

    def full_disk(self: pl.DataFrame, file: Any, *args: Any, **kwargs: Any) -> None:
        Path(file).write_text("answer,refs,correct\nIt was 0 units.,0,tr")
        written.append(str(file))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pl.DataFrame, "write_csv", full_disk)
    assert cli.main(["score", str(source), "-o", str(target), "-q"]) == 2
    err = capsys.readouterr().err
    assert "No space left on device" in err
    assert "the file is as it was" in err
    assert target.read_bytes() == before
    assert written  # the write began ...
    assert written[0] != str(target)  # ... beside the target, not on it
    assert _leftovers(tmp_path) == []


def test_output_written_in_place_keeps_the_old_files_mode(tmp_path: Path) -> None:
    source = _answers_csv(tmp_path / "answers.csv", 5)
    target = tmp_path / "graded.csv"
    target.write_text("old\n")
    target.chmod(0o640)
    assert cli.main(["score", str(source), "-o", str(target), "-q"]) == 0
    assert target.stat().st_mode & 0o777 == 0o640
    assert pl.read_csv(target).height == 5


# --------------------------------------------------------------------------------------------
# Item 6: formulas in CSV output
# --------------------------------------------------------------------------------------------

FORMULAS = ["=1+1", "+3", "-12", "@SUM(A1)", "\tx", "'quoted", "plain 12"]


def _formula_csv(path: Path) -> Path:
    frame = pl.DataFrame({"answer": FORMULAS, "refs": ["2", "3", "-12", "1", "x", "q", "12"]})
    if path.suffix == ".csv":
        frame.write_csv(path)
    else:
        frame.write_ndjson(path)
    return path


def test_formulas_are_written_unchanged_with_a_warning_and_rescore_alike(tmp_path: Path) -> None:
    source = _formula_csv(tmp_path / "answers.csv")
    out = tmp_path / "graded.csv"
    first = _cli("score", str(source), "-o", str(out))
    assert first.returncode == 0, first.stderr
    assert "warning: 10 cells" in first.stderr  # 5 answers, and again in outcome
    assert "--escape-formulas" in first.stderr
    written = pl.read_csv(out, infer_schema=False)
    assert written.get_column("answer").to_list() == FORMULAS
    again = _cli("score", str(out))
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[1:] == first.stdout.splitlines()[1:]


def test_escape_formulas_prefixes_a_quote_and_reading_back_removes_it(tmp_path: Path) -> None:
    # JSON Lines in: the flag removes a leading ' from a CSV input only (one it wrote).
    source = _formula_csv(tmp_path / "answers.jsonl")
    out = tmp_path / "graded.csv"
    first = _cli("score", str(source), "-o", str(out), "--escape-formulas")
    assert first.returncode == 0, first.stderr
    assert "warning" not in first.stderr
    cells = pl.read_csv(out, infer_schema=False).get_column("answer").to_list()
    assert cells == ["'=1+1", "'+3", "'-12", "'@SUM(A1)", "'\tx", "''quoted", "plain 12"]
    again = _cli("score", str(out), "--escape-formulas")
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[1:] == first.stdout.splitlines()[1:]
    unescaped = tmp_path / "again.csv"
    assert cli.main(["score", str(out), "--escape-formulas", "-q", "-o", str(unescaped)]) == 0
    assert pl.read_csv(unescaped, infer_schema=False).get_column("answer").to_list() == [
        "'=1+1",
        "'+3",
        "'-12",
        "'@SUM(A1)",
        "'\tx",
        "''quoted",
        "plain 12",
    ]


# --------------------------------------------------------------------------------------------
# Item 10b: the regex fallback has a budget per call, not only per answer
# --------------------------------------------------------------------------------------------


def test_many_slow_answers_use_up_the_regex_budget_of_one_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The trap: each answer stayed under REGEX_TIMEOUT, so 30 slow answers took 21 s and no
    # error. Each answer here backtracks for a while; the call's budget stops it early.
    monkeypatch.setattr(matchers, "REGEX_TIMEOUT", 30.0)
    monkeypatch.setattr(matchers, "REGEX_BUDGET", 0.05)
    answers = ["a" * 18 + "b" + "c" * i for i in range(30)]
    frame = pl.DataFrame({"answer": answers})
    start = time.monotonic()
    with pytest.raises(ValueError, match=r"used up the regex time budget") as caught:
        frame.grade.matches("answer", r"(?=a)(a|aa)+$")
    assert time.monotonic() - start < 5
    message = str(caught.value)
    assert "'(?=a)(a|aa)+$'" in message
    assert "REGEX_BUDGET = 0.05 s" in message
    assert re.search(r"after \d+ of 30 rows", message)


def test_the_regex_budget_is_shared_by_the_patterns_of_a_pattern_column(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(matchers, "REGEX_TIMEOUT", 30.0)
    monkeypatch.setattr(matchers, "REGEX_BUDGET", 0.05)
    slow = ["(?=a)(a|aa)+$", "(?=a)(aa|a)+$", "(?=a)(a|a{2})+$"]  # each with lookahead: regex
    frame = pl.DataFrame({"answer": ["a" * 18 + "b" + "c" * i for i in range(30)], "p": slow * 10})
    with pytest.raises(ValueError, match=r"used up the regex time budget"):
        frame.grade.matches("answer", pattern_column="p")


def test_the_regex_budget_has_a_documented_default() -> None:
    assert matchers.REGEX_BUDGET == 10.0
    assert matchers.REGEX_TIMEOUT == 1.0
