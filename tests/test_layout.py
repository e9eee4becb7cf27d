"""The package's layout: modules a newcomer can read, and no private name crossing a module.

Each module's private names (a leading underscore) are its own business: another module may
import them only from inside the same subpackage (``gradeframe.matchers`` shares its ``_base``
helpers that way). Anything shared across the package has a public name, usually in a private
module (``gradeframe._summary_inputs``).
"""

from __future__ import annotations

import ast
import importlib
import re
import types
from pathlib import Path

import pytest

import gradeframe

PACKAGE = Path(gradeframe.__file__).parent

#: The modules split along their seams, each kept to at most MAX_LINES lines.
SPLIT_MODULES = (
    "answer.py",
    "_record.py",
    "_refs.py",
    "_containment.py",
    "report.py",
    "failures.py",
    "_summary_inputs.py",
)
MAX_LINES = 600


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    """Whether ``name`` (dotted, from gradeframe on) is a module or package of the source tree."""
    path = PACKAGE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _subpackage(module: str, path: Path) -> str:
    """The package a module belongs to ("gradeframe" for a top-level module)."""
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _inside(source: str, package: str) -> bool:
    """Whether ``source`` lies in ``package``, a subpackage (the top level shares nothing)."""
    return package != "gradeframe" and (source == package or source.startswith(package + "."))


def _source(node: ast.ImportFrom, package: str) -> str:
    """The absolute module an ``import from`` reads."""
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def private_imports(path: Path, text: str | None = None) -> list[str]:
    """Private names a module takes from a module outside its own subpackage.

    ``text`` is the module's source (read from ``path`` when not given).
    """
    module = _module_name(path)
    package = _subpackage(module, path)
    found = []
    aliases: dict[str, str] = {}  # a name bound to a gradeframe module -> that module
    tree = ast.parse(path.read_text(encoding="utf-8") if text is None else text)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _source(node, package)
            if source.split(".")[0] != "gradeframe":
                continue
            for alias in node.names:
                name = alias.name
                if _is_module(f"{source}.{name}"):
                    aliases[alias.asname or name] = f"{source}.{name}"
                    continue
                private = name.startswith("_") and not name.startswith("__")
                if private and not _inside(source, package):
                    found.append(f"{module} imports {name} from {source} (line {node.lineno})")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("gradeframe.") and alias.asname:
                    aliases[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            source = aliases[node.value.id]
            if not _inside(source, package) and not _is_module(f"{source}.{node.attr}"):
                found.append(f"{module} reads {source}.{node.attr} (line {node.lineno})")
    return found


SOURCES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_a_private_name_from_outside_its_subpackage(path: Path) -> None:
    assert private_imports(path) == []


def test_the_private_import_check_sees_a_private_name() -> None:
    # the check itself: a top-level module taking report's private helper is caught; importing
    # a private module (matchers/_base) is not taking a private name
    text = (
        "from gradeframe.report import _hidden\nfrom gradeframe import report as r\nr._other\n"
        "from gradeframe.matchers import _base\n"
    )
    found = private_imports(PACKAGE / "_layout_probe.py", text)
    assert found == [
        "gradeframe._layout_probe imports _hidden from gradeframe.report (line 1)",
        "gradeframe._layout_probe reads gradeframe.report._other (line 3)",
    ]


def test_a_module_in_a_subpackage_may_share_its_private_names() -> None:
    text = "from gradeframe.matchers._base import _shared\nfrom ._base import _other\n"
    assert private_imports(PACKAGE / "matchers" / "probe.py", text) == []


@pytest.mark.parametrize(
    "path",
    [PACKAGE / name for name in SPLIT_MODULES] + sorted((PACKAGE / "cli").glob("*.py")),
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_a_split_module_stays_at_most_600_lines(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.name} has {lines} lines"


# --------------------------------------------------------------------------------------------
# The map of the modules in docs/how-it-works.md, and the names the docs use
# --------------------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
MAP_ENTRY = re.compile(r"^- `([\w/]+\.py)`: \S", re.MULTILINE)


def _map_of_the_modules() -> list[str]:
    text = (ROOT / "docs" / "how-it-works.md").read_text(encoding="utf-8")
    section = text.partition("\n## Where things are\n")[2].partition("\n## ")[0]
    return MAP_ENTRY.findall(section)


def test_where_things_are_names_every_module_once() -> None:
    mapped = _map_of_the_modules()
    modules = {path.relative_to(PACKAGE).as_posix() for path in SOURCES}
    assert sorted(set(modules) - set(mapped)) == [], "modules missing from the map"
    assert sorted(set(mapped) - set(modules)) == [], "the map names modules that do not exist"
    assert len(mapped) == len(set(mapped))


#: A dotted name in backticks (`gradeframe.compare.agreement`, maybe called), or an import of one
#: (`from gradeframe.extract import BOXED_DEPTH`).
DOTTED = re.compile(r"`(gradeframe(?:\.[A-Za-z_]\w*)+)(?:\([^`]*\))?`")
IMPORTED = re.compile(r"`from (gradeframe(?:\.\w+)*) import (\w+)`")
OPTIONAL = {"dask", "pyspark", "inspect_ai", "anyio", "altair"}


def _names_in_the_docs() -> list[tuple[str, str]]:
    found = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        found += [(page.name, m.group(1)) for m in DOTTED.finditer(text)]
        found += [
            (page.name, f"from {m.group(1)} import {m.group(2)}") for m in IMPORTED.finditer(text)
        ]
    return sorted(set(found))


def _resolve(name: str) -> object:
    """Resolve a name as Python does: attribute by attribute (importing submodules on demand)."""
    if name.startswith("from "):
        module, _, attribute = name.removeprefix("from ").partition(" import ")
        return getattr(importlib.import_module(module), attribute)
    head, *parts = name.split(".")
    found: object = importlib.import_module(head)
    for part in parts:
        if not hasattr(found, part) and isinstance(found, types.ModuleType):
            importlib.import_module(f"{found.__name__}.{part}")  # `import gradeframe.dask`
        found = getattr(found, part)
    return found


@pytest.mark.parametrize(("page", "name"), _names_in_the_docs(), ids=lambda v: v)
def test_a_name_the_docs_use_resolves(page: str, name: str) -> None:
    try:
        _resolve(name)
    except ImportError as exc:
        if exc.name in OPTIONAL:
            pytest.skip(f"{name} needs {exc.name}")
        raise


def test_the_docs_import_from_a_module_whose_name_a_function_takes() -> None:
    # gradeframe.compare and gradeframe.extract are the functions (they take their modules'
    # names), so `gradeframe.compare.discordant` raises; the docs import from the module instead.
    names = {name for _, name in _names_in_the_docs()}
    assert "gradeframe.compare.discordant" not in names
    assert "from gradeframe.compare import discordant" in names
    assert "from gradeframe.extract import BOXED_DEPTH" in names
