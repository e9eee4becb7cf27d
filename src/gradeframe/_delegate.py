"""How a ``.grade`` method is tied to the function it runs: one decorator, no copied text.

A namespace method spells out its parameters (so that editors and ``help()`` show them) and is
decorated with :func:`delegates`, which gives it the function's docstring and records the
function, so that a test can hold the method's signature to the function's (minus the frame,
Series or expression argument)::

    @delegates(matcher_rules.with_within, doc=matcher_rules.within)
    def within(self, actual: IntoExpr, expected: IntoExpr | float, *, delta: float | None = None,
               percent: float | None = None, label: str | None = None, prefix: str = ""):
        return matcher_rules.with_within(self._frame, actual, expected, delta=delta, ...)
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Final, TypeVar

Method = TypeVar("Method", bound=Callable[..., Any])

#: The attribute that names the function a method delegates to.
DELEGATE: Final = "__gradeframe_delegate__"


def delegates(
    function: Callable[..., Any], *, doc: Callable[..., Any] | None = None
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

    Returns
    -------
    Callable
        A decorator that sets ``__doc__`` and returns the method itself (its own signature).
    """

    def decorate(method: Method) -> Method:
        parts = [inspect.cleandoc(f.__doc__ or "") for f in (function, doc) if f is not None]
        method.__doc__ = "\n\n".join(part for part in parts if part)
        setattr(method, DELEGATE, function)
        return method

    return decorate


def delegate_of(method: Callable[..., Any]) -> Callable[..., Any] | None:
    """Return the function a namespace method delegates to (None for any other callable)."""
    return getattr(method, DELEGATE, None)
