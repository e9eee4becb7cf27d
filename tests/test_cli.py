from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gradeframe as gf
from gradeframe import cli
from gradeframe.cli import printing, reading, scoring
from tests.utils import run_cli

MODELS = ["atlas-large", "atlas-small", "beacon-7b", "cedar-mini"]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``gradeframe ARGS`` run in this process (tests.utils.run_cli)."""
    return run_cli(*args, cwd=cwd)


def run_process(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m gradeframe.cli ARGS`` as a real process."""
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
# End to end, as a subprocess (the tests below run the command in this process: run_cli)
# --------------------------------------------------------------------------------------------


def test_score_example() -> None:
    result = run_process("score", "--example")
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


def test_output_csv_writes_struct_fields_as_columns_and_lists_as_json(tmp_path: Path) -> None:
    out = tmp_path / "graded.csv"
    result = run("score", "--example", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "wrote 120 graded rows" in result.stderr
    graded = pl.read_csv(out, infer_schema=False)
    assert json.loads(graded["refs"][0]) == ["1987"]
    assert graded["answer.answer"][0] == "It was founded in 1987."
    assert json.loads(graded["answer.notes"][0]) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["score", "missing.parquet"], "input 'missing.parquet': no such file"),
        (["score", "answers.txt"], "unknown extension '.txt'"),
        (["score", "broken.parquet"], "cannot be read as parquet"),
        (["score", "broken.jsonl"], "cannot be read as ndjson"),
        (["score", "answers.csv", "--answer", "respons"], "Did you mean 'response'"),
        (["score", "answers.csv", "--answer", "response", "--by", "modle"], "--by modle: "),
        (["score", "--example", "-o", "out.xlsx"], "-o 'out.xlsx': unknown extension '.xlsx'"),
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


def test_json_lists_reads_json_lists_and_plain_cells() -> None:
    frame = pl.DataFrame({"refs": ['["12400", 12400.0]', "45.2", None, ' ["a"]', "[not json"]})
    assert reading.json_lists(frame, "refs")["refs"].to_list() == [
        ["12400", "12400"],
        ["45.2"],
        [None],
        ["a"],
        ["[not json"],  # not a JSON list: one acceptable answer, as written (no error)
    ]
    plain = pl.DataFrame({"refs": ["1", "[citation needed]"]})
    assert reading.json_lists(plain, "refs").equals(plain)  # no list at all: left as text


def test_score_in_chunks_shows_a_rich_progress_bar() -> None:
    frame = gf.example()
    err = io.StringIO()
    kwargs: dict[str, Any] = {"answer": "answer", "refs": "refs"}
    graded = scoring.score(frame, chunk_rows=50, progress=err, **kwargs)
    assert graded.equals(frame.grade.answer_contains())
    assert "scoring" in err.getvalue()
    assert "120/120" in err.getvalue()


