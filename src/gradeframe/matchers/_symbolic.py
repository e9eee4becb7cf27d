r"""The symbolic fallback of :func:`gradeframe.equivalent`: Math-Verify in worker processes.

Nothing else in gradeframe knows Math-Verify exists. :func:`decide` takes the distinct
(actual, expected) pairs that are not both literals and returns, for each, whether Math-Verify
found them equal and how the pair was decided (``"symbolic"``, ``"timeout"`` or ``"unparsed"``).

How it runs
-----------
- **Never in this process.** Each pair is decided in a worker: a child Python process started
  with :mod:`subprocess` (``python -I -c`` and the worker's source, below), which imports
  Math-Verify, reads pairs from its standard input (one JSON line each) and writes one verdict
  line per pair. The worker imports neither gradeframe nor Polars (a ``multiprocessing``
  "spawn" child would import the parent's main module and gradeframe with it: seconds per
  worker, and a script without an ``if __name__ == "__main__"`` guard would run again).
- **Isolated.** ``-I`` leaves the working folder off the import path and ignores ``PYTHON*``
  variables and the user's site-packages; the worker starts in the temporary folder, and the
  folders this process found Math-Verify and SymPy in are added after the standard library and
  site-packages. A ``json.py`` or ``sympy.py`` in the user's folder is never imported.
- **A budget per pair, no signals.** The parent sends a worker one pair at a time and waits for
  its verdict at most ``timeout`` seconds (a reader thread per worker puts each line on a queue;
  the parent waits on the queue). Past that the pair is ``"timeout"``; the worker is killed
  (``Popen.kill``) unless it answers within :data:`_GRACE` seconds more (then it is kept: a
  restart costs about a second of CPU, so many pairs overrunning a small ``timeout`` by a little
  do not each pay one), and a fresh worker takes the pairs left only when no other can.
  Math-Verify's own timeouts, which use ``signal.alarm`` and fail outside the main thread, are
  switched off in the worker. So a pair that never returns costs ``timeout`` seconds and the
  run goes on, from any thread.
- **Bounded without the parent.** Each worker caps its own address space
  (:func:`memory_limit`: a pair that needs more fails with ``MemoryError``), runs a thread that
  ends it when its parent is gone (SIGKILL, the OOM killer), and before each pair sets its CPU
  limit to what it used plus the pair's budget (``timeout`` + 2 s), so that the kernel stops an
  orphan busy in one C call, where that thread cannot run.
- **The grader's failures.** A pair over the memory cap, or whose worker died on it twice (a
  worker that dies once, killed from outside or crashed, has its pair tried again in a fresh
  one), is ``"timeout"`` like a pair over its time budget: never ``"unparsed"``, which says a
  side could not be read.
- **Workers are kept.** Starting one (Python, SymPy, the ANTLR parser, one small pair decided so
  that the first real pair does not pay for loading) takes about a second, so workers are
  started on first use and kept for later calls (up to one per CPU this process may use, see
  :func:`usable_cpus`, and one per :data:`PAIRS_PER_WORKER` pairs); they exit when this process
  does (their input closes). A forked child starts workers of its own and never touches its
  parent's. :class:`Memo` keeps one call's verdicts, so a pair repeated across batches is sent
  once.
- **Model text is never run as code.** The worker reads both sides with Math-Verify's LaTeX
  extraction only (``LatexExtractionConfig``: the ANTLR LaTeX grammar, which builds SymPy
  objects without Python's ``eval``). Math-Verify's plain-expression extraction, which passes
  text to SymPy's ``parse_expr`` (``eval`` underneath), is not used. In the worker, SymPy's own
  modules that evaluate strings as they load (``sympy.physics.units``: ``Symbol('yotta')``, which
  ``simplify`` imports) are loaded first; then SymPy's ``eval_expr`` (where ``parse_expr`` and
  ``sympify`` of a string end) is replaced by one that evaluates only an allow-list of syntax:
  numbers, strings, arithmetic, tuples and calls of names that are SymPy classes or SymPy
  objects (what SymPy generates: ``Integer (12 )``, ``Symbol ('x' )``). A Python name, an
  attribute, a lambda, a subscript, a statement or a dunder is refused, and a pair where
  anything was refused is ``"unparsed"``, so a refusal never reads as "not equal". A side
  nothing can be read from is ``"unparsed"`` too.
- **Values.** :func:`values` asks for a side's numeric value (exact when it is rational, else
  60 significant digits): a decimal answer against an expression, with a tolerance.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import functools
import importlib.util
import json
import math
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from typing import Final

from gradeframe import _threads

__all__ = [
    "CALLS",
    "MEMORY_LIMIT",
    "PAIRS_PER_WORKER",
    "Memo",
    "available",
    "decide",
    "install_hint",
    "memory_limit",
    "missing_message",
    "usable_cpus",
    "values",
    "versions",
]

#: A worker is started for every this many pairs of a call (up to one per usable CPU).
PAIRS_PER_WORKER: Final = 200
#: Seconds a worker may take to start (import Math-Verify) before the call fails.
START_TIMEOUT: Final = 120.0
#: The most address space a worker may use, in bytes (see :func:`memory_limit`): a pair that
#: needs more (``2^{2^{40}}``) fails fast with MemoryError and is not decided ("timeout").
MEMORY_LIMIT: Final = 2 * 2**30

#: How many pairs have been sent to the engine in this process (for benchmarks and tests).
CALLS = 0

#: The worker's program. It reads ``[actual, expected]`` JSON lines and writes one verdict line
#: (``"true"``, ``"false"`` or ``"unparsed"``) per pair; first it writes ``"ready"``.
_WORKER: Final = r"""
import ast, json, logging, os, sys, threading, time
logging.disable(logging.CRITICAL)
_SETUP = json.loads(sys.argv[1])
# started with -I (no working folder, no PYTHON* variables, no user site): the folders the
# parent found Math-Verify and SymPy in come last, after the standard library and site-packages
sys.path.extend(p for p in _SETUP["paths"] if p not in sys.path)
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)  # numbers of any length, as the literal path reads them
try:
    import resource
