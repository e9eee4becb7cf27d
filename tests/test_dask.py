"""gradeframe on Dask: the same rows and the same report as Polars, on a 2-worker LocalCluster."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import polars as pl
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import dask  # noqa: E402
from dask.dataframe.utils import pyarrow_strings_enabled  # noqa: E402

import gradeframe as gf  # noqa: E402
import gradeframe.dask as gf_dask  # noqa: E402
from tests.utils import to_data  # noqa: E402

GRADED = ("correct", "failure_kind", "outcome")

# Dask's fsspec Parquet reader calls reset_index(inplace=True), which pandas 3.1 deprecates.
# That one warning, from Dask's own reader, is not gradeframe's to fix.
DASK_READER_WARNING = pytest.mark.filterwarnings(
    "ignore:The inplace keyword in DataFrame.reset_index is deprecated:pandas.errors.Pandas4Warning"
)


@pytest.fixture(scope="module", autouse=True)
def client():
    """One in-process 2-worker cluster for the module (each xdist worker makes its own)."""
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    )
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


def generated(rows: int, seed: int) -> pl.DataFrame:
    """The example's records (nested answers, list refs, carried kinds) resampled and shuffled."""
    example = gf.example().with_row_index("source_row")
    picks = pl.int_range(0, rows, eager=True).shuffle(seed=seed) % example.height
    frame = example[picks.to_list()].with_row_index("row_id")
    # Some partitions then lack the carried kind, and some models lack a kind altogether.
    return frame.with_columns(pl.col("row_id").cast(pl.Int64))


def same_rows(result, expected: pl.DataFrame, columns=GRADED) -> None:
    got, want = to_data(result), to_data(expected)
    for column in columns:
        assert got[column] == want[column], column


def same_report(result: pd.DataFrame, expected: pl.DataFrame) -> None:
    assert isinstance(result, pd.DataFrame)
    assert list(result.columns) == expected.columns
    assert to_data(result) == to_data(expected)


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_example_from_pandas_gives_polars_rows_and_report(npartitions: int) -> None:
    frame = gf.example()
    expected = frame.grade.answer_contains("answer", "refs")
    ddf = dd.from_pandas(frame.to_pandas(), npartitions=npartitions)
    graded = ddf.grade.answer_contains("answer", "refs")
    assert graded.npartitions == npartitions
    result = graded.compute()
    same_rows(result, expected, [*GRADED, "question_id", "model", "refs", "answer"])
    same_report(graded.grade.report("model"), gf.report(expected, "model"))