def test_without_rich_progress_and_report_are_plain_text(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("rich", "rich.console", "rich.progress", "rich.table", "rich.box"):
        monkeypatch.setitem(sys.modules, name, None)  # import rich now raises ImportError
    monkeypatch.setattr(scoring, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(scoring, "PROGRESS_EVERY", 0.0)
    frame = gf.example()
    err = io.StringIO()
    graded = scoring.score(frame, chunk_rows=50, progress=err, answer="answer", refs="refs")
    lines = err.getvalue().splitlines()
    assert lines[0].startswith("gradeframe: scored 50 of 120 rows (42%)")
    assert len(lines) == 3
    out = io.StringIO()
    table = graded.grade.report(by="model")
    printing.print_report(table, out)
    assert out.getvalue() == printing.format_report(table) + "\n"
    assert report_rows(out.getvalue())["atlas-large"]["n_correct"] == "27"


def test_score_checks_columns_before_scoring() -> None:
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="`refs='ref'`"):
        scoring.score(gf.example(), chunk_rows=50, answer="answer", refs="ref")


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


# --------------------------------------------------------------------------------------------
# Files a user would write (issue 15)
# --------------------------------------------------------------------------------------------

NUMBER_LIKE_CSV = """\
id,answer,refs
1,42,42
2,1204,"1,204"
3,The rate is 0.10.,0.10
4,Code 12,007
5,It costs 1.50,"[""1.50"", ""1.5""]"
6,Code 007,007
"""


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_csv_cells_are_text_so_number_like_answers_and_refs_stay_as_written(
    tmp_path: Path,
) -> None:
    csv = write(tmp_path / "answers.csv", NUMBER_LIKE_CSV)
    out = tmp_path / "graded.csv"
    result = run("score", str(csv), "-o", str(out))
    assert result.returncode == 0, result.stderr
    # "42" and "1204" are answer text (not parse failures); "0.10" and "007" are not 0.1 and 7.0,
    # so "Code 12" is not an answer to "007".
    assert result.stdout.startswith("6 answers from")
    assert report_rows(result.stdout)["6"]["n_correct"] == "5"
    graded = pl.read_csv(out, infer_schema=False)
    assert graded["correct"].to_list() == ["true", "true", "true", "false", "true", "true"]
    assert [json.loads(r) for r in graded["refs"]][2:4] == [["0.10"], ["007"]]
    assert graded["answer"].to_list()[:2] == ["42", "1204"]


def test_csv_refs_cell_that_is_not_a_json_list_is_one_answer_not_an_error(tmp_path: Path) -> None:
    csv = write(tmp_path / "answers.csv", 'answer,gold\nx,x\nsee [a],"[a]"\nz,"[""z""]"\n')
    result = run("score", str(csv), "--refs", "gold", "-q")
    assert result.returncode == 0, result.stderr
    assert report_rows(result.stdout)["3"]["n_correct"] == "3"


def test_answer_picks_a_struct_field_of_nested_json_lines(tmp_path: Path) -> None:
    rows = [
        {"id": 1, "output": {"content": "It was 1987.", "role": "assistant"}, "refs": ["1987"]},
        {"id": 2, "output": {"content": "About 12.", "role": "assistant"}, "refs": ["-12"]},
        {"id": 3, "output": {"content": "Minus 12: -12", "role": "assistant"}, "refs": ["-12"]},
    ]
    path = write(tmp_path / "runs.jsonl", "\n".join(json.dumps(r) for r in rows))
    result = run("score", str(path), "--answer", "output.content")
    assert result.returncode == 0, result.stderr
    assert report_rows(result.stdout)["3"]["n_correct"] == "2"


def test_a_column_named_exactly_col_dot_field_wins_over_the_struct_field(tmp_path: Path) -> None:
    rows = [{"output": {"content": "wrong"}, "output.content": "It was 1987.", "refs": "1987"}]
    path = write(tmp_path / "runs.json", json.dumps(rows))
    result = run("score", str(path), "--answer", "output.content")
    assert result.returncode == 0, result.stderr
    assert report_rows(result.stdout)["1"]["n_correct"] == "1"


def test_struct_answer_without_answer_or_text_field_names_the_flag(tmp_path: Path) -> None:
    rows = [{"output": {"content": "It was 1987.", "role": "assistant"}, "refs": ["1987"]}]
    path = write(tmp_path / "runs.jsonl", json.dumps(rows[0]))
    result = run("score", str(path), "--answer", "output")
    assert result.returncode == 2
    message = result.stderr.strip()
    assert message.startswith("gradeframe: error: --answer output: ")
    assert "content, role" in message
    assert "--answer output.content" in message
    deeper = write(tmp_path / "deeper.jsonl", json.dumps({"output": rows[0], "refs": "1987"}))
    nested = run("score", str(deeper), "--answer", "output.output")
    assert nested.returncode == 2
    assert "--answer output.output: the struct field" in nested.stderr
    assert "--answer output.output.content" in nested.stderr
    missing = run("score", str(path), "--answer", "output.text")
    assert "--answer output.text: column 'output' has no field 'text'" in missing.stderr


def test_written_csv_flattens_records_and_scores_the_same_when_read_back(tmp_path: Path) -> None:
    first = tmp_path / "graded.csv"
    result = run("score", "--example", "-q", "-o", str(first))
    assert result.returncode == 0, result.stderr
    header = first.read_text(encoding="utf-8").splitlines()[0].split(",")
    assert {"answer.answer", "answer.partial", "answer.notes", "answer.trace"} <= set(header)
    row = pl.read_csv(first, infer_schema=False).row(0, named=True)
    assert json.loads(row["answer.trace"]) == [{"finish_reason": "stop"}]
    # Scored again (the earlier output columns are replaced), the report is the same.
    again = run("score", str(first), "--by", "model", "-q", "-o", str(tmp_path / "again.csv"))
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[1:] == result.stdout.splitlines()[1:]
    assert (tmp_path / "again.csv").read_bytes() == first.read_bytes()
    # The rebuilt record holds the typed fields.
    rebuilt = reading.read_frame(first)
    fields = dict(rebuilt.schema["answer"].to_schema())  # type: ignore[attr-defined]
    assert fields["partial"] == pl.Boolean
    assert fields["notes"] == pl.List(pl.String)
    assert fields["trace"] == pl.List(pl.Struct({"finish_reason": pl.String}))


def test_round_trip_with_a_prefix_and_flat_columns(tmp_path: Path) -> None:
    csv = write(tmp_path / "answers.csv", NUMBER_LIKE_CSV)
    first, second = tmp_path / "one.csv", tmp_path / "two.csv"
    one = run("score", str(csv), "--prefix", "g_", "-o", str(first), "-q")
    two = run("score", str(first), "--prefix", "g_", "-o", str(second), "-q")
    assert one.returncode == two.returncode == 0, two.stderr
    assert one.stdout.splitlines()[1:] == two.stdout.splitlines()[1:]
    assert second.read_bytes() == first.read_bytes()


def test_version_flag() -> None:
    result = run("--version")
    assert result.returncode == 0
    assert re.fullmatch(r"gradeframe \d+\.\d+\.\d+\S*\n", result.stdout)


def test_json_array_with_list_refs_reads_like_json_lines(tmp_path: Path) -> None:
    rows = [
        {"answer": "It was 12,400.", "refs": ["12400", "12.4k"]},
        {"answer": "About 7", "refs": "7"},
        {"answer": "Nothing", "refs": ["3"]},
    ]
    array = write(tmp_path / "runs.json", json.dumps(rows, indent=2))
    lines = write(tmp_path / "runs.jsonl", "\n".join(json.dumps(r) for r in rows))
    from_array, from_lines = run("score", str(array)), run("score", str(lines))
    assert from_array.returncode == 0, from_array.stderr
    assert from_array.stdout.splitlines()[1:] == from_lines.stdout.splitlines()[1:]
    assert report_rows(from_array.stdout)["3"]["n_correct"] == "2"


def test_separator_reads_semicolon_csv(tmp_path: Path) -> None:
    csv = write(tmp_path / "answers.csv", "answer;refs\n1,204 units;1204\n0,5;0,5\n")
    result = run("score", str(csv), "--separator", ";")
    assert result.returncode == 0, result.stderr
    assert report_rows(result.stdout)["2"]["n_correct"] == "2"
    bad = run("score", str(csv), "--separator", ";;")
    assert bad.returncode == 2
    assert "--separator" in bad.stderr


def test_output_folder_is_checked_before_reading_or_scoring(tmp_path: Path) -> None:
    result = run("score", "missing.csv", "-o", str(tmp_path / "no" / "such" / "graded.csv"))
    assert result.returncode == 2
    assert "-o " in result.stderr
    assert "does not exist" in result.stderr
    folder = run("score", "--example", "-o", str(tmp_path))
    assert folder.returncode == 2


def test_one_answer_is_singular(tmp_path: Path) -> None:
    csv = write(tmp_path / "one.csv", "answer,refs\nIt was 1987.,1987\n")
    out = tmp_path / "graded.csv"
    result = run("score", str(csv), "-o", str(out))
    assert result.stdout.startswith("1 answer from ")
    assert "wrote 1 graded row to" in result.stderr


def test_not_found_phrases_replace_the_defaults(tmp_path: Path) -> None:
    csv = write(
        tmp_path / "answers.csv",
        "answer,refs\nNo idea at all.,NOT_IN_DOCUMENT\n"
        "The document does not mention it.,NOT_IN_DOCUMENT\n",
    )
    default = report_rows(run("score", str(csv)).stdout)["2"]
    assert default["n_correct"] == "1"  # the second answer is a default phrase
    mine = run("score", str(csv), "--not-found", r"no idea", "--not-found", "dunno")
    assert mine.returncode == 0, mine.stderr
    assert report_rows(mine.stdout)["2"]["n_correct"] == "1"
    assert report_rows(mine.stdout)["2"]["wrong"] == "1"  # the defaults are replaced
    bad = run("score", str(csv), "--not-found", "(unclosed")
    assert bad.returncode == 2
    assert "--not-found" in bad.stderr
    assert "not_found" not in bad.stderr


def test_cluster_flag_passes_cluster_to_the_report(tmp_path: Path) -> None:
    missing = run("score", "--example", "--cluster", "qid")
    assert missing.returncode == 2
    assert "--cluster qid: the input has no column 'qid'" in missing.stderr
    result = run("score", "--example", "--cluster", "question_id")
    assert result.returncode == 0, result.stderr
    rows = report_rows(result.stdout)
    assert rows["atlas-large"]["n_clusters"] == "30"
    # the clustered interval differs from Wilson's (0.744 to 0.965)
    assert rows["atlas-large"]["ci_low"] == "0.793"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--answer", "respons"], "--answer respons: the input has no column 'respons'"),
        (["--refs", "gold"], "--refs gold: the input has no column 'gold'"),
        (["--status", "state"], "--status state: "),
        (["--partial", "stopped"], "--partial stopped: "),
        (["--partial", "answer"], "--partial answer: row 1 holds"),
        (["--failure-kind", "kind"], "--failure-kind kind: "),
        (["--by", "modle"], "--by modle: "),
        (["--cluster", "qid"], "--cluster qid: "),
        (["--prefix", "", "--answer", "refs", "--refs", "answer"], None),
    ],
)
def test_every_error_names_the_flag_as_typed(
    tmp_path: Path, args: list[str], message: str | None
) -> None:
    csv = write(tmp_path / "answers.csv", "answer,refs,model\nIt was 1987.,1987,a\n")
    result = run("score", str(csv), *args)
    if message is None:
        assert result.returncode == 0, result.stderr
        return
    assert result.returncode == 2
    assert message in result.stderr
    assert "=" not in result.stderr.split("error: ", 1)[1].split(":")[0]


