"""Every ``.grade`` method states its function's parameters and shares its docstring."""

from __future__ import annotations

import importlib
import inspect
import sys
from collections.abc import Callable
from typing import Any

import pandas as pd
import polars as pl
import pytest

import gradeframe as gf
from gradeframe import _pandas, _polars
from gradeframe._delegate import delegate_of, sections

NAMESPACES = {
    "polars DataFrame": _polars.DataFrameGrade,
    "polars LazyFrame": _polars.LazyFrameGrade,
    "polars Expr": _polars.ExprGrade,
    "polars Series": _polars.SeriesGrade,
    "pandas DataFrame": _pandas.PandasFrameGrade,
    "pandas Series": _pandas.PandasSeriesGrade,
}

# Namespaces registered by optional modules (the Dask accessor): every class there with a
# delegating method is held to the same rules, when the module can be imported.
for _module_name in ("gradeframe.dask",):
    try:
        _module = importlib.import_module(_module_name)
    except ImportError:
        continue
    for _name, _cls in vars(_module).items():
        if (
            inspect.isclass(_cls)
            and _cls.__module__ == _module.__name__
            and any(delegate_of(f) for _, f in inspect.getmembers(_cls, inspect.isfunction))
        ):
            NAMESPACES[f"{_module_name}.{_name}"] = _cls

METHODS = [
    pytest.param(cls, name, id=f"{where}.{name}")
    for where, cls in NAMESPACES.items()
    for name, _ in inspect.getmembers(cls, inspect.isfunction)
    if not name.startswith("_")
]


def _annotation(value: Any, owner: Callable[..., Any]) -> Any:
    """An annotation evaluated in its module (the text, where it names what is not imported)."""
    if not isinstance(value, str):
        return value
    namespace = vars(sys.modules[owner.__module__])
    try:
        return eval(value, dict(namespace))
    except NameError:
        return value


def _parameters(
    function: Callable[..., Any], *, skip: int, owner: Callable[..., Any] | None = None
) -> list[tuple[Any, ...]]:
    """Each parameter, its annotation evaluated in the module of ``owner`` (or the function)."""
    parameters = list(inspect.signature(function).parameters.values())[skip:]
    module = owner or function
    return [(p.name, p.kind, p.default, _annotation(p.annotation, module)) for p in parameters]


def test_every_method_is_found() -> None:
    assert len(METHODS) >= 24


@pytest.mark.parametrize(("cls", "name"), METHODS)
def test_method_signature_matches_its_function(cls: type, name: str) -> None:
    method = getattr(cls, name)
    function = delegate_of(method)
    assert function is not None, (
        f"{cls.__name__}.{name} is not decorated with @delegates(function): see "
        "gradeframe/_delegate.py"
    )
    # The method drops `self`; the function drops the frame, Series or expression it works on.
    # A method made from a table (_delegate.add_methods) has the function's annotation texts.
    owner = function if inspect.unwrap(method).__module__ == "gradeframe._delegate" else method
    assert _parameters(method, skip=1, owner=owner) == _parameters(function, skip=1)
    assert "kwargs" not in inspect.signature(method).parameters


@pytest.mark.parametrize(("cls", "name"), METHODS)
def test_method_shares_its_function_docstring(cls: type, name: str) -> None:
    method = getattr(cls, name)
    function = delegate_of(method)
    assert function is not None
    description, parts = sections(function.__doc__)
    assert description in (method.__doc__ or "")  # the rule text, word for word
    _, method_parts = sections(method.__doc__)
    assert "Parameters" in method_parts or "Examples" in method_parts
    if "Examples" in parts:
        assert parts["Examples"] in method_parts["Examples"]


@pytest.mark.parametrize(("cls", "name"), METHODS)
def test_method_help_lists_the_methods_parameters_only(cls: type, name: str) -> None:
    method = getattr(cls, name)
    own = list(inspect.signature(method).parameters)[1:]
    _, parts = sections(method.__doc__)
    listed = [
        n.strip()
        for line in parts.get("Parameters", "").splitlines()
        if line and not line[0].isspace()
        for n in line.split(":")[0].split(",")
    ]
    assert set(listed) <= set(own), f"documents {set(listed) - set(own)}, not parameters"
    # every parameter the function documents is documented on the method too
    function = delegate_of(method)
    documented = {
        n.strip()
        for f in (function, *_rule_of(method))
        for line in sections(f.__doc__)[1].get("Parameters", "").splitlines()
        if line and not line[0].isspace()
        for n in line.split(":")[0].split(",")
    }
    assert documented & set(own) <= set(listed)


