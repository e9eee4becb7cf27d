from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import gradeframe as gf
from gradeframe import cli

MODELS = ["atlas-large", "atlas-small", "beacon-7b", "cedar-mini"]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gradeframe.cli", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=cwd,
        timeout=120,
        check=False,
    )


def report_rows(stdout: str) -> dict[str, list[str]]:
    """Read the printed Markdown table back as {first cell: [cells]}."""
    lines = [line for line in stdout.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = {}
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = dict(zip(header, cells, strict=True))
    return rows


def flat_example() -> pl.DataFrame:
    """The example with its output record spread over flat columns (for CSV)."""
    return gf.example().select(
        "question_id",
        "model",
        "refs",
        pl.col("answer").struct.field("answer").alias("response"),
        pl.col("answer").struct.field("status"),
        pl.col("answer").struct.field("partial"),
        pl.col("answer").struct.field("notes").list.join(";").alias("notes"),
        pl.col("answer").struct.field("failure_kind").alias("own_kind"),
    )


# --------------------------------------------------------------------------------------------
# End to end, as a subprocess
# --------------------------------------------------------------------------------------------


def test_score_example() -> None:
    result = run("score", "--example")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("120 answers from the bundled example: 91 right (75.8%)")
    rows = report_rows(result.stdout)
    assert list(rows) == MODELS
    assert rows["atlas-large"]["n_correct"] == "27"
    assert rows["cedar-mini"]["wrong"] == "5"
    assert rows["cedar-mini"]["timeout"] == "1"
    assert rows["atlas-large"]["ci_low"] == "0.744"
    assert result.stderr == ""  # quick: no progress lines


def test_installed_script() -> None:
    script = shutil.which("gradeframe", path=str(Path(sys.executable).parent))
    assert script is not None
    result = subprocess.run(
        [script, "score", "--example", "--by", "model,question_id"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    table = [line for line in result.stdout.splitlines() if line.startswith("| atlas-")]
    assert len(table) == 60


@pytest.mark.parametrize("suffix", [".parquet", ".jsonl", ".ndjson", ".json"])
def test_score_nested_formats(tmp_path: Path, suffix: str) -> None:
    frame = gf.example()
    path = tmp_path / f"answers{suffix}"
    if suffix == ".parquet":
        frame.write_parquet(path)
    elif suffix == ".json":
        frame.write_json(path)
    else:
        frame.write_ndjson(path)
    out = tmp_path / "graded.parquet"
    result = run("score", str(path), "--by", "model", "-o", str(out))
    assert result.returncode == 0, result.stderr
    rows = report_rows(result.stdout)
    assert [rows[m]["n_correct"] for m in MODELS] == ["27", "24", "22", "18"]
    graded = pl.read_parquet(out)
    expected = frame.grade.answer_contains()
    assert graded.equals(expected)


def test_score_csv_with_flat_columns_and_json_list_refs(tmp_path: Path) -> None:
    flat = flat_example()
    csv = tmp_path / "answers.csv"
    # Most refs cells are JSON lists; single answers are written as plain text.
    flat.with_columns(
        pl.when(pl.col("refs").list.len() == 1)
        .then(pl.col("refs").list.first())
        .otherwise(pl.col("refs").map_elements(lambda r: json.dumps(list(r)), pl.String))
    ).write_csv(csv)
    assert "45.2" in csv.read_text(encoding="utf-8")
    out = tmp_path / "graded.csv"
    result = run(
        "score",
        str(csv),
        "--answer",
        "response",
        "--status",
        "status",
        "--partial",
        "partial",
        "--notes",
        "notes",
        "--failure-kind",
        "own_kind",
        "--by",
        "model",
        "--prefix",
        "g_",
        "-o",
        str(out),
    )
    assert result.returncode == 0, result.stderr
    rows = report_rows(result.stdout)
    # The flat columns hold everything but the trace and the text field: the content-filter
    # row (beacon-7b) is now wrong instead of a refusal, the text-field row a parse failure.
    assert [rows[m]["n_correct"] for m in MODELS] == ["27", "24", "21", "18"]
    assert rows["beacon-7b"]["refusal"] == "1"
    graded = pl.read_csv(out)
    assert graded.height == 120
    assert graded.columns[-3:] == ["g_correct", "g_failure_kind", "g_outcome"]


def test_output_csv_writes_nested_columns_as_json(tmp_path: Path) -> None:
    out = tmp_path / "graded.csv"
    result = run("score", "--example", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "wrote 120 graded rows" in result.stderr
    graded = pl.read_csv(out)
    assert json.loads(graded["refs"][0]) == ["1987"]
    assert json.loads(graded["answer"][0])["answer"] == "It was founded in 1987."


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["score", "missing.parquet"], "input 'missing.parquet': no such file"),
        (["score", "answers.txt"], "unknown extension '.txt'"),
        (["score", "broken.parquet"], "cannot be read as parquet"),
        (["score", "broken.jsonl"], "cannot be read as ndjson"),
        (["score", "answers.csv", "--answer", "respons"], "Did you mean 'response'"),
        (["score", "answers.csv", "--answer", "response", "--by", "modle"], "`--by='modle'`"),
        (["score", "--example", "-o", "out.xlsx"], "unknown extension '.xlsx'"),
        (["score", "--example", "--chunk-rows", "0"], "--chunk-rows must be at least 1"),
    ],
)
def test_errors_are_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "broken.parquet").write_bytes(b"not parquet at all")
    (tmp_path / "broken.jsonl").write_text('{"answer": "x", "refs": \n', encoding="utf-8")
    (tmp_path / "answers.txt").write_text("x", encoding="utf-8")
    flat_example().drop("refs").with_columns(refs=pl.lit("1")).write_csv(tmp_path / "answers.csv")
    result = run(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("gradeframe: error: ")
    assert message in lines[0]
    assert not (tmp_path / "out.xlsx").exists()


def test_usage_error_exits_2() -> None:
    result = run("score")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


# --------------------------------------------------------------------------------------------
# In process
# --------------------------------------------------------------------------------------------


def test_main_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["score", "--example", "--by", "model", "--by", "question_id", "-q"]) == 0
    out = capsys.readouterr().out
    assert "by model, question_id" in out


