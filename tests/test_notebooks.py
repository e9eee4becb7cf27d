"""Re-execute the notebooks so they never rot, and check their saved outputs still hold.

The kernel is the interpreter running the tests, whatever is installed elsewhere: a kernel spec
named ``python3`` is written to a temporary directory put first on ``JUPYTER_PATH``.
Regenerate the saved notebooks with ``python tools/make_notebooks.py``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

import gradeframe as gf
from gradeframe.kinds import CHAIN_ORDER

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
NAMES = [
    "quickstart_polars.ipynb",
    "quickstart_pandas.ipynb",
    "failure_analysis.ipynb",
    "your_own_file.ipynb",
    "comparing_models.ipynb",
    "extraction_and_choice.ipynb",
]


@pytest.fixture
def this_python_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    spec = tmp_path / "kernels" / "python3"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    kernel = {"argv": argv, "display_name": "Python 3", "language": "python"}
    (spec / "kernel.json").write_text(json.dumps(kernel), encoding="utf-8")
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    return "python3"


def _texts(cell: Any) -> list[str]:
    """What a code cell showed, as text; charts are checked by their type only."""
    shown: list[str] = []
    previous = None
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            # a kernel may cut one print's text into several stream outputs, or join several
            # prints into one, depending on timing: what was printed is the stream's text joined
            joined = (
                previous is not None
                and previous["output_type"] == "stream"
                and previous["name"] == output["name"]
            )
            if joined:
                shown[-1] += output["text"]
            else:
                shown.append(output["text"])
        elif output["output_type"] in ("execute_result", "display_data"):
            text = output["data"].get("text/plain", "")
            shown.append("alt.Chart" if text.startswith("alt.") else text)
        previous = output
    return shown


#: Executing the six notebooks takes about half a minute of the README's test command (under three
#: minutes on two cores); `.ci/run` runs them with GRADEFRAME_NOTEBOOKS=1 after it.
_EXECUTE = pytest.mark.skipif(
    os.environ.get("GRADEFRAME_NOTEBOOKS") != "1",
    reason="executing the notebooks: .ci/run runs these with GRADEFRAME_NOTEBOOKS=1",
)


@_EXECUTE
@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_and_matches_its_saved_outputs(name: str, this_python_kernel: str) -> None:
    saved = nbformat.read(NOTEBOOKS / name, as_version=4)
    assert all(cell.get("outputs") for cell in saved.cells if cell.cell_type == "code"), (
        f"{name} is saved without outputs; run tools/make_notebooks.py"
    )
    fresh = nbformat.read(NOTEBOOKS / name, as_version=4)
    NotebookClient(
        fresh,
        kernel_name=this_python_kernel,
        timeout=120,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    ).execute()
    for index, (old, new) in enumerate(zip(saved.cells, fresh.cells, strict=True)):
        if old.cell_type != "code":
            continue
        assert not [o for o in new.outputs if o["output_type"] == "error"]
        assert _texts(new) == _texts(old), (
            f"{name}, cell {index}: the output changed; if that is intended, run "
            "tools/make_notebooks.py and commit the notebooks"
        )


def test_a_notebook_starts_from_a_user_file_and_covers_the_matchers_and_the_cli() -> None:
    notebook = nbformat.read(NOTEBOOKS / "your_own_file.ipynb", as_version=4)
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    assert (NOTEBOOKS / "my_runs.csv").is_file()
    assert 'gf.read_table("my_runs.csv"' in code  # read as the command line reads it
    assert "keep_default_na=False, dtype=str" in code  # and what pandas' defaults change
    for call in (".answer_contains(", ".exact_match(", ".within(", ".includes(", ".matches("):
        assert call in code, call
    assert '"-m", "gradeframe.cli"' in code
    assert 'gradeframe("score", "my_runs.csv"' in code


def test_comparing_models_notebook_compares_three_models_and_clusters_epochs() -> None:
    notebook = nbformat.read(NOTEBOOKS / "comparing_models.ipynb", as_version=4)
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    for call in (
        "gf.example()",
        ".grade.compare(",
        ".grade.compare_chart(",
        'cluster="question_id"',
        ".grade.pass_at_k(",
        ".grade.consistency(",
        ".grade.flaky(",
    ):
        assert call in code, call
    shown = "\n".join(
        output["data"].get("text/plain", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output["output_type"] == "execute_result"
    )
    assert shown.count("atlas-large ┆ beacon-7b") >= 2  # three models, pairwise, twice
    assert "clustered_width" in shown


# ---- the failure kinds are listed in gradeframe's own orders -------------------------------------

_KIND_WORD = re.compile(r"\b(" + "|".join(dict.fromkeys([*gf.KINDS, *CHAIN_ORDER])) + r")\b")


def _markdown_tables(text: str) -> list[list[str]]:
    tables: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.startswith("|"):
            tables[-1].append(line)
        elif tables[-1]:
            tables.append([])
    return [t for t in tables if t]


def _kind_orders(name: str) -> tuple[list[list[str]], list[list[str]]]:
    """From a notebook's text: the kinds its "when" tables list (first column, in order), and
    the kinds each printed report header lists (column names, in order)."""
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    tables, headers = [], []
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            for table in _markdown_tables(cell.source):
                first = [line.strip("|").split("|")[0] for line in table]
                tables.append([m for cell in first for m in _KIND_WORD.findall(cell)])
        elif cell.cell_type == "code":
            for text in _texts(cell):
                for line in text.splitlines():
                    found = _KIND_WORD.findall(line)
                    if len(found) >= 3:
                        headers.append(found)
    return [t for t in tables if len(t) >= 3], headers


@pytest.mark.parametrize("name", NAMES)
def test_notebooks_list_the_failure_kinds_in_gradeframes_order(name: str) -> None:
    """One source for each order: a table of when each kind applies follows the chain
    (gradeframe.kinds.CHAIN_ORDER: a stop or a refusal before parse_failure, as docs/rules.md),
    and a report's count columns follow gradeframe.KINDS."""
    tables, headers = _kind_orders(name)
    for listed in tables:
        assert listed == [k for k in CHAIN_ORDER if k in listed], f"{name}: {listed}"
    for listed in headers:
        assert listed == [k for k in gf.KINDS if k in listed], f"{name}: {listed}"


