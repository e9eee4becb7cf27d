"""How a ``.grade`` method is tied to the function it runs: one decorator, no copied text.

A namespace method spells out its parameters (so that editors and ``help()`` show them) and is
decorated with :func:`delegates`, which gives it the function's docstring and records the
function, so that ``tests/test_namespaces.py`` can hold the method's signature to the function's
(minus the frame, Series or expression argument: parameter names, kinds, defaults and
annotations must be the same). Adding a method is a few lines in each namespace:

- Polars DataFrame and LazyFrame (``_polars._FrameGrade``), a frame function ``with_f1``::

      @delegates(matcher_rules.with_f1, doc=matcher_rules.f1)
      def f1(self, actual: IntoExpr, expected: IntoExpr, *, threshold: float = 0.5,
             label: str | None = None, prefix: str = "") -> FrameT:
          return matcher_rules.with_f1(self._frame, actual, expected, threshold=threshold,
                                       label=label, prefix=prefix)

- Polars Expr (``_polars.ExprGrade``) and Series (``_polars.SeriesGrade``), an expression
  function ``extract_number(expr, *, which="last")``::

      @delegates(extract_rules.extract_number)
      def extract_number(self, *, which: Which = "last") -> pl.Expr:    # Expr
          return extract_rules.extract_number(self._expr, which=which)

      @delegates(extract_rules.extract_number)
      def extract_number(self, *, which: Which = "last") -> pl.Series:  # Series
          return self._run(extract_rules.extract_number, which=which)

- pandas Series (``_pandas.PandasSeriesGrade``): as the Polars Series, returning ``pd.Series``.
- pandas DataFrame (``_pandas.PandasFrameGrade``): a grading method lists the columns it reads
  with their roles and calls ``self._add_columns(function, OUTPUT_COLUMNS, arguments, ...)``
  (see ``within`` there).
- The summary methods of a frame (``report``, ``failures``, ``chart``, ``compare``,
  ``agreement``, ``compare_chart``) call their function on ``self._frame``; they are written
  once, in ``_summary.SummaryMethods``, which the Polars and pandas frame namespaces share.

``doc=`` names the function whose docstring documents the rule in full, when ``function`` is a
thin frame wrapper; the method's docstring is ``function``'s followed by ``doc``'s.
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
