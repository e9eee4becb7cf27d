"""The README and every page in docs/ run as written and print what they show.

Each ```python block of a page runs in order, in one namespace per page (so a page reads like a
notebook). When the next fenced block after it is a ```text block, what the Python block printed
must equal it. A ```text block that starts with ``$ gradeframe ...`` shows a command line: the
command runs (in process) and its standard output must equal the lines after the command.

Polars prints a frame's shape and column dtypes; a page may leave those lines out, so they are
dropped from both sides before comparing. Pages added to docs/ later are picked up by name.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from gradeframe import cli

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
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


def blocks(text: str) -> list[tuple[str, str, int]]:
    """Every fenced block: (language, body, line number)."""
    return [
        (m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1) for m in FENCE.finditer(text)
    ]


def shown(text: str) -> list[str]:
    """Lines to compare: trailing blanks and Polars' shape and dtype lines dropped."""
    lines = [line.rstrip() for line in text.strip("\n").splitlines()]
    return [line for line in lines if not line.startswith("shape:") and not _is_dtype_row(line)]


def run_command(line: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = cli.main(shlex.split(line)[1:])
    assert status == 0, f"`{line}` exited with {status}"
    return out.getvalue()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_page_runs_and_prints_what_it_shows(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    found = blocks(page.read_text(encoding="utf-8"))
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    for index, (language, body, line) in enumerate(found):
        where = f"{page.name}, line {line}"
        following = found[index + 1] if index + 1 < len(found) else None
        if language == "python":
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(body, where, "exec"), namespace)
            if following is not None and following[0] == "text":
                assert shown(printed.getvalue()) == shown(following[1]), where
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
