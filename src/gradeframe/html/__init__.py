"""The self-contained HTML page of a graded run.

``df.grade.html(path=None, *, by=None, on=None, title=None, max_failures=5000)`` on a Polars
DataFrame or LazyFrame or a pandas DataFrame, and the same as a function,
:func:`gradeframe.html_report` (this package is ``gradeframe.html``, so the function has a
different name). The page shows what the summary functions return (``report``, ``compare`` and
``discordant``, ``agreement``, ``pass_at_k``/``consistency``/``flaky``, ``failures``); it
computes no figure of its own, so it cannot disagree with them. Its template, CSS and script are
package data in ``templates/``; Jinja2 (the ``html`` extra) is imported only when a page is
rendered, so ``import gradeframe`` does not import it.
"""

from __future__ import annotations

from gradeframe.html._page import Grader, build_page, html_report, write_page

__all__ = ["Grader", "build_page", "html_report", "write_page"]
