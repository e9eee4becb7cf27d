"""``dir(gradeframe)`` is the public API and the submodules: no name used to build it."""

from __future__ import annotations

import subprocess
import sys
import types

import gradeframe as gf


def _unexpected(module: types.ModuleType) -> list[str]:
    return [
        name
        for name in dir(module)
        if not name.startswith("__")
        and name not in module.__all__
        and not isinstance(getattr(module, name), types.ModuleType)
    ]


def test_dir_of_gradeframe_is_all_and_submodules():
    assert _unexpected(gf) == []
    for leaked in ("sys", "annotations"):
        assert leaked not in dir(gf)
    assert set(gf.__all__) <= set(dir(gf))
    assert gf.__all__ == sorted(gf.__all__)


def test_dir_stays_clean_when_dask_was_imported_first():
    code = (
        "import types, dask.dataframe, gradeframe as gf\n"
        "print([n for n in dir(gf) if not n.startswith('__') and n not in gf.__all__ "
        "and not isinstance(getattr(gf, n), types.ModuleType)])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]"


def test_version_is_the_installed_package_metadata():
    from importlib import metadata

    assert gf.__version__ == metadata.version("gradeframe")
    assert "__version__" not in gf.__all__
