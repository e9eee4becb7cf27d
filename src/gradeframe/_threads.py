"""One grading call at a time per process, so that threads grading at once cannot deadlock.

Several rules run a Python callback (``map_batches``) that itself runs a Polars query on part
of a batch (:mod:`gradeframe._subset`, the regex and long-pattern fallbacks). Polars runs such
callbacks on the threads of its own pool, and a callback that waits there for the GIL and then
for that pool can deadlock against a second such query: eight threads grading at once hung for
ever (0 % CPU) in every run, the re-entrant-callback deadlock of pola-rs/polars#27600. Each
grading call alone is safe, so the ``.grade`` methods of frames and Series (Polars, pandas, and
so Dask's partitions) and the module-level frame functions (decorated with
:func:`one_at_a_time` where they are defined, so every import path gets the same function) run
under one process-wide lock:
concurrent calls take turns, each still using all of Polars' threads (on a loaded pool, taking
turns costs little: Polars already runs one call on every core).

The lock is re-entrant (a method that calls another takes it once) and is never taken inside a
callback: the expression form (``gradeframe.answer_contains(...)`` in the user's own
``select``, built when the data arrives by :mod:`gradeframe._deferred`, which never calls a
frame function) and lazy plans collected by the user are not covered (docs/how-it-works.md).
A child made by ``fork`` gets a fresh lock, since a thread of the parent may hold it.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["one_at_a_time"]

Function = TypeVar("Function", bound=Callable[..., Any])

_lock = threading.RLock()


def _new_lock() -> None:
    global _lock  # the child's lock must be a new one
    _lock = threading.RLock()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_new_lock)


def one_at_a_time(function: Function) -> Function:
    """Return ``function`` run under the process-wide grading lock (same signature and doc)."""

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        with _lock:
            return function(*args, **kwargs)

    return run  # type: ignore[return-value]