except ImportError:  # not on Windows
    resource = None


def _cap(limit, value):
    soft, hard = resource.getrlimit(limit)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(limit, (value, hard))


if resource is not None and _SETUP["memory"]:
    try:
        _cap(resource.RLIMIT_AS, _SETUP["memory"])
    except (ValueError, OSError):
        pass


def _watch(parent):
    # the parent died (SIGKILL, the OOM killer): this worker is an orphan and stops now
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(3)


threading.Thread(target=_watch, args=(_SETUP["parent"],), daemon=True).start()
try:
    import sympy
    import sympy.parsing.sympy_parser as _parser
    # SymPy's own modules that evaluate strings while they load (units: Symbol('yotta'), ...)
    # are loaded before the guard is installed: SymPy's work is never refused.
    import sympy.physics.units  # noqa: F401
    from math_verify import LatexExtractionConfig, parse, verify

    # parse_expr and sympify(str) end in eval_expr. Only an expression built of numbers,
    # strings, arithmetic and calls of SymPy's own classes and constants may be evaluated
    # (what SymPy generates: "Integer (12 )", "Symbol ('x' )*Float ('1.5' )"); any other code
    # (a name of Python's, an attribute, a lambda, a statement, a dunder) is refused.
    _eval_expr = _parser.eval_expr
    _NODES = (ast.Expression, ast.Constant, ast.Name, ast.Load, ast.Call, ast.BinOp,
              ast.UnaryOp, ast.Tuple, ast.List, ast.operator, ast.unaryop, ast.keyword)
    _REFUSED = []

    def _allowed_name(name, local_dict, global_dict):
        if name.startswith("_"):
            return False
        for table in (local_dict or {}, global_dict or {}):
            if name in table:
                value = table[name]
                break
        else:
            return False
        if isinstance(value, sympy.Basic):
            return True
        return isinstance(value, type) and issubclass(value, sympy.Basic)

    def _guarded(code, local_dict, global_dict):
        try:
            tree = ast.parse(code.strip(), mode="eval")
        except SyntaxError:
            tree = None
        ok = tree is not None and all(
            isinstance(node, _NODES)
            and (not isinstance(node, ast.Name)
                 or _allowed_name(node.id, local_dict, global_dict))
            and (not isinstance(node, ast.Call) or isinstance(node.func, ast.Name))
            and (not isinstance(node, ast.keyword) or node.arg is not None)
            for node in ast.walk(tree)
        )
        if not ok:
            _REFUSED.append(code)
            raise ValueError("gradeframe: text is never evaluated as Python")
        return _eval_expr(code, local_dict, global_dict)

    _parser.eval_expr = _guarded