def _rule_of(method: Callable[..., Any]) -> list[Callable[..., Any]]:
    """The expression function behind a frame method (``doc=`` of @delegates), if any."""
    function = delegate_of(method)
    assert function is not None
    name = function.__name__.removeprefix("with_")
    rule = getattr(gf, name, None) if function.__name__.startswith("with_") else None
    return [rule] if rule is not None else []


@pytest.mark.parametrize(("cls", "name"), METHODS)
def test_method_help_returns_what_the_method_returns(cls: type, name: str) -> None:
    method = getattr(cls, name)
    _, parts = sections(method.__doc__)
    returns = parts.get("Returns", "")
    kind = returns.splitlines()[0] if returns else ""
    annotation = inspect.signature(method).return_annotation
    if annotation == "pl.Expr":
        assert "pl.Expr" in kind
    else:
        assert "Expr" not in kind, f"{cls.__name__}.{name} says it returns {kind}"
    if annotation in ("pl.Series", "pd.Series"):
        assert kind == {"pl.Series": "polars.Series", "pd.Series": "pandas.Series"}[annotation]
        assert "expression" not in returns
    if delegate_of(method).__name__.startswith("with_"):
        assert "with the columns the rule adds" in " ".join(returns.split())


def test_help_of_a_frame_method_describes_the_method_not_the_expression() -> None:
    doc = pl.DataFrame().grade.answer_contains.__doc__ or ""
    _, parts = sections(doc)
    # the method passes the frame's schema itself: no `schema` entry
    assert "\nschema\n" not in f"\n{parts['Parameters']}\n"
    assert "\nschema\n" in f"\n{sections(gf.answer_contains.__doc__)[1]['Parameters']}\n"
    assert parts["Returns"].startswith("polars.DataFrame or polars.LazyFrame\n")
    assert "pl.Expr" not in parts["Returns"]
    # one source for the rule text: the expression function's description is there verbatim
    assert sections(gf.answer_contains.__doc__)[0] in doc
    pandas_doc = pd.DataFrame().grade.answer_contains.__doc__ or ""
    assert sections(pandas_doc)[1]["Returns"].startswith("pandas.DataFrame\n")


@pytest.mark.parametrize("frame_type", ["polars DataFrame", "polars LazyFrame", "pandas DataFrame"])
def test_every_frame_function_has_a_frame_method(frame_type: str) -> None:
    cls = NAMESPACES[frame_type]
    frame_functions = [n.removeprefix("with_") for n in gf.__all__ if n.startswith("with_")]
    missing = [name for name in frame_functions if not hasattr(cls, name)]
    assert not missing


def test_help_shows_the_parameters_of_the_method() -> None:
    doc = pl.DataFrame().grade.within.__doc__ or ""
    assert "delta" in doc
    assert "percent" in doc
    assert str(inspect.signature(pl.DataFrame().grade.within)).startswith(
        "(actual: 'IntoExpr', expected: 'IntoExpr | float', *, delta: 'float | None' = None"
    )


def test_method_errors_name_the_argument_as_passed() -> None:
    frame = pl.DataFrame({"a": [1.0], "b": [1.0]})
    with pytest.raises(ValueError, match="neither"):
        frame.grade.within("a", "b")
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match=r"`answer='respons'`"):
        frame.grade.answer_contains(answer="respons", refs="b")
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match=r"`refs='gold'`"):
        pd.DataFrame({"answer": ["x"]}).grade.answer_contains(refs="gold")
    with pytest.raises(TypeError, match="`prefix`"):
        pd.DataFrame({"answer": ["x"], "refs": ["x"]}).grade.answer_contains(prefix=1)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: pl.DataFrame({"a": ["x"]}).grade.exact_match("a", "a", nope=1), "exact_match"),
        (lambda: pl.DataFrame({"a": ["x"]}).lazy().grade.includes("a", nope=1), "includes"),
        (lambda: pd.DataFrame({"a": ["x"]}).grade.report(nope=1), "report"),
        (lambda: pl.col("a").grade.fold(1), "fold"),
        (lambda: pl.Series(["x"]).grade.extract_number(which="last", nope=1), "extract_number"),
        (lambda: gf.with_f1(pl.DataFrame({"a": ["x"]}), "a", "a", nope=1), "with_f1"),
    ],
)
def test_a_wrong_call_of_a_made_method_names_the_method(call: Any, name: str) -> None:
    # the methods and frame functions made from tables bind the call to their signature first
    with pytest.raises(TypeError, match=rf"^{name}\(\) "):
        call()
