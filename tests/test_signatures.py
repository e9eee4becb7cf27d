"""Every public callable keeps its signature while the code behind it moves.

A snapshot (``tests/snapshots/public_signatures.json``) holds, for every public function of the
package's modules and every public method of the ``.grade`` namespaces and the engines'
surfaces, what ``inspect.signature`` prints. Code that generates a surface from a table instead
of spelling it out must give the same (the docstrings are held by ``tests/test_namespaces.py``).
After a deliberate change of the public surface, write the snapshot again with
``GRADEFRAME_WRITE_SNAPSHOT=1 pytest tests/test_signatures.py``.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
from pathlib import Path
from typing import Any

import pytest

SNAPSHOT = Path(__file__).parent / "snapshots" / "public_signatures.json"

#: The modules whose public surface is held (optional engines where they import).
MODULES = [
    "gradeframe",
    "gradeframe._polars",
    "gradeframe._pandas",
    "gradeframe.matchers",
    "gradeframe.dask",
    "gradeframe.spark",
    "gradeframe.ray",
]


def _describe(obj: Any) -> str:
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "-"


def _surface(module_name: str) -> dict[str, str]:
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None) or [
        name  # a module without __all__: what it defines, not what it imports
        for name, obj in vars(module).items()
        if not name.startswith("_") and getattr(obj, "__module__", None) == module.__name__
    ]
    out: dict[str, str] = {}
    for name in names:
        obj = getattr(module, name)
        if inspect.isclass(obj):
            if obj.__module__ != module.__name__ and module_name != "gradeframe":
                continue
            for method_name, method in inspect.getmembers(obj, callable):
                if not method_name.startswith("_") and inspect.isfunction(method):
                    out[f"{name}.{method_name}"] = _describe(method)
        elif inspect.isfunction(obj) or callable(obj):
            out[name] = _describe(obj)
    return out


def _current() -> dict[str, dict[str, str]]:
    found = {}
    for module_name in MODULES:
        try:
            found[module_name] = _surface(module_name)
        except ImportError:  # an engine that is not installed
            continue
    return found


def test_public_signatures_and_docstrings_are_unchanged() -> None:
    current = _current()
    if os.environ.get("GRADEFRAME_WRITE_SNAPSHOT") == "1":
        SNAPSHOT.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")
    stored = json.loads(SNAPSHOT.read_text())
    for module_name, surface in current.items():
        if module_name not in stored:
            pytest.fail(f"{module_name} is not in the snapshot; write it again (see the docstring)")
        assert surface == stored[module_name], module_name