except Exception as error:  # noqa: BLE001
    sys.stdout.write(json.dumps(["error", repr(error)]) + "\n")
    sys.stdout.flush()
    raise SystemExit(1)
_CONFIG = [LatexExtractionConfig()]


def _read(text):
    wrapped = "\\boxed{" + text + "}" if "$" in text else "$" + text + "$"
    return parse(wrapped, extraction_config=_CONFIG, fallback_mode="no_fallback",
                 parsing_timeout=None)


def _verify(actual, expected):
    gold, answer = _read(expected), _read(actual)
    if not gold or not answer:
        return "unparsed"
    same = verify(gold, answer, timeout_seconds=None)
    return "true" if same else "false"


def _value(text):
    # the exact value ("p/q") of a number, or 60 significant digits; "none" when not a number
    found = _read(text)
    if not found:
        return "unparsed"
    expr = found[0]
    if not isinstance(expr, sympy.Expr) or expr.free_symbols:
        return "none"
    expr = sympy.simplify(expr.doit())
    if expr.is_Rational:
        return str(expr.p) + "/" + str(expr.q)
    number = sympy.N(expr, 60)
    if not number.is_real or not number.is_finite:
        return "none"
    return str(sympy.Float(number, 60))


def _answer(kind, first, second):
    del _REFUSED[:]
    try:
        answer = _verify(first, second) if kind == "verify" else _value(first)
    except MemoryError:  # over the memory cap: the pair is not decided (not unreadable)
        return "memory"
    except Exception:  # noqa: BLE001
        return "unparsed"
    # text the guard refused could not be read: never a "false" verdict
    return "unparsed" if _REFUSED else answer


def _budget(seconds):
    # CPU seconds this pair may use: an orphan busy in C code (where the watchdog thread cannot
    # run) is stopped by the kernel (SIGXCPU) within its budget
    if resource is None:
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    try:
        _cap(resource.RLIMIT_CPU, int(usage.ru_utime + usage.ru_stime) + seconds)
    except (ValueError, OSError):
        pass


_answer("verify", "x+1", "1+x")  # load what the first pair would (no cold start in a budget)
sys.stdout.write(json.dumps(["ready", ""]) + "\n")
sys.stdout.flush()
for line in sys.stdin:
    kind, first, second, seconds = json.loads(line)
    _budget(seconds)
    sys.stdout.write(json.dumps(["verdict", _answer(kind, first, second)]) + "\n")
    sys.stdout.flush()
"""


def available() -> bool:
    """Return whether Math-Verify is installed (without importing it)."""
    return importlib.util.find_spec("math_verify") is not None


def install_hint() -> str:
    """Return what to install for the symbolic fallback."""
    return "pip install 'gradeframe[math]'"


def missing_message() -> str:
    """Return the two-line error for a missing Math-Verify."""
    return (
        "`equivalent` needs Math-Verify for answers that are not plain numbers.\n"
        f"Install it with: {install_hint()} (or pass fallback=None)."
    )


def versions() -> dict[str, str]:
    """Return the installed versions of Math-Verify, SymPy and the ANTLR runtime (or "")."""
    from importlib import metadata

    found = {}
    for name in ("math-verify", "sympy", "antlr4-python3-runtime", "latex2sympy2_extended"):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = ""
    return found


def usable_cpus() -> int:
    """Return how many CPUs this process may run on (its affinity and cgroup cpusets counted)."""
    count = getattr(os, "process_cpu_count", None)  # Python 3.13+
    if count is not None:
        return count() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def memory_limit() -> int:
    """Return the address space a worker may use, in bytes (:data:`MEMORY_LIMIT`, or less).

    A quarter of the machine's memory when that is less, and never under 1 GiB (SymPy and the
    ANTLR parser need about 300 MB of it to start).
    """
    try:
        ram = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return MEMORY_LIMIT
    return max(min(MEMORY_LIMIT, ram // 4), 2**30)


@functools.cache
def _engine_paths() -> tuple[str, ...]:
    """Return the folders Math-Verify and its dependencies are imported from, here."""
    found: list[str] = []
    for name in ("math_verify", "latex2sympy2_extended", "sympy", "mpmath", "antlr4"):
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None or spec.origin is None:
            continue
        folder = os.path.dirname(os.path.dirname(os.path.abspath(spec.origin)))
        if spec.submodule_search_locations is None:  # a module, not a package
            folder = os.path.dirname(os.path.abspath(spec.origin))
        if folder not in found:
            found.append(folder)
    return tuple(found)


def _command() -> list[str]:
    """Return the worker's command line: isolated mode, the source, its settings as JSON."""
    setup = {"paths": list(_engine_paths()), "memory": memory_limit(), "parent": os.getpid()}
    return [sys.executable, "-I", "-c", _WORKER, json.dumps(setup)]


