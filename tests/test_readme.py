"""The README's example runs and prints what the README shows."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_example_prints_what_the_readme_shows() -> None:
    text = README.read_text(encoding="utf-8")
    code, shown = re.search(r"```python\n(.*?)```\n\n```text\n(.*?)```", text, re.DOTALL).groups()
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, str(README), "exec"), {})
    kept = [
        line
        for line in printed.getvalue().splitlines()
        if not line.startswith("shape:")
        and "---" not in line
        and not re.match(r"│ (str|bool|i64|f64) ", line)
    ]
    assert kept == shown.strip("\n").splitlines()
