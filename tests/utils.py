"""One test body for every frame type: build frames, read results back as plain Python."""

from __future__ import annotations

import contextlib
import io
import math
import os
import subprocess
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

FRAME_TYPES = ("polars_eager", "polars_lazy", "pandas_object", "pandas_arrow")

Constructor = Callable[[Mapping[str, Sequence[Any]]], Any]


def make_frame(kind: str, data: Mapping[str, Sequence[Any]], schema: Any = None) -> Any:
    """Build a frame of one kind from columns of Python values."""
    if kind == "polars_eager":
        return pl.DataFrame(data, schema=schema, strict=False)
    if kind == "polars_lazy":
        return pl.DataFrame(data, schema=schema, strict=False).lazy()
    if kind == "pandas_object":
        return pd.DataFrame({k: pd.Series(list(v), dtype=object) for k, v in data.items()})
    if kind == "pandas_arrow":
        frame = pl.DataFrame(data, schema=schema, strict=False)
        return frame.to_pandas(use_pyarrow_extension_array=True)
    raise ValueError(kind)


def _plain(value: Any) -> Any:
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return _plain(value.item())
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def to_data(result: Any) -> dict[str, list[Any]]:
    """Read any frame type back as {column: [plain Python values]}."""
    if isinstance(result, dict):
        return result
    if isinstance(result, pl.LazyFrame):
        result = result.collect()
    if isinstance(result, pl.DataFrame):
        return {k: [_plain(v) for v in vs] for k, vs in result.to_dict(as_series=False).items()}
    if isinstance(result, pd.DataFrame):
        return {str(k): [_plain(v) for v in result[k].tolist()] for k in result.columns}
    raise TypeError(type(result))


def assert_equal_data(result: Any, expected: Mapping[str, Sequence[Any]]) -> None:
    """Assert the named columns of a result equal the expected values (other columns ignored)."""
    data = to_data(result)
    for column, values in expected.items():
        assert column in data, f"missing column {column!r}; have {list(data)}"
        assert data[column] == list(values), (
            f"column {column!r}:\n got      {data[column]}\n expected {list(values)}"
        )


#: Fault tests that take seconds or much memory (killed workers, forks, large pages and logs):
#: skipped by the README's quick command, run by `.ci/run` with GRADEFRAME_FAULTS=1.
slow_fault = pytest.mark.skipif(
    not os.environ.get("GRADEFRAME_FAULTS"),
    reason="slow fault test: set GRADEFRAME_FAULTS=1 (.ci/run does)",
)


def run_cli(*args: Any, cwd: Any = None) -> subprocess.CompletedProcess[str]:
    """Run ``gradeframe ARGS`` in this process, as a subprocess would see it.

    The command line's own ``main`` with its output captured, the working folder set for the
    call, Python's default warning filters (a subprocess does not inherit pytest's
    ``filterwarnings=error``), and argparse's exits turned into the exit status. A test that
    needs a real process (signals, the installed script) starts one itself.
    """
    from gradeframe.cli import main

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    argv = [str(arg) for arg in args]
    try:
        if cwd is not None:
            os.chdir(cwd)
        with (
            warnings.catch_warnings(),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
        ):
            warnings.resetwarnings()
            warnings.simplefilter("default")
            try:
                status = main(argv)
            except SystemExit as exc:  # argparse's usage errors and --help
                status = exc.code if isinstance(exc.code, int) else 1 if exc.code else 0
                if isinstance(exc.code, str):
                    err.write(exc.code + "\n")
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(
        ["gradeframe", *argv], status, out.getvalue(), err.getvalue()
    )