class _Worker:
    """One worker process, with a reader thread putting its lines on the pool's queue."""

    def __init__(self, serial: int, lines: queue.Queue[tuple[int, list[str] | None]]) -> None:
        self.serial = serial
        self.process = subprocess.Popen(
            _command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            encoding="utf-8",
            bufsize=1,
            cwd=tempfile.gettempdir(),  # a neutral folder, not the user's
        )
        self.ready = False
        self.pair: int | None = None  # the index of the pair it is deciding
        self.late: float | None = None  # overran its pair: killed at this time unless it answers
        self.deadline = 0.0
        self.started = time.monotonic()
        self.reader = threading.Thread(target=self._read, args=(lines,), daemon=True)
        self.reader.start()

    def _read(self, lines: queue.Queue[tuple[int, list[str] | None]]) -> None:
        stream = self.process.stdout
        assert stream is not None
        for line in stream:
            try:
                lines.put((self.serial, json.loads(line)))
            except ValueError:
                continue
        lines.put((self.serial, None))  # end of output: the worker exited

    def send(self, index: int, request: tuple[str, str, str], timeout: float) -> None:
        stream = self.process.stdin
        assert stream is not None
        self.pair = index
        self.deadline = time.monotonic() + timeout
        # the worker's own CPU budget: past the parent's, so the parent's kill comes first
        budget = math.ceil(timeout) + 2
        with contextlib.suppress(OSError):  # a dead worker: its reader reports the end
            stream.write(json.dumps([*request, budget]) + "\n")
            stream.flush()

    def kill(self) -> None:
        """Kill the process, and close its pipes once the reader has seen their end."""
        self.process.kill()
        self.process.wait()
        self.reader.join(timeout=5)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()


class _Pool:
    """The workers of this process, used by one call at a time."""

    def __init__(self) -> None:
        self.pid = os.getpid()  # a forked child starts a pool of its own (see _after_fork)
        self.lock = threading.Lock()
        self.lines: queue.Queue[tuple[int, list[str] | None]] = queue.Queue()
        self.workers: dict[int, _Worker] = {}
        self.serial = 0

    def start(self) -> _Worker:
        self.serial += 1
        worker = _Worker(self.serial, self.lines)
        self.workers[worker.serial] = worker
        return worker

    def retire(self, worker: _Worker) -> None:
        self.workers.pop(worker.serial, None)
        worker.kill()

    def close(self) -> None:
        if self.pid != os.getpid():  # the parent's workers, pipes and threads: not ours
            return
        for worker in list(self.workers.values()):
            self.retire(worker)

    def decide(self, pairs: Sequence[tuple[str, str, str]], timeout: float) -> list[str]:
        """Return each request's verdict (see :func:`_run`)."""
        for worker in list(self.workers.values()):  # leftovers of a call that was interrupted
            if worker.pair is not None or worker.late or worker.process.poll() is not None:
                self.retire(worker)
        return _Call(self, pairs, timeout).run()