@DASK_READER_WARNING
@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_generated_parquet_dataset_gives_polars_rows_and_report(tmp_path, npartitions: int) -> None:
    frame = generated(900, seed=npartitions)
    expected = frame.grade.answer_contains("answer", "refs", prefix="g_")
    (tmp_path / "runs").mkdir()
    size = -(-frame.height // npartitions)
    for part in range(npartitions):  # a dataset of several files, as an evaluation sweep writes
        frame.slice(part * size, size).write_parquet(tmp_path / "runs" / f"part.{part}.parquet")
    # Dask's Parquet readers: fsspec (the default), Arrow's own file system, Arrow dtypes.
    options = {1: {}, 3: {"filesystem": "arrow"}, 7: {"dtype_backend": "pyarrow"}}[npartitions]
    ddf = dd.read_parquet(str(tmp_path / "runs"), **options)
    assert ddf.npartitions == npartitions
    graded = ddf.grade.answer_contains("answer", "refs", prefix="g_")
    result = graded.compute().sort_values("row_id")
    same_rows(result, expected, ["g_correct", "g_failure_kind", "g_outcome", "row_id"])
    for by in (None, "model", ["model", "question_id"]):
        report = graded.grade.report(by, prefix="g_")
        same_report(
            report, gf.report(expected, by, correct="g_correct", failure_kind="g_failure_kind")
        )


def test_string_conversion_would_print_lists_and_records_but_grading_reads_them() -> None:
    # The trap: Dask's default conversion turns object columns into their printed text.
    pdf = gf.example().to_pandas()
    assert pyarrow_strings_enabled()
    plain = dd.from_pandas(pdf, npartitions=3)
    assert plain.compute()["refs"].iloc[0] == "['1987']"
    graded = plain.grade.answer_contains("answer", "refs")
    assert graded["refs"].dtype == object
    assert graded["answer"].dtype == object
    expected = gf.example().grade.answer_contains("answer", "refs")
    same_rows(graded.compute(), expected, [*GRADED, "refs", "answer"])
    # Columns gradeframe does not read are converted as Dask would.
    assert graded["question"].dtype == plain["question"].dtype


def test_string_conversion_from_delayed_partitions_keeps_records() -> None:
    frame = gf.example()
    pieces = [frame.slice(i, 40).to_pandas() for i in range(0, frame.height, 40)]
    ddf = dd.from_delayed([dask.delayed(p) for p in pieces], meta=pieces[0].head(0))
    graded = ddf.grade.answer_contains("answer", "refs")
    same_rows(graded.compute(), frame.grade.answer_contains("answer", "refs"))


@pytest.mark.parametrize("npartitions", [1, 3])
def test_answers_that_look_like_json_lists_are_graded_as_text_like_pandas(
    npartitions: int,
) -> None:
    # The trap (issue 23 item 7): when every answer of a partition looked like a JSON list, the
    # printed-text guard raised, though pandas and Polars grade them. Text is told by dtype and
    # source, not by its look.
    pdf = pd.DataFrame(
        {
            "answer": ['["Paris"]', '["Lyon", "Paris"]', "[]", '["12"]', '{"city": "Paris"}'],
            "refs": [["Paris"], ["Nice"], ["x"], ["12"], ["Paris"]],
        }
    )
    graded = dd.from_pandas(pdf, npartitions=npartitions).grade.answer_contains("answer", "refs")
    expected = pdf.grade.answer_contains("answer", "refs")
    assert graded.compute()["correct"].tolist() == expected["correct"].tolist()
    assert expected["correct"].tolist() == [True, False, False, True, True]


def test_text_saved_to_parquet_is_graded_as_text_like_pandas(tmp_path) -> None:
    # A string column read from Parquet is text by its dtype and source, whatever it looks
    # like: graded exactly as pandas grades the same file.
    pd.DataFrame({"answer": ['["Paris"]', "['1987']"], "refs": ["Paris", "1987"]}).to_parquet(
        tmp_path / "saved.parquet"
    )
    ddf = dd.read_parquet(str(tmp_path / "saved.parquet"), filesystem="arrow")
    graded = ddf.grade.answer_contains("answer", "refs").compute()
    expected = pd.read_parquet(tmp_path / "saved.parquet").grade.answer_contains("answer", "refs")
    assert graded["correct"].tolist() == expected["correct"].tolist() == [True, True]


def test_arguments_are_checked_before_any_data_is_read() -> None:
    meta = gf.example().to_pandas().head(0)

    def load(_: int) -> pd.DataFrame:
        raise AssertionError("a partition was read")

    ddf = dd.from_map(load, [0, 1], meta=meta, enforce_metadata=False)
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="nope"):
        ddf.grade.answer_contains("nope", "refs")
    with pytest.raises(ValueError, match="delta"):
        ddf.grade.within("answer", "refs")
    with pytest.raises(Exception, match="by"):
        ddf.grade.report("no_such_column")
    graded = ddf.grade.answer_contains("answer", "refs")  # lazy: nothing read yet
    assert list(graded.columns[-3:]) == list(GRADED)


def test_meta_is_exactly_the_partition_dtypes() -> None:
    frame = pl.DataFrame(
        {
            "actual": ["12", "about 12.4", None, "thirteen"],
            "expected": [12.0, 12.0, 1.0, 13.0],
            "needles": [["12"], ["12", "4"], [], ["x"]],
        }
    )
    ddf = dd.from_pandas(frame.to_pandas(), npartitions=2)
    for graded in (
        ddf.grade.within("actual", "expected", delta=0.5),
        ddf.grade.includes("actual", "needles"),
        ddf.grade.exact_match("actual", "actual", prefix="m_"),
        ddf.grade.matches("actual", r"^\d+$"),
    ):
        result = graded.compute()
        assert dict(result.dtypes) == dict(graded.dtypes)