def test_the_failure_analysis_notebook_lists_every_kind_in_chain_order() -> None:
    tables, headers = _kind_orders("failure_analysis.ipynb")
    assert tables == [list(CHAIN_ORDER)]
    assert list(gf.KINDS) in headers  # the report's columns


# ---- the README lists every notebook and says how to run one -------------------------------------

README = (NOTEBOOKS.parent / "README.md").read_text(encoding="utf-8")


def test_readme_lists_every_notebook() -> None:
    saved = sorted(path.stem for path in NOTEBOOKS.glob("*.ipynb"))
    assert sorted(Path(name).stem for name in NAMES) == saved  # all of them run in the tests
    missing = [stem for stem in saved if f"`{stem}`" not in README]
    assert not missing, f"README.md does not list {missing}"


@_EXECUTE
def test_the_readmes_way_to_run_a_notebook_works(tmp_path: Path, this_python_kernel: str) -> None:
    command = re.search(r"`(jupyter execute notebooks/(\w+)\.ipynb)`", README)
    assert command is not None, "README.md says how to run a notebook with `jupyter execute`"
    notebook = tmp_path / "copy.ipynb"
    notebook.write_bytes((NOTEBOOKS / "quickstart_pandas.ipynb").read_bytes())
    # `jupyter` is installed with the test extra (nbclient's `jupyter execute`), next to python
    done = subprocess.run(
        [sys.executable, "-m", "jupyter", "execute", "--kernel_name=python3", str(notebook)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Executing notebook with kernel: python3" in done.stderr
