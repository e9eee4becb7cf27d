"""The README and every page in docs/ run as written and print what they show.

Each ```python block of a page runs in order, in one namespace per page (so a page reads like a
notebook). When the next fenced block after it is a ```text block, what the Python block printed
must equal it. A ```text block that starts with ``$ gradeframe ...`` shows a command line: the
command runs (in process) and what it writes (stdout, then stderr) must equal the lines after the command.

A ```bash block whose command starts with ``inspect `` (docs/inspect.md) runs too, as written,
with no terminal to answer a prompt: it must finish on its own and succeed.

A block whose fence reads ```python requires=pyspark (several: requires=dask,pyspark) needs those
packages: where one is missing, the rest of the page is skipped (the blocks before it still ran).

Polars prints a frame's shape and column dtypes; a page may leave those lines out, so they are
dropped from both sides before comparing. Pages added to docs/ later are picked up by name.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gradeframe import cli

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^```(\w*)([^\n]*)\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
# "```python requires=pyspark,dask": the rest of the page is skipped where one is not installed.
REQUIRES = re.compile(r"\brequires=([\w.,-]+)")
DTYPE = re.compile(
    r"---|str|bool|binary|null|object|cat|enum|date|time|[iuf]\d+|"
    r"(list|array|struct|datetime|duration|decimal)\[.*\]"
)


def _is_dtype_row(line: str) -> bool:
    """A Polars header row of dtypes ("│ str ┆ i64 │") or of dashes ("│ --- ┆ --- │")."""
    if not line.startswith(("│", "|")):
        return False
    cells = [c.strip() for c in re.split(r"[┆|│]", line.strip("│| "))]
    return all(DTYPE.fullmatch(c) for c in cells)


def blocks(text: str) -> list[tuple[str, str, int, list[str]]]:
    """Every fenced block: (language, body, line number, packages it requires)."""
    found = []
    for m in FENCE.finditer(text):
        requires = REQUIRES.search(m.group(2))
        packages = requires.group(1).split(",") if requires else []
        found.append((m.group(1), m.group(3), text.count("\n", 0, m.start()) + 1, packages))
    return found


def shown(text: str) -> list[str]:
    """Lines to compare: trailing blanks and Polars' shape and dtype lines dropped."""
    lines = [line.rstrip() for line in text.strip("\n").splitlines()]
    return [line for line in lines if not line.startswith("shape:") and not _is_dtype_row(line)]


def run_shell_command(body: str) -> None:
    """Run an ``inspect ...`` shell command as written; a prompt finds no input and fails it."""
    line = body.replace("\\\n", " ")
    words = shlex.split(line)
    program = shutil.which(words[0]) or str(Path(sys.executable).with_name(words[0]))
    done = subprocess.run(
        [program, *words[1:]],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"


def run_command(line: str) -> str:
    """Run a ``gradeframe ...`` command line in process: what it wrote to stdout, then stderr."""
    out, err = io.StringIO(), io.StringIO()
    # --version, --help and usage errors exit through argparse
    redirected = contextlib.redirect_stdout(out), contextlib.redirect_stderr(err)
    with redirected[0], redirected[1], contextlib.suppress(SystemExit):
        cli.main(shlex.split(line)[1:])
    return out.getvalue() + err.getvalue()


# docs/inspect.md runs an evaluation: inspect_ai's own dependencies warn about deprecations and
# its event loop leaves streams to the garbage collector. Those warnings are not gradeframe's and,
# as errors, would fail the evaluation's samples; on that page alone they are ignored.
_THIRD_PARTY_WARNINGS = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]


@pytest.mark.parametrize(
    "page",
    [
        pytest.param(page, marks=_THIRD_PARTY_WARNINGS if page.name == "inspect.md" else [])
        for page in PAGES
    ],
    ids=lambda p: p.relative_to(ROOT).as_posix(),
)
def test_page_runs_and_prints_what_it_shows(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    found = blocks(page.read_text(encoding="utf-8"))
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    for index, (language, body, line, packages) in enumerate(found):
        where = f"{page.name}, line {line}"
        following = found[index + 1] if index + 1 < len(found) else None
        missing = [p for p in packages if importlib.util.find_spec(p) is None]
        if missing:
            pytest.skip(f"{where} and after need {', '.join(missing)}")
        if language == "python":
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(body, where, "exec"), namespace)
            if (
                following is not None
                and following[0] == "text"
                and not following[1].startswith("$ gradeframe ")
            ):
                assert shown(printed.getvalue()) == shown(following[1]), where
        elif language == "bash" and body.startswith("inspect "):
            run_shell_command(body)
        elif language == "text" and body.startswith("$ gradeframe "):
            command, _, expected = body.partition("\n")
            assert shown(run_command(command[2:])) == shown(expected), where


