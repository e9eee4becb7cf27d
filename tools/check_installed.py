"""Run the log examples of the docs and docstrings against an installed (non-editable) gradeframe.

``.ci/run`` installs the package into a fresh virtual environment (``pip install '.[cli,logs]'``)
and runs this from another folder, so the examples read the logs the package ships
(``gradeframe.example_logs()``), not the repository's. Usage::

    python tools/check_installed.py docs/logs.md [more pages...]

Each ```python block of a page runs in order in one namespace; a ```text block after it must
equal what it printed, and a ```text block starting with ``$ gradeframe`` runs that command. A
block whose fence reads ```python source-checkout reads the repository's test fixtures, which an
installed package does not ship: it is left out here (tests/test_docs.py runs it).
Exits 1 on any difference.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import io
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

FENCE = re.compile(r"^```(\w*)([^\n]*)\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
MODULES = ("gradeframe.example", "gradeframe.logs", "gradeframe.logs.verdicts")


def shown(text: str) -> list[str]:
    """Lines to compare (trailing blanks and Polars' shape line dropped)."""
    lines = [line.rstrip() for line in text.strip("\n").splitlines()]
    return [line for line in lines if not line.startswith("shape:")]


def run_page(page: Path) -> int:
    """Run a page's blocks; return the number of outputs that differ."""
    found = list(FENCE.finditer(page.read_text(encoding="utf-8")))
    namespace: dict[str, object] = {"__name__": "docs"}
    command = Path(sys.executable).with_name("gradeframe")
    differ = 0
    for index, match in enumerate(found):
        language, body = match.group(1), match.group(3)
        following = found[index + 1] if index + 1 < len(found) else None
        if "source-checkout" in match.group(2):
            # reads the repository's test fixtures, which an installed package does not ship
            continue
        if language == "python":
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(body, f"{page.name} block {index}", "exec"), namespace)
            if (
                following is not None
                and following.group(1) == "text"
                and not following.group(3).startswith("$ gradeframe ")
                and shown(printed.getvalue()) != shown(following.group(3))
            ):
                differ += 1
                print(f"{page.name}, block {index}: printed\n{printed.getvalue()}")
        elif language == "text" and body.startswith("$ gradeframe "):
            line, _, expected = body.partition("\n")
            args = shlex.split(line[2:])[1:]
            done = subprocess.run([command, *args], capture_output=True, text=True, check=False)
            if shown(done.stdout + done.stderr) != shown(expected):
                differ += 1
                print(f"{page.name}: {line}\n{done.stdout}{done.stderr}")
    return differ


def main(pages: list[str]) -> int:
    """Check the install, run the docstrings' and the pages' examples; return the exit status."""
    import gradeframe

    here = Path(__file__).resolve().parents[1]
    installed = Path(gradeframe.__file__).resolve()
    if here in installed.parents:
        print(f"gradeframe is imported from the repository ({installed}), not an install")
        return 1
    failed = 0
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    for name in MODULES:
        result = doctest.testmod(importlib.import_module(name), optionflags=flags)
        failed += result.failed
    paths = [Path(p).resolve() for p in pages]
    os.chdir(tempfile.mkdtemp())  # another folder: the examples write their files here
    failed += sum(run_page(path) for path in paths)
    print(f"gradeframe {installed.parent}: {'ok' if not failed else f'{failed} failed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