def test_output_column_clash_speaks_of_the_prefix_flag(tmp_path: Path) -> None:
    csv = write(tmp_path / "answers.csv", "answer,refs,correct\nIt was 1987.,1987,yes\n")
    result = run("score", str(csv))
    assert result.returncode == 2
    assert "--prefix" in result.stderr
    assert "prefix=" not in result.stderr


def test_deeply_nested_field_survives_a_csv_round_trip(tmp_path: Path) -> None:
    row = {"output": {"message": {"content": "It was 12.", "role": "x"}}, "refs": "12"}
    path = write(tmp_path / "deep.jsonl", json.dumps(row))
    out = tmp_path / "deep.csv"
    first = run("score", str(path), "--answer", "output.message.content", "-o", str(out), "-q")
    assert first.returncode == 0, first.stderr
    assert out.read_text(encoding="utf-8").startswith("output.message.content,output.message.role")
    again = run("score", str(out), "--answer", "output.message.content")
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[1:] == first.stdout.splitlines()[1:]


def test_an_empty_json_array_is_an_error_naming_the_file(tmp_path: Path) -> None:
    result = run("score", str(write(tmp_path / "runs.json", "[]")))
    assert result.returncode == 2
    assert "holds no records" in result.stderr


def test_a_closed_pipe_ends_quietly_and_the_output_is_still_written(tmp_path: Path) -> None:
    out = tmp_path / "graded.parquet"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gradeframe.cli",
            "score",
            "--example",
            "--by",
            "model,question_id",
            "-o",
            str(out),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    process.stdout.close()  # like `| head -0`
    _, err = process.communicate(timeout=120)
    assert b"Traceback" not in err
    assert pl.read_parquet(out).height == 120