class _Call:
    """One call's pairs going through the pool's workers."""

    def __init__(self, pool: _Pool, pairs: Sequence[tuple[str, str, str]], timeout: float) -> None:
        self.pool, self.pairs, self.timeout = pool, pairs, timeout
        self.verdicts: list[str | None] = [None] * len(pairs)
        self.wanted = max(1, min(usable_cpus(), -(-len(pairs) // PAIRS_PER_WORKER)))
        self.waiting = collections.deque(range(len(pairs)))
        self.retried: set[int] = set()  # pairs whose worker died once
        self.left = len(pairs)
        self.deaths = 0  # workers that died before they were ready

    def run(self) -> list[str]:
        workers = self.pool.workers
        while len(workers) < self.wanted:
            self.pool.start()
        for worker in list(workers.values()):
            if worker.ready:
                self.feed(worker)
        while self.left:
            if _threads.interrupted():  # Ctrl-C while Polars runs this on a thread of its own
                raise KeyboardInterrupt
            if not workers:  # every worker died or was killed: start one for the rest
                self.pool.start()
            try:
                serial, message = self.pool.lines.get(timeout=self.wait())
            except queue.Empty:
                serial, message = 0, None
            worker = workers.get(serial)
            if worker is not None and message is not None:
                self.answered(worker, message)
            elif worker is not None:
                self.died(worker)
            self.overran()
        return [v or "unparsed" for v in self.verdicts]

    def wait(self) -> float:
        """Return how long to wait for a line: until the next deadline, at most :data:`_POLL`."""
        now = time.monotonic()
        waits = [
            (
                w.deadline
                if w.pair is not None
                else w.late
                if w.late is not None
                else w.started + START_TIMEOUT
            )
            - now
            for w in self.pool.workers.values()
            if w.pair is not None or w.late is not None or not w.ready
        ]
        return max(0.0, min(min(waits, default=1.0), _POLL))

    def feed(self, worker: _Worker) -> None:
        if self.waiting:
            index = self.waiting.popleft()
            worker.send(index, self.pairs[index], self.timeout)

    def settle(self, index: int, verdict: str) -> None:
        self.verdicts[index] = verdict
        self.left -= 1

    def replace(self) -> None:
        """Start a worker only while no other can take the pairs left (a start costs ~1 s)."""
        workers = self.pool.workers.values()
        live = [w for w in workers if w.ready or w.pair is not None]
        starting = len(workers) - len(live)
        if self.waiting and not starting and len(live) < min(self.wanted, len(self.waiting)):
            self.pool.start()

    def answered(self, worker: _Worker, message: list[str]) -> None:
        kind, value = message
        if kind == "error":
            self.pool.retire(worker)
            msg = f"the symbolic fallback could not start Math-Verify: {value}"
            raise ImportError(msg)
        if kind == "ready":
            worker.ready = True
        elif worker.pair is not None:
            self.settle(worker.pair, value)
            worker.pair = None
        worker.late = None  # a late verdict is dropped: its pair is "timeout" already
        self.feed(worker)

    def died(self, worker: _Worker) -> None:
        """Retire a worker that died (killed from outside, a crash); try its pair once more."""
        self.pool.retire(worker)
        self.deaths += not worker.ready
        if self.deaths > _START_DEATHS:
            msg = "the symbolic fallback's workers died as they started (Math-Verify)"
            raise RuntimeError(msg)
        if worker.pair is not None:
            if worker.pair in self.retried:  # twice: the pair is not decided
                self.settle(worker.pair, "died")
            else:  # once: the pair is tried again in a fresh worker
                self.retried.add(worker.pair)
                self.waiting.appendleft(worker.pair)
        if self.left:
            self.pool.start()

    def overran(self) -> None:
        """Settle the pairs past their deadline; kill the workers past their grace."""
        now = time.monotonic()
        for late in list(self.pool.workers.values()):
            if late.pair is not None and now >= late.deadline:
                # the pair is "timeout" now; the worker is killed unless it answers within
                # _GRACE s (then it is kept: a restart costs more than a small overrun)
                self.settle(late.pair, "timeout")
                late.pair, late.late = None, now + _GRACE
            elif late.late is not None and now >= late.late:
                self.pool.retire(late)
                if self.left:
                    self.replace()
            elif not late.ready and now >= late.started + START_TIMEOUT:
                self.pool.retire(late)
                msg = f"the symbolic fallback's worker did not start in {START_TIMEOUT} s"
                raise RuntimeError(msg)


#: How many workers may die before they are ready, in one call, before the call fails.
_START_DEATHS: Final = 3
#: Seconds a worker that overran its pair may still answer before it is killed.
_GRACE: Final = 0.5
#: The longest the parent waits on its workers before looking for Ctrl-C again, in seconds.
_POLL: Final = 0.1

_POOL = _Pool()
#: In a forked child: the pools of the processes it was forked from (see :func:`_after_fork`).
_PARENTS: list[_Pool] = []


def _close() -> None:
    _POOL.close()


def _after_fork() -> None:
    """In a forked child: a pool of its own; the parent's is left alone (never waited on)."""
    global _POOL
    # kept, never freed here: freeing would close the parent's pipes, whose locks a reader
    # thread of the parent (absent in the child) may hold, and closing would wait for ever
    _PARENTS.append(_POOL)
    _POOL = _Pool()


atexit.register(_close)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


class Memo:
    """The verdicts of one grading call, so that each distinct request is sent once per call.

    Under the streaming engine a call sees many batches; a pair repeated across them is
    decided once. Safe from several threads (one batch at a time asks the engine).
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.verdicts: dict[tuple[str, str, str], str] = {}


def _run(
    requests: Sequence[tuple[str, str, str]], timeout: float, memo: Memo | None = None
) -> list[str]:
    """Send requests to the workers; return their answers in order.

    An answer is ``"true"``, ``"false"``, ``"unparsed"``, a value (:func:`values`), or one of
    the engine's failures: ``"timeout"`` (over the time budget), ``"memory"`` (over the memory
    cap) or ``"died"`` (the worker died twice on the pair).
    """
    global CALLS
    if not available():
        raise ImportError(missing_message())
    memo = memo if memo is not None else Memo()
    with memo.lock:
        asked = list(dict.fromkeys(r for r in requests if r not in memo.verdicts))
        if asked:
            CALLS += len(asked)
            with _POOL.lock:
                try:
                    found = _POOL.decide(asked, timeout)
                except BaseException:
                    _POOL.close()  # no worker is left holding a half-sent pair
                    raise
            memo.verdicts.update(zip(asked, found, strict=True))
        return [memo.verdicts[r] for r in requests]


#: The engine's failures: the pair was not decided (the grader failed, not the answer).
_FAILED: Final = ("timeout", "memory", "died")


def decide(
    pairs: Sequence[tuple[str, str]], *, timeout: float, memo: Memo | None = None
) -> list[tuple[bool, str]]:
    """Decide distinct (actual, expected) pairs with Math-Verify, each within ``timeout`` s.

    Returns, per pair, ``(correct, method)``: ``(True|False, "symbolic")``; ``(False,
    "timeout")`` when the engine could not decide the pair: it overran its time budget (its
    worker is killed), its memory cap, or its worker died on it twice; or ``(False,
    "unparsed")`` when Math-Verify could not read a side. ``memo`` keeps verdicts across the
    batches of one call.
    """
    if not pairs:
        return []
    verdicts = _run([("verify", a, b) for a, b in pairs], timeout, memo)
    return [
        (True, "symbolic")
        if v == "true"
        else (False, "symbolic")
        if v == "false"
        else (False, "timeout" if v in _FAILED else "unparsed")
        for v in verdicts
    ]


def values(texts: Sequence[str], *, timeout: float, memo: Memo | None = None) -> list[str]:
    """Return each text's numeric value as Math-Verify reads it, each within ``timeout`` s.

    A value is ``"p/q"`` (exact) or a decimal of 60 significant digits; ``"none"`` when the
    text is read but is not one real number, ``"unparsed"``, or ``"timeout"`` when the engine
    could not decide (as in :func:`decide`).
    """
    if not texts:
        return []
    found = _run([("value", t, "") for t in texts], timeout, memo)
    return ["timeout" if v in _FAILED else v for v in found]
