"""The graders ``gradeframe score --grader NAME`` runs, and what the command line does first.

:data:`GRADERS` maps each name to the frame function it runs, called as
``function(frame, answer, expected, **options, prefix=...)``: ``answer_contains`` with the
answer and the acceptable answers, a matcher with the answer and the ``--expected`` column.
The function's keyword-only parameters (other than ``prefix`` and the record columns that have
flags of their own) are the options ``--option KEY=VALUE`` may set, so a new grader is one
line here: its name and its frame function.

``--extract`` applies an extraction to the answer before grading (:func:`extracted_answer`).
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Callable
from typing import Any, Final

import polars as pl

from gradeframe import answer as answer_rules
from gradeframe import extract as extract_rules
from gradeframe import matchers
from gradeframe._inputs import struct_fields
from gradeframe._refs import number_text
from gradeframe.cli._common import CliError


def _with_matches(
    frame: Any,
    actual: Any,
    expected: Any,
    *,
    pattern: str | None = None,
    label: str | None = None,
    prefix: str = "",
) -> Any:
    """Run ``matches`` as a grader.

    The pattern comes from ``--option pattern=REGEX``, else per row from the ``--expected``
    column.
    """
    if pattern is not None:
        return matchers.with_matches(frame, actual, pattern, label=label, prefix=prefix)
    return matchers.with_matches(frame, actual, pattern_column=expected, label=label, prefix=prefix)


#: The graders by name: each is one line, its name and its frame function.
GRADERS: Final[dict[str, Callable[..., Any]]] = {
    "answer_contains": answer_rules.with_answer_contains,
    "exact_match": matchers.with_exact_match,
    "includes": matchers.with_includes,
    "matches": _with_matches,
    "within": matchers.with_within,
    "choice": matchers.with_choice,
    "f1": matchers.with_f1,
    "equivalent": matchers.with_equivalent,
    "tool_calls": matchers.with_tool_calls,
}

#: The grader ``--grader`` defaults to.
DEFAULT_GRADER: Final = "answer_contains"

#: Keyword-only parameters that are no ``--option``: the prefix (``--prefix``) and the record
#: columns (``--partial``, ``--notes``, ``--trace``, ``--status``, ``--failure-kind``).
_NOT_OPTIONS: Final = frozenset({"prefix", "partial", "notes", "trace", "status", "failure_kind"})

#: The extractions ``--extract`` names; anything else is a regular expression.
EXTRACTIONS: Final = ("boxed", "answer", "number")


def grader(name: str) -> Callable[..., Any]:
    """Return the frame function of ``--grader NAME``, or raise naming the graders."""
    if name not in GRADERS:
        msg = f"--grader {name}: there is no such grader; the graders are {', '.join(GRADERS)}"
        raise CliError(msg)
    return GRADERS[name]


def grader_options(name: str) -> list[str]:
    """Return the options ``--option`` may set for a grader, in the function's order."""
    parameters = inspect.signature(GRADERS[name]).parameters.values()
    return [
        p.name
        for p in parameters
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name not in _NOT_OPTIONS
    ]


def option_value(text: str) -> Any:
    """Read an option's value: JSON when it parses as JSON (``false``, ``0.5``), else text.

    Examples
    --------
    >>> [option_value(v) for v in ("false", "0.5", "ABCD", '"1234"', "null")]
    [False, 0.5, 'ABCD', '1234', None]
    """
    try:
        return json.loads(text)
    except ValueError:
        return text


def _text_options(name: str) -> set[str]:
    """Return the options of a grader that take text (``letters``, ``label``, ``pattern``, ...).

    An option is text when its default is text or its annotation is ``str``.
    """
    parameters = inspect.signature(GRADERS[name]).parameters
    return {
        key
        for key in grader_options(name)
        if isinstance(parameters[key].default, str)
        or str(parameters[key].annotation).startswith("str")
    }


def parse_options(name: str, given: list[str] | None) -> dict[str, Any]:
    """Read ``--option KEY=VALUE`` (repeatable) for a grader; raise on an unknown key.

    An option that takes text keeps a value that reads as a JSON number or Boolean as it was
    typed (``letters=1234``, ``label=2024``); ``null`` is still None.

    Examples
    --------
    >>> parse_options("choice", ["letters=1234", "label=null"])
    {'letters': '1234', 'label': None}
    >>> parse_options("within", ["delta=0.5"])
    {'delta': 0.5}
    """
    known = grader_options(name)
    text_options = _text_options(name)
    options: dict[str, Any] = {}
    for item in given or []:
        key, equals, value = item.partition("=")
        key = key.strip()
        if not equals or not key:
            msg = f"--option {item}: write KEY=VALUE, for example --option {known[0]}=..."
            raise CliError(msg)
        if key not in known:
            msg = (
                f"--option {item}: {name} has no option {key!r}; its options are {', '.join(known)}"
            )
            raise CliError(msg)
        if key in options:
            msg = f"--option {key} is given twice"
            raise CliError(msg)
        read = option_value(value)
        if key in text_options and isinstance(read, (bool, int, float)):
            read = value  # as typed: "1234" are four option letters, not a number
        options[key] = read
    return options


