"""How a ``.grade`` method is tied to the function it runs: one table, no copied text.

A namespace's methods are made from a table of :mod:`gradeframe._methods` (name, function, the
function documenting the rule) by the class decorator :func:`add_methods`: each method has its
function's signature minus the frame, Series or expression argument (``help()``, editors and
``inspect.signature`` show it), hands its arguments to the namespace's one runner, and is
decorated with :func:`delegates`, which gives it the function's docstring and records the
function (``tests/test_namespaces.py`` holds the method to it). Adding a method is a row in a
table:

- Polars DataFrame and LazyFrame (``_polars._FrameGrade``), and the pandas DataFrame accessor
  (``_pandas.PandasFrameGrade``): a ``with_*`` frame function in ``_methods.GRADING``, run by
  ``_grade`` (the pandas one reads the columns it needs, by their roles: a matcher's
  description says them, ``_pandas._ROLES`` the others').
- Polars Expr and Series, pandas Series: an expression function in ``_methods.TEXT``.
- The summary methods of a frame (``report``, ``failures``, ``chart``, ``compare``...): a row of
  ``_summary.SUMMARIES``; the Polars and pandas frame namespaces share them.

A method written out by hand (Dask's, made from the pandas accessor's) is decorated with
:func:`delegates` directly.

``doc=`` names the function whose docstring documents the rule in full, when ``function`` is a
thin frame wrapper.

The method's docstring is built from those docstrings, so that the rule is written once but
``help(df.grade.within)`` describes the method: the description of ``function`` (and then of
``doc``), word for word; their ``Parameters`` entries for the method's own parameters only
(not the frame, Series or expression, nor a ``schema`` the method passes itself); a
``Returns`` section for the surface (a frame method returns the frame with the added columns,
a Series method a Series); then the remaining sections (``Examples``...) of the rule.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from collections.abc import Callable
from typing import Any, Final, TypeVar

from gradeframe._threads import one_at_a_time

Method = TypeVar("Method", bound=Callable[..., Any])

#: The return annotation of a method that only builds an expression (not run under the lock).
BUILDS: Final = "pl.Expr"

#: The attribute that names the function a method delegates to.
DELEGATE: Final = "__gradeframe_delegate__"


def delegates(
    function: Callable[..., Any], *, doc: Callable[..., Any] | None = None, lock: bool = True
) -> Callable[[Method], Method]:
    """Give a namespace method its function's docstring, and record the function.

    Parameters
    ----------
    function
        The function the method runs: its signature, minus its first argument (the frame,
        Series or expression), is the method's signature.
    doc
        A function whose docstring documents the rule in full (for example the expression form
        :func:`gradeframe.within` behind the frame function ``with_within``); it follows the
        docstring of ``function``.
    lock
        Whether the method runs under the grading lock of :mod:`gradeframe._threads` (a method
        that returns an expression never does). False for a method that waits for other threads
        that grade (Dask's, whose partitions are graded by the pandas methods, which lock).

    Returns
    -------
    Callable
        A decorator that sets ``__doc__`` (see the module's docstring) and returns the method
        (its own signature), run under the grading lock unless ``lock`` is false or it returns
        an expression.
    """

    def decorate(method: Method) -> Method:
        method.__doc__ = method_doc(method, function, doc)
        setattr(method, DELEGATE, function)
        if not lock or method.__annotations__.get("return") == BUILDS:
            return method  # an expression is only built, and may be built inside a callback
        return one_at_a_time(method)

    return decorate


# A numpydoc section heading: a title line underlined with dashes.
_HEADING = re.compile(r"^(\w[\w ]*)\n-+\n", re.MULTILINE)

#: What a method returns, by the return annotation it is written with, for a grading method
#: of a frame (its function is a ``with_*`` frame function).
FRAME_RETURNS: Final = {
    "FrameT": (
        "polars.DataFrame or polars.LazyFrame",
        "The frame it is called on (a LazyFrame stays lazy): same rows and order, with the "
        "columns the rule adds.",
    ),
    "pd.DataFrame": (
        "pandas.DataFrame",
        "The frame it is called on: same rows, order and index, with the columns the rule adds.",
    ),
}

#: A Series method returns a Series where its function returns an expression.
SERIES_RETURNS: Final = {
    "pl.Series": ("polars.Series", "Series"),
    "pd.Series": ("pandas.Series", "Series (with the input's index)"),
    # a pandas Series method whose expression is a struct returns a frame of its fields
    "pd.DataFrame": ("pandas.DataFrame", "DataFrame of fields (with the input's index)"),
}


def sections(docstring: str | None) -> tuple[str, dict[str, str]]:
    """Split a numpydoc docstring into its description and its sections by title, in order."""
    text = inspect.cleandoc(docstring or "")
    found = list(_HEADING.finditer(text))
    description = text[: found[0].start()] if found else text
    parts = {
        match.group(1): text[match.end() : found[i + 1].start() if i + 1 < len(found) else None]
        for i, match in enumerate(found)
    }
    return description.strip(), {title: body.strip("\n") for title, body in parts.items()}


def _entries(body: str) -> list[tuple[list[str], str]]:
    """Return the entries of a Parameters section: (names, the entry's text)."""
    entries: list[tuple[list[str], str]] = []
    for line in body.splitlines():
        if line and not line[0].isspace():
            names = [name.strip() for name in line.split(":")[0].split(",")]
            entries.append((names, line))
        elif entries:
            entries[-1] = (entries[-1][0], f"{entries[-1][1]}\n{line}")
    return entries


def method_doc(
    method: Callable[..., Any], function: Callable[..., Any], doc: Callable[..., Any] | None
) -> str:
    """Return a method's docstring, from its function's (and the rule's) docstrings."""
    rules = [function, doc] if doc is not None else [function]
    described = [sections(rule.__doc__) for rule in rules]
    own = list(inspect.signature(method).parameters)[1:]  # not self
    parameters = [
        text
        for _, parts in described
        for names, text in _entries(parts.get("Parameters", ""))
        if any(name in own for name in names)
    ]
    returns = _returns(method, function, described)
    out = [description for description, _ in described if description]
    if parameters:
        out.append("Parameters\n----------\n" + "\n".join(parameters))
    if returns:
        out.append("Returns\n-------\n" + returns)
    for title, body in described[-1][1].items():  # the rule's other sections (Examples...)
        if title not in ("Parameters", "Returns"):
            out.append(f"{title}\n{'-' * len(title)}\n{body}")
    return "\n\n".join(out)


def _returns(
    method: Callable[..., Any],
    function: Callable[..., Any],
    described: list[tuple[str, dict[str, str]]],
) -> str:
    annotation = inspect.signature(method).return_annotation
    name = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    if function.__name__.startswith("with_") and name in FRAME_RETURNS:
        kind, text = FRAME_RETURNS[name]
        return f"{kind}\n" + textwrap.fill(
            text, 96, initial_indent="    ", subsequent_indent="    "
        )
    returns = next((parts["Returns"] for _, parts in described if "Returns" in parts), "")
    if name in SERIES_RETURNS and returns:
        kind, noun = SERIES_RETURNS[name]
        _, _, text = returns.partition("\n")
        return f"{kind}\n" + re.sub(r"\bexpression\b", noun, text)
    return returns


def forwarding(
    name: str,
    function: Callable[..., Any],
    *,
    returns: str,
    runner: str,
    doc: Callable[..., Any] | None = None,
    lock: bool = True,
) -> Callable[..., Any]:
    """Make the namespace method ``name`` that runs ``function`` through the namespace's runner.

    The method's signature is the function's, minus its first argument (the frame, Series or
    expression), with ``self`` first and ``returns`` as its return annotation; ``help()``,
    editors and ``inspect.signature`` show it as if it were spelled out. A call is checked
    against that signature and then runs ``self.<runner>(function, *args, **kwargs)``, the one
    place where the namespace says how its object is handed to a function. The method is then
    decorated with :func:`delegates` (docstring, recorded function, lock).
    """
    own = list(inspect.signature(function).parameters.values())[1:]
    this = inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    signature = inspect.Signature([this, *own], return_annotation=returns)

    def method(*args: Any, **kwargs: Any) -> Any:
        bind(name, signature, args, kwargs)  # a wrong call raises here, naming the method
        self, *rest = args
        return getattr(self, runner)(function, *rest, **kwargs)

    method.__name__ = name
    method.__signature__ = signature  # type: ignore[attr-defined]
    method.__annotations__ = {
        **{p.name: p.annotation for p in own if p.annotation is not p.empty},
        "return": returns,
    }
    return delegates(function, doc=doc, lock=lock)(method)


def bind(name: str, signature: inspect.Signature, args: Any, kwargs: Any) -> inspect.BoundArguments:
    """Bind a call to a made function's signature; a wrong call raises naming ``name``.

    As Python says it of a function written out: ``exact_match() got an unexpected keyword
    argument 'nope'``.
    """
    try:
        return signature.bind(*args, **kwargs)
    except TypeError as error:
        msg = f"{name}() {error}"
        raise TypeError(msg) from None


def add_methods(
    table: dict[str, tuple[Callable[..., Any], Callable[..., Any] | None]],
    *,
    returns: str | dict[str, str],
    runner: str,
    lock: bool = True,
) -> Callable[[type], type]:
    """Return a class decorator that adds a method per row of ``table`` (see :func:`forwarding`).

    ``table`` maps a method's name to its function and the function documenting the rule (or
    None); ``returns`` is the methods' return annotation, or one per name.
    """

    def decorate(cls: type) -> type:
        for name, (function, doc) in table.items():
            kind = returns if isinstance(returns, str) else returns[name]
            method = forwarding(name, function, returns=kind, runner=runner, doc=doc, lock=lock)
            method.__qualname__ = f"{cls.__qualname__}.{name}"
            setattr(cls, name, method)
        return cls

    return decorate


def insert_section(function: Method, text: str, before: str) -> Method:
    """Put ``text`` (docstring lines written once for many functions) before ``before``.

    ``before`` is a line of the function's docstring with its indentation (a section title
    and its underline); a docstring without it raises, naming the function.
    """
    head, found, tail = (function.__doc__ or "").partition(before)
    if not found:
        msg = f"{function.__name__}'s docstring has no {before.strip()!r} to put text before"
        raise ValueError(msg)
    function.__doc__ = f"{head}{text}{found}{tail}"
    return function


#: The ``Returns`` section of a function that gives a Boolean expression (the detectors).
BOOLEAN_RETURNS: Final = """    Returns
    -------
    pl.Expr
        A Boolean expression.

"""


def returns_boolean(function: Method) -> Method:
    """Put :data:`BOOLEAN_RETURNS` into a function's docstring, before its Examples."""
    return insert_section(function, BOOLEAN_RETURNS, "    Examples\n    --------\n")


#: The ``Parameters`` section of a function whose one argument is the text (``expr``).
TEXT_PARAMETER: Final = """    Parameters
    ----------
    expr
        A column name or a String expression.

"""


def takes_text(function: Method) -> Method:
    """Put :data:`TEXT_PARAMETER` into a function's docstring, before its Returns."""
    return insert_section(function, TEXT_PARAMETER, "    Returns\n    -------\n")


def delegate_of(method: Callable[..., Any]) -> Callable[..., Any] | None:
    """Return the function a namespace method delegates to (None for any other callable)."""
    return getattr(method, DELEGATE, None)