def test_whole_words_flag_keeps_uk_out_of_ukraine(tmp_path: Path) -> None:
    csv = write(
        tmp_path / "answers.csv",
        "answer,refs\nI live in Ukraine.,UK\nThe UK.,UK\nI know it,No\n",
    )
    default = report_rows(run("score", str(csv)).stdout)["3"]
    assert default["n_correct"] == "3"  # containment: "uk" is in "ukraine"
    words = run("score", str(csv), "--whole-words")
    assert words.returncode == 0, words.stderr
    assert report_rows(words.stdout)["3"]["n_correct"] == "1"
    assert report_rows(words.stdout)["3"]["wrong"] == "2"


def test_refusals_flag_counts_a_refusal_in_words(tmp_path: Path) -> None:
    csv = write(
        tmp_path / "answers.csv",
        "answer,refs\n\"I'm sorry, but I can't help with that.\",Paris\n"
        '"I\'m sorry to hear that.",Paris\nParis,Paris\n',
    )
    default = report_rows(run("score", str(csv)).stdout)["3"]
    assert (default["refusal"], default["wrong"]) == ("0", "2")
    refusals = run("score", str(csv), "--refusals")
    assert refusals.returncode == 0, refusals.stderr
    row = report_rows(refusals.stdout)["3"]
    assert (row["n_correct"], row["refusal"], row["wrong"]) == ("1", "1", "1")