def options_in_cli_words(name: str, message: str) -> str:
    """Rewrite a grader's error in the command line's words (``--option delta``, not ```delta```).

    Examples
    --------
    >>> options_in_cli_words("within", "`within` needs exactly one of `delta` and `percent`.")
    '`within` needs exactly one of --option delta and --option percent.'
    >>> options_in_cli_words("exact_match", "`fold=True` cannot be combined with strip=False.")
    '--option fold=true cannot be combined with --option strip=false.'
    >>> options_in_cli_words("within", "`expected`: column 'refs' has dtype List(String)")
    "--expected: column 'refs' has dtype List(String)"
    """
    if name not in GRADERS:
        return message
    if name != DEFAULT_GRADER:  # a matcher's compared columns are --answer and --expected
        message = message.replace("`actual`", "--answer").replace("`expected`", "--expected")
    for key in sorted(grader_options(name), key=len, reverse=True):
        message = re.sub(
            rf"`{key}=(True|False)`|(?<![\w`-]){key}=(True|False)\b",
            lambda m, key=key: f"--option {key}={(m.group(1) or m.group(2)).lower()}",
            message,
        )
        message = re.sub(rf"`{key}=([^`]*)`", rf"--option {key}=\1", message)
        message = re.sub(rf"`{key}`", f"--option {key}", message)
    return message


def _regex_groups(pattern: str) -> int:
    try:
        return re.compile(pattern).groups
    except re.error as exc:
        msg = f"--extract {pattern}: not a regular expression ({exc})"
        raise CliError(msg) from None


def _extract_text(text: pl.Expr, how: str) -> pl.Expr:
    """Return the extraction ``--extract`` names, as text."""
    if how == "boxed":
        return extract_rules.extract_boxed(text)
    if how == "answer":
        return extract_rules.extract_answer(text)
    if how == "number":
        return number_text(extract_rules.extract_number(text), pl.Float64())
    group = 1 if _regex_groups(how) else 0
    return extract_rules.extract(text, how, group=group)


#: The column ``--extract`` adds (after ``--prefix``): the text graded.
EXTRACTED: Final = "extracted"


def _answer_dtype(schema: pl.Schema, answer: str | pl.Expr) -> pl.DataType:
    expr = pl.col(answer) if isinstance(answer, str) else answer
    return pl.LazyFrame(schema=schema).select(expr).collect_schema().dtypes()[0]


def extracted_text(schema: pl.Schema, answer: str | pl.Expr, how: str) -> pl.Expr:
    """Return what ``--extract`` takes from the answer, as text (null where nothing is found).

    An output record (a struct) is read by its ``answer`` field, else its ``text``.
    """
    expr = pl.col(answer) if isinstance(answer, str) else answer
    fields = struct_fields(_answer_dtype(schema, answer))
    if not fields:
        return _extract_text(expr.cast(pl.String), how)
    sources = [expr.struct.field(f).cast(pl.String) for f in ("answer", "text") if f in fields]
    return _extract_text(pl.coalesce(sources), how)


def record_text(schema: pl.Schema, answer: str | pl.Expr) -> str | pl.Expr:
    """Return what a matcher compares: the answer, or an output record's answer text.

    A matcher compares values, and a record (a log's ``output``) equals no expected value, so
    every row would silently be wrong: its ``answer`` field is compared, else its ``text``.
    """
    fields = struct_fields(_answer_dtype(schema, answer))
    if not fields or not {"answer", "text"} & set(fields):
        return answer
    expr = pl.col(answer) if isinstance(answer, str) else answer
    name = answer if isinstance(answer, str) else expr.meta.output_name()
    sources = [expr.struct.field(f).cast(pl.String) for f in ("answer", "text") if f in fields]
    return pl.coalesce(sources).alias(name)


def with_extracted(schema: pl.Schema, answer: str | pl.Expr, extracted: str) -> str | pl.Expr:
    """Return the answer to grade: the extracted column, or the output record holding it.

    A record keeps its other fields (status, trace, ...), so the failure kinds still read them.
    """
    fields = struct_fields(_answer_dtype(schema, answer))
    if not fields:
        return extracted
    expr = pl.col(answer) if isinstance(answer, str) else answer
    name = answer if isinstance(answer, str) else expr.meta.output_name()
    return expr.struct.with_fields(pl.col(extracted).alias("answer")).alias(name)


def _numbers(frame: pl.DataFrame, column: str | pl.Expr, flag: str) -> str | pl.Expr:
    """``within`` compares numbers: a text column (a CSV's cells) is read as numbers.

    The column itself is left as it is (the written rows keep it); a cell that is no number
    is an error naming its row, never a silent null.
    """
    if not isinstance(column, str) or frame.schema[column] != pl.String:
        return column
    text = pl.col(column).str.strip_chars()
    read = text.cast(pl.Float64, strict=False)
    wrong = text.is_not_null() & (text != "") & read.is_null()
    bad = frame.select(pl.int_range(pl.len()).filter(wrong).first()).item()
    if bad is not None:
        value = frame.get_column(column)[bad]
        msg = (
            f"{flag} {column}: row {bad} holds {value!r}, which is no number (within compares "
            "numbers)"
        )
        raise CliError(msg)
    return read.alias(column)


#: How a grader reads the ``--expected`` column of a file before grading (text cells as the
#: matcher needs them); the graders not listed take the column as read.
EXPECTED_READERS: Final[dict[str, Callable[[pl.DataFrame, str | pl.Expr, str], str | pl.Expr]]] = {
    "within": _numbers
}
