"""``--cost prices.json|prices.csv``: the prices the report's cost columns are computed at."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl

from gradeframe._cost import PRICE_KEYS, Prices, check_cost
from gradeframe.cli._common import CliError, _first_line


def read_prices(path: Path) -> Prices:
    r"""Read and check a file of prices (dollars per million tokens), erring in the CLI's words.

    A ``.json`` file holds ``{"model": {"input": 3, "output": 15, "cache_read": 0.3,
    "reasoning": 15}, ...}``; a ``.csv`` file has a ``model`` column and some of ``input``,
    ``output``, ``cache_read``, ``reasoning`` (an empty cell is a missing price: 0, as a missing
    key).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "prices.csv").write_text("model,input,output\ngpt,2.5,10\n")
    >>> read_prices(folder / "prices.csv")["gpt"]
    {'input': 2.5, 'output': 10.0, 'cache_read': 0.0, 'reasoning': 10.0}
    """
    where = f"--cost {str(path)!r}"
    suffix = path.suffix.lower()
    if suffix not in (".json", ".csv"):
        msg = f"{where}: a file of prices must be .json or .csv, got {path.suffix or 'no suffix'!r}"
        raise CliError(msg)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        msg = f"{where} cannot be read: {_first_line(exc)}"
        raise CliError(msg) from None
    given: Any
    if suffix == ".json":
        try:
            given = json.loads(text)
        except ValueError as exc:
            msg = f"{where} is not valid JSON: {_first_line(exc)}"
            raise CliError(msg) from None
        if not isinstance(given, dict):
            msg = (
                f"{where} must hold an object of models, each an object of prices "
                f'({", ".join(PRICE_KEYS)}), e.g. {{"gpt": {{"input": 2.5, "output": 10}}}}'
            )
            raise CliError(msg)
    else:
        try:
            given = pl.read_csv(
                path, infer_schema_length=None, schema_overrides={"model": pl.String}
            )
        except (pl.exceptions.PolarsError, OSError) as exc:
            msg = f"{where} is not a readable CSV: {_first_line(exc)}"
            raise CliError(msg) from None
        # A column with one cell that is not a number is read as text: give the numbers back
        # their value, so that the error names the cell that is not one.
        given = [
            {key: _number(value) for key, value in row.items() if value is not None}
            for row in given.to_dicts()
        ]
        given = {row.pop("model"): row for row in given} if _models_unique(given, where) else {}
    try:
        prices = check_cost(given)
    except (TypeError, ValueError) as exc:
        message = _first_line(exc).removeprefix("`cost`: ").removeprefix("`cost` ")
        msg = f"{where}: {message}"
        raise CliError(msg) from None
    assert isinstance(prices, dict)
    return prices


def _number(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return float(value)
    except ValueError:
        return value


def _models_unique(rows: list[dict[str, Any]], where: str) -> bool:
    if rows and "model" not in rows[0]:
        msg = f"{where}: the CSV needs a 'model' column and some of {', '.join(PRICE_KEYS)}"
        raise CliError(msg)
    models = [row["model"] for row in rows]
    twice = sorted({str(m) for m in models if models.count(m) > 1})
    if twice:
        msg = f"{where}: model(s) {twice!r} given more than once"
        raise CliError(msg)
    return True


#: The columns the cost columns read as numbers.
USAGE_COLUMNS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "reasoning_tokens",
    "grader_input_tokens",
    "grader_output_tokens",
    "seconds",
)


def numeric_usage(frame: pl.DataFrame) -> pl.DataFrame:
    """Read the token and seconds columns of a CSV (text cells) as numbers, naming a bad cell."""
    for name in USAGE_COLUMNS:
        if name not in frame.columns or frame.schema[name] != pl.String:
            continue
        text = frame.get_column(name).str.strip_chars()
        number = text.cast(pl.Float64, strict=False)
        bad = text.is_not_null() & (text != "") & number.is_null()
        if bad.any():
            row = int(bad.arg_true()[0])
            msg = f"--cost: the column {name!r} must hold numbers; row {row} has {text[row]!r}"
            raise CliError(msg)
        whole = name != "seconds" and bool((number.drop_nulls() % 1 == 0).all())
        frame = frame.with_columns(number.cast(pl.Int64) if whole else number)
    return frame