@pytest.mark.parametrize("npartitions", [1, 3])
def test_matchers_give_polars_rows(npartitions: int) -> None:
    frame = pl.DataFrame(
        {
            "actual": ["12", "1,204", "12.05", None, "x", "3000", "Paris"],
            "expected": [12.0, 1204.0, 12.0, 5.0, 1.0, 3000.0, 0.0],
            "text": ["12", "1204", "12.0", "a", "x", "3,000", "paris"],
            "needles": [["12"], ["1204"], ["12"], [], ["x", "y"], ["3000"], ["Par"]],
        }
    )
    ddf = dd.from_pandas(frame.to_pandas(), npartitions=npartitions)
    cases = [
        ("within", ("actual", "expected"), {"percent": 1}, ["correct", "tolerance", "difference"]),
        ("includes", ("actual", "needles"), {"ignore_case": False}, ["correct", "missing"]),
        ("exact_match", ("actual", "text"), {"strip": False}, ["correct", "expectation"]),
        ("matches", ("actual",), {"pattern": r"^\d"}, ["correct", "expectation"]),
    ]
    for method, args, kwargs, columns in cases:
        expected = getattr(frame.grade, method)(*args, **kwargs)
        same_rows(getattr(ddf.grade, method)(*args, **kwargs).compute(), expected, columns)


def test_report_sums_counts_not_intervals() -> None:
    # Seven partitions of one model: averaging their intervals would give a wider interval.
    frame = generated(700, seed=3).grade.answer_contains("answer", "refs")
    ddf = dd.from_pandas(frame.to_pandas(), npartitions=7)
    result = gf_dask.report(ddf)
    same_report(result, gf.report(frame))


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_report_cluster_and_score_from_summed_counts(npartitions: int) -> None:
    # Scores in eighths add up exactly in any order, so the comparison can be exact.
    frame = (
        generated(840, seed=npartitions)
        .grade.answer_contains("answer", "refs")
        .with_columns(score=(pl.col("row_id") % 9).cast(pl.Float64) / 8)
    )
    ddf = dd.from_pandas(frame.to_pandas(), npartitions=npartitions)
    for by in (None, "model"):
        result = ddf.grade.report(by, cluster="question_id", score="score")
        same_report(result, gf.report(frame, by, cluster="question_id", score="score"))


def test_report_of_matcher_output_has_no_kind_columns() -> None:
    frame = pl.DataFrame(
        {"m": ["a", "b", "a", "b"], "x": ["1", "2", "3", "x"], "y": [1.0, 2.5, 3.0, 1.0]}
    )
    expected = frame.grade.within("x", "y", delta=0.5)
    graded = dd.from_pandas(frame.to_pandas(), npartitions=2).grade.within("x", "y", delta=0.5)
    same_report(graded.grade.report("m"), gf.report(expected, "m"))


def test_series_text_rules() -> None:
    texts = pl.Series("t", ["1,204 Apples", None, "Not in the document.", "  x  "])
    ds = dd.from_pandas(texts.to_pandas(), npartitions=2)
    assert ds.grade.fold().compute().tolist()[0] == "1204 apples"
    assert to_data(ds.grade.is_not_found().compute().to_frame()) == {
        "t": texts.grade.is_not_found().to_list()
    }


def test_import_gradeframe_does_not_import_dask_but_registers_when_dask_is_in_use() -> None:
    code = (
        "import importlib, sys\n"
        "import gradeframe\n"
        "heavy = [m for m in ('dask', 'distributed', 'pyspark') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "import dask.dataframe as dd\n"
        "assert not hasattr(dd.DataFrame, 'grade')\n"
        "importlib.reload(gradeframe)  # as if gradeframe were imported after Dask\n"
        "assert hasattr(dd.DataFrame, 'grade') and hasattr(dd.Series, 'grade')\n"
    )
    subprocess.run([sys.executable, "-W", "error", "-c", code], check=True)


# ---- the Dask internals gradeframe.dask uses: guarded, and the tested range declared ------------