def test_every_page_is_linked_from_the_readme_and_the_index() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    for page in PAGES[1:]:
        if page.name != "index.md":
            assert f"({page.name})" in index, f"docs/index.md does not link {page.name}"
            assert f"(docs/{page.name})" in readme, f"README.md does not link {page.name}"


def test_the_harness_compares_and_fails_on_a_wrong_output(tmp_path: Path) -> None:
    page = "```python\nprint('a')\n```\n\n```text\nb\n```\n"
    body = blocks(page)
    assert [b[0] for b in body] == ["python", "text"]
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(body[0][1], {})
    assert shown(printed.getvalue()) != shown(body[1][1])


README = (ROOT / "README.md").read_text(encoding="utf-8")


def _readme_commands() -> list[str]:
    first_bash = next(body for language, body, *_ in blocks(README) if language == "bash")
    return [line for line in first_bash.splitlines() if line and not line.startswith("#")]


def test_readme_starts_with_the_two_commands() -> None:
    install_and_score, install_and_test = _readme_commands()
    assert README.index("```bash") < README.index("```python")
    assert install_and_score.endswith("&& gradeframe score --example")
    assert "pip install" in install_and_score
    assert install_and_test.endswith("&& pytest")
    assert "pip install -e '.[test]'" in install_and_test


def test_readme_is_a_short_front_page_with_what_a_new_user_asks() -> None:
    # a front page: v3 added sections (the page, repeated samples, inspect), hence 12,000
    assert len(README) < 12_000
    for needed in (
        "`outcome`",
        "gradeframe.example()",
        "not mentioned",
        "unknown from the text",
        "the answer is not in the document",
        "I could not find it in the text",
        "there is no information about ... in the document",
        "it cannot be determined from the text",
        "unable to determine ... from the passage",
        "## Scale",
        "(docs/scale.md)",
        "under three minutes",
    ):
        assert needed in README, needed
    for moved in ("## The failure kinds", "## Bad and odd input", "## Choices where"):
        assert moved not in README


def test_ci_runs_the_readme_test_command_and_the_thorough_properties() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    test_command = _readme_commands()[1].rsplit("&& ", 1)[1]
    assert test_command in script
    assert "GRADEFRAME_HYPOTHESIS=thorough pytest tests/test_properties.py" in script
    assert "ruff check ." in script
    assert "ruff format --check ." in script


def test_the_default_hypothesis_profile_is_quick_and_ci_keeps_2000_examples() -> None:
    from hypothesis import settings

    assert settings.get_profile("quick").max_examples <= 100
    assert settings.get_profile("ci").max_examples == 2000
    assert settings.get_profile("thorough").max_examples == 2000
    conftest = (ROOT / "tests" / "conftest.py").read_text(encoding="utf-8")
    assert 'os.environ.get("GRADEFRAME_HYPOTHESIS", "quick")' in conftest


# Users have no SPEC: what a user reads (the README, docs/, notebooks, the docstrings and `#:`
# comments of the package, which help() and IDEs show) says the rule itself, never "SPEC §2" or
# "§9". A book's section ("Numerical Recipes §6.4") is a citation, not the spec.
SPEC_CITATION = re.compile(r"\bSPEC\b|(?<!Recipes )(?<!ed\., )(?<!and )§\s*\d")


def _user_texts() -> list[Path]:
    package = ROOT / "src" / "gradeframe"
    return [
        *PAGES,
        *sorted((ROOT / "notebooks").glob("*.ipynb")),
        *sorted(package.rglob("*.py")),
        *sorted((package / "html").rglob("*.html")),
    ]


@pytest.mark.parametrize("path", _user_texts(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_user_facing_text_never_cites_the_spec(path: Path) -> None:
    cited = [
        f"{path.name}:{number}: {line.strip()}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if SPEC_CITATION.search(line)
    ]
    assert cited == []