def test_csv_refs_reads_json_lists_and_plain_cells() -> None:
    frame = pl.DataFrame({"refs": ['["12400", 12400]', "45.2", None, ' ["a"]']})
    assert cli.csv_refs(frame, "refs")["refs"].to_list() == [
        ["12400", "12400"],
        ["45.2"],
        [None],
        ["a"],
    ]
    with pytest.raises(cli.CliError, match="is not a JSON list"):
        cli.csv_refs(pl.DataFrame({"refs": ["[not json"]}), "refs")


def test_score_in_chunks_reports_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(cli, "PROGRESS_EVERY", 0.0)
    frame = gf.example()
    err = io.StringIO()
    kwargs: dict[str, Any] = {"answer": "answer", "refs": "refs"}
    graded = cli.score(frame, chunk_rows=50, progress=err, **kwargs)
    assert graded.equals(frame.grade.answer_contains())
    lines = err.getvalue().splitlines()
    assert lines[0].startswith("gradeframe: scored 50 of 120 rows (42%)")
    assert lines[-1].startswith("gradeframe: scored 120 rows in")
    assert len(lines) == 4


def test_score_checks_columns_before_scoring() -> None:
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="`refs='ref'`"):
        cli.score(gf.example(), chunk_rows=50, answer="answer", refs="ref")


def test_score_messy_json_lines(tmp_path: Path) -> None:
    # refs that mix lists and strings are read by Polars as JSON text; they still grade as lists
    rows = [
        {"model": "a", "output": {"answer": "It was 12,400.", "partial": False}, "refs": ["12400"]},
        {"model": "b", "output": {"text": "  "}, "refs": []},
        {"model": "b", "output": None, "refs": "12"},
        {
            "model": "b",
            "output": {"answer": "no", "trace": [{"finish_reason": "refusal"}]},
            "refs": ["12"],
        },
    ]
    path = tmp_path / "messy.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    result = run("score", str(path), "--answer", "output", "--by", "model")
    assert result.returncode == 0, result.stderr
    table = report_rows(result.stdout)
    assert [table["a"]["n_correct"], table["b"]["n_correct"]] == ["1", "0"]
    assert [table["b"]["no_reference"], table["b"]["parse_failure"], table["b"]["refusal"]] == [
        "1",
        "1",
        "1",
    ]