# --------------------------------------------------------------------------------------------
# Issue 38: -o checked before scoring (G21), leftovers of killed runs (G22), a user's own
# leading ' kept by --escape-formulas (G23)
# --------------------------------------------------------------------------------------------


def _never_scored(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the input was scored before -o was checked")

    monkeypatch.setattr("gradeframe.cli._main.score", fail)


@pytest.mark.parametrize(
    ("flag", "output", "said"),
    [
        ("-o", "a" * 300 + ".csv", "File name too long"),
        ("-o", "missing/graded.csv", "does not exist"),
        ("-o", "folder.csv", "is a folder"),
        ("-o", "file.txt/graded.csv", "does not exist"),
        ("--html", "a" * 300 + ".html", "File name too long"),
        ("--html", "a" * 245 + ".html", "File name too long"),  # its temporary name is longer
    ],
    ids=["too long", "missing folder", "a folder", "under a file", "html too long", "html temp"],
)
def test_an_output_that_cannot_be_written_is_one_line_before_scoring(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    flag: str,
    output: str,
    said: str,
) -> None:
    # G21: a 240-character -o name printed a traceback after the whole input was scored.
    (tmp_path / "folder.csv").mkdir()
    (tmp_path / "file.txt").write_text("x")
    monkeypatch.chdir(tmp_path)
    _never_scored(monkeypatch)
    assert cli.main(["score", "--example", "-q", flag, output]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"gradeframe: error: {flag} "), err
    assert err.count("\n") == 1, err
    assert said in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt", "folder.csv"]


def test_a_240_character_output_name_is_written(tmp_path: Path) -> None:
    # The private folder's name no longer holds the target's name, so a name that fits the file
    # system is written (255 bytes on most).
    target = tmp_path / ("a" * 236 + ".csv")
    assert cli.main(["score", "--example", "-q", "-o", str(target)]) == 0
    assert pl.read_csv(target).height == gf.example().height
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], **_CAPTURE)
    return int(done.stdout)