def test_missing_dask_internals_raise_naming_the_tested_range() -> None:
    code = (
        "import sys, warnings, dask.dataframe\n"
        "sys.modules['dask.dataframe.dask_expr._expr'] = None  # as if Dask had moved it\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    import gradeframe  # still imports: ddf.grade is just not registered\n"
        "print('warned:', caught[0].message)\n"
        "import gradeframe.dask\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 1
    assert done.stdout.startswith("warned: ddf.grade is not registered: ")
    assert f"tested with Dask {gf_dask.DASK_TESTED}" in done.stderr
    assert "ImportError: gradeframe.dask keeps list and record columns" in done.stderr


def test_the_dask_extra_declares_the_tested_range_and_ci_tests_its_lower_bound() -> None:
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    lower, _, upper = gf_dask.DASK_TESTED.partition(" to ")
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert f"dask[dataframe]>={lower},<2027" in extras["dask"]
    assert f"distributed>={lower},<2027" in extras["dask"]
    assert upper < "2027"
    ci = (root / ".ci" / "run").read_text()
    assert "d.DASK_TESTED.split()[0]" in ci
    assert '"dask[dataframe]==$dask_lower"' in ci
    assert "tests/test_dask.py" in ci
    assert dask.__version__ >= lower


def test_csv_mixing_json_list_and_plain_refs_gives_the_pandas_verdicts(tmp_path) -> None:
    # A user's CSV: refs cells hold JSON lists, plain text, and text that only looks like a list.
    from tests.test_user_path import USER_CSV, USER_VERDICTS

    path = tmp_path / "answers.csv"
    path.write_text(USER_CSV, encoding="utf-8")
    ddf = dd.read_csv(str(path), blocksize=200)  # several partitions of a small file
    assert ddf.npartitions > 1
    graded = ddf.grade.answer_contains(explain=True)
    assert list(graded._meta.columns)[-2:] == ["matched", "near_miss"]
    result = graded.compute()
    assert to_data(result)["correct"] == USER_VERDICTS["correct"]
    expected = pd.read_csv(path).grade.answer_contains(explain=True)
    for column in ("correct", "failure_kind", "matched", "near_miss"):
        assert to_data(result)[column] == to_data(expected)[column]


def test_flat_status_column_is_read_by_name_on_every_partition() -> None:
    pdf = pd.DataFrame(
        {"answer": ["It was 12."] * 4, "refs": ["12"] * 4, "status": ["error", None, "ok", "error"]}
    )
    graded = dd.from_pandas(pdf, npartitions=2).grade.answer_contains().compute()
    assert graded["failure_kind"].tolist()[::3] == ["error", "error"]
    assert graded["correct"].tolist() == [False, True, True, False]


@pytest.mark.parametrize("npartitions", [1, 3])
def test_equivalent_gives_polars_rows(npartitions: int) -> None:
    frame = pl.DataFrame(
        {
            "actual": ["1/2", "$1,000$", "50\\%", None, "\\sqrt{4}", "x", "0.4999999"],
            "expected": ["0.5", "1000", "0.5", "1", "2", "y", "\\frac12"],
        }
    )
    ddf = dd.from_pandas(frame.to_pandas(), npartitions=npartitions)
    columns = ["correct", "expectation", "method"]
    for kwargs in ({"fallback": None}, {"percent": "number"}):
        expected = frame.grade.equivalent("actual", "expected", **kwargs)
        same_rows(ddf.grade.equivalent("actual", "expected", **kwargs).compute(), expected, columns)


def test_whole_words_and_refusal_pass_through_to_every_partition() -> None:
    frame = pl.DataFrame(
        {
            "answer": ["I live in Ukraine.", "The UK.", "I'm sorry, but I can't help with that."]
            * 2,
            "refs": ["UK", "UK", "Paris"] * 2,
        }
    )
    expected = frame.grade.answer_contains(whole_words=True, refusal=True)
    ddf = dd.from_pandas(frame.to_pandas(), npartitions=2)
    graded = ddf.grade.answer_contains(whole_words=True, refusal=True)
    same_rows(graded.compute(), expected)
    assert to_data(expected)["failure_kind"][:3] == ["wrong", None, "refusal"]
    ds = dd.from_pandas(frame.get_column("answer").to_pandas(), npartitions=2)
    assert ds.grade.is_refusal().compute().tolist() == [False, False, True] * 2


def test_choice_with_one_option_letter_gives_polars_rows() -> None:
    frame = pl.DataFrame({"answer": ["A", "B", "(a)", None], "key": ["A", "A", "A", "A"]})
    ddf = dd.from_pandas(frame.to_pandas(), npartitions=2)
    expected = frame.grade.choice("answer", "key", letters="A")
    result = ddf.grade.choice("answer", "key", letters="A").compute()
    same_rows(result, expected, ["correct", "chosen"])
