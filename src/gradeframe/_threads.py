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

Every public call passes through :func:`one_at_a_time`, which makes it the place for two more
things that concern the whole process:

- **fork.** Polars' thread pool does not survive ``fork``: in a child forked from a process
  that had run a Polars query, any query hangs for ever. A grading call marks this process as
  one that ran Polars; a child forked after that (``os.fork``, ``multiprocessing``'s "fork"
  start method) refuses every grading call with :class:`RuntimeError` saying to use "spawn" or
  "forkserver", instead of hanging. A child forked before any grading call grades normally.
  Either way the child gets a fresh lock (a thread of the parent may hold it).
- **Ctrl-C.** While a call runs on the main thread, Python's C-level signal handler also
  writes each signal's number to a pipe of ours (:func:`signal.set_wakeup_fd`), so a callback
  running on one of Polars' threads, where no ``KeyboardInterrupt`` is ever raised, can notice
  Ctrl-C (:func:`interrupted`) and stop (the symbolic fallback's wait does). The previous
  wake-up file is put back afterwards, and any byte meant for it is passed on.
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

__all__ = ["interrupted", "one_at_a_time"]

Function = TypeVar("Function", bound=Callable[..., Any])

_lock = threading.RLock()

#: Whether this process (or the one it was forked from) ran a grading call: Polars' pool runs.
_ran_polars = False
#: Whether this process was forked from one that had run a grading call.
_forked_after_polars = False

#: The read end of the pipe Python's signal handler writes to during a call (-1: none).
_wakeup_read = -1
#: Whether SIGINT arrived during the current call (read from the pipe).
_sigint = False
#: Whether SIGINT raises KeyboardInterrupt in this call (Python's default handler is set); a
#: handler of the user's own (a service's graceful stop) is left to decide.
_sigint_raises = False
#: Signal bytes read from the pipe that were not SIGINT, passed on to the previous wake-up fd.
_other_signals = bytearray()

FORKED_MESSAGE = (
    "this process was forked from one that had already run Polars (a gradeframe call), and "
    "Polars' thread pool does not survive fork: any query here would hang for ever. Start "
    "child processes with multiprocessing's 'spawn' or 'forkserver' start method "
    "(multiprocessing.get_context('spawn')), or fork before the first grading call."
)


def _after_fork_in_child() -> None:
    global _lock, _forked_after_polars, _wakeup_read, _sigint  # the child's own state
    _lock = threading.RLock()
    _forked_after_polars = _forked_after_polars or _ran_polars
    _wakeup_read, _sigint = -1, False
    _other_signals.clear()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_after_fork_in_child)


def interrupted() -> bool:
    """Return whether Ctrl-C (SIGINT) arrived during the current grading call.

    Safe from any thread; always false when the call did not start on the main thread.
    """
    global _sigint
    fd = _wakeup_read
    if _sigint or fd < 0:
        return _sigint
    with contextlib.suppress(OSError):  # BlockingIOError: nothing arrived; closed: call over
        for number in os.read(fd, 512):
            if number == signal.SIGINT and _sigint_raises:
                _sigint = True
            else:
                _other_signals.append(number)
    return _sigint


@contextlib.contextmanager
def _watch_signals() -> Iterator[None]:
    """Have signals written to a pipe of ours during the call (main thread only)."""
    global _wakeup_read, _sigint, _sigint_raises
    if threading.current_thread() is not threading.main_thread() or _wakeup_read >= 0:
        yield
        return
    try:
        read, write = os.pipe()
    except OSError:  # out of file descriptors: run without noticing Ctrl-C off the main thread
        yield
        return
    try:
        os.set_blocking(read, False)
        os.set_blocking(write, False)
        previous = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    except (AttributeError, OSError, ValueError):  # Windows: no set_blocking, sockets only
        os.close(read)
        os.close(write)
        yield
        return
    _wakeup_read, _sigint = read, False
    _sigint_raises = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    try:
        yield
    finally:
        interrupted()  # read what is left
        signal.set_wakeup_fd(previous, warn_on_full_buffer=False)
        passed = bytes(_other_signals) + (bytes([signal.SIGINT]) if _sigint else b"")
        if previous >= 0 and passed:
            with contextlib.suppress(OSError):
                os.write(previous, passed)
        _wakeup_read, _sigint = -1, False
        _other_signals.clear()
        os.close(read)
        os.close(write)


def one_at_a_time(function: Function) -> Function:
    """Return ``function`` run under the process-wide grading lock (same signature and doc)."""

    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        global _ran_polars
        if _forked_after_polars:
            raise RuntimeError(FORKED_MESSAGE)
        with _lock:
            _ran_polars = True
            with _watch_signals():
                return function(*args, **kwargs)

    return run  # type: ignore[return-value]