_CAPTURE: dict[str, Any] = {"capture_output": True, "text": True, "check": True}


def test_leftovers_of_dead_runs_on_this_host_are_removed_and_no_other(tmp_path: Path) -> None:
    # G22: a SIGKILL during -o left a hidden folder no run ever removed (the slow test in
    # test_faults_v4_small.py kills a real run).
    from gradeframe.cli import writing

    host = writing.private_name().split("-")[2]
    names = {
        "dead": f"{writing.PRIVATE_PREFIX}{host}-{_dead_pid()}-0a1b2c3d.tmp",
        "alive": f"{writing.PRIVATE_PREFIX}{host}-{os.getppid()}-0a1b2c3d.tmp",
        "other host": f"{writing.PRIVATE_PREFIX}00000000-{_dead_pid()}-0a1b2c3d.tmp",
        "not ours": ".graded.csv.1234.abcd.tmp",
    }
    for name in names.values():
        (tmp_path / name).mkdir()
        (tmp_path / name / "graded.csv").write_text("answer\ncut")
    assert writing.remove_stale_private_folders(tmp_path) == [names["dead"]]
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted(n for k, n in names.items() if k != "dead")
    target = tmp_path / "graded.csv"  # a run writing here removes only dead runs' folders
    (tmp_path / names["dead"]).mkdir()
    assert cli.main(["score", "--example", "-q", "-o", str(target)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*left, target.name])


@pytest.mark.parametrize(
    "cell",
    ["'quoted", "'12", "'", "it's", "'x'", "'\\n"],  # not "''" or "'=": read as escaped
)
def test_escape_formulas_on_input_keeps_a_users_own_leading_quote(
    tmp_path: Path, cell: str
) -> None:
    # G23: reading a user's CSV with --escape-formulas took the ' off "'quoted" (it never
    # added one: it writes "''quoted"). A round trip keeps the text as it was.
    source = tmp_path / "answers.csv"
    pl.DataFrame({"answer": [cell], "refs": ["x"]}).write_csv(source)
    escaped, back = tmp_path / "graded.csv", tmp_path / "back.jsonl"
    assert cli.main(["score", str(source), "-q", "--escape-formulas", "-o", str(escaped)]) == 0
    assert cli.main(["score", str(escaped), "-q", "--escape-formulas", "-o", str(back)]) == 0
    assert pl.read_ndjson(back).get_column("answer").to_list() == [cell]


def test_escape_formulas_round_trip_restores_record_fields(tmp_path: Path) -> None:
    # A record's fields are written as output.answer columns: the ' added there is removed
    # before the record is put back together (it used to stay in the field).
    source = tmp_path / "answers.jsonl"
    answers = ["=2", "'quoted", "-12", "plain"]
    pl.DataFrame(
        {"output": [{"answer": a, "status": "ok"} for a in answers], "refs": ["2"] * 4}
    ).write_ndjson(source)
    escaped, back = tmp_path / "graded.csv", tmp_path / "back.jsonl"
    flags = ["-q", "--escape-formulas", "--answer", "output"]
    assert cli.main(["score", str(source), *flags, "-o", str(escaped)]) == 0
    assert cli.main(["score", str(escaped), *flags, "-o", str(back)]) == 0
    record = pl.read_ndjson(back).get_column("output").struct.field("answer")
    assert record.to_list() == answers


@given(st.lists(st.text(alphabet=st.sampled_from("'=+-@\t\rab "), max_size=6), max_size=8))
def test_unescaping_what_escape_formulas_wrote_gives_the_text_back(cells: list[str]) -> None:
    from gradeframe.cli.writing import escape_formulas, unescape_formulas

    frame = pl.DataFrame({"answer": cells}, schema={"answer": pl.String})
    assert unescape_formulas(escape_formulas(frame)).equals(frame)
