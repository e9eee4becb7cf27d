"""tool_calls: did an agent call the expected tools, with the expected arguments, in order.

The rule runs on whole columns, in four steps, each a frame operation over every call of a
batch of rows at once (never a Python loop over rows or calls):

1. **Calls.** Both sides (lists of ``{name, arguments}`` structs, or JSON text holding them)
   become one long table of calls: row, side, position, name and arguments, all calls of the
   batch in one struct dtype, so that keys in any order land in the same fields, an absent key
   reads as null and numbers written 3 and 3.0 are one float. Struct columns are brought to one
   dtype directly (:func:`_typed_calls`); JSON text is read by one Arrow decode of every row
   of both sides (:func:`_fast_calls`).
2. **Keys.** A call's key is a 64-bit hash of its name and its compared arguments. Where the
   Arrow decode refuses the batch (values of different kinds at one place, "1" and 1 or true
   and 1; invalid JSON; a row that is not a list), or with ``rel_tol``, the general path reads
   it instead: every value is first *tagged* by kind (``{"n": "1.0"}`` for a number, ``{"s":
   "1"}`` for a string, ``{"b": true}``..., see :func:`_tagged`), which no decode can merge,
   and the key is the name and the canonical tagged text (with ``rel_tol``: its *shape*, the
   numbers left out and compared pairwise within the tolerance).
3. **Matching.** A row whose two sides hold the same keys in the same order (without ``rel_tol``)
   has every call matched in every mode and is left out. A call matches another when the names
   and the compared arguments match. Without
   ``rel_tol`` that is equality of keys (name + canonical arguments), an equivalence, and a
   maximum matching in any order is counting per key. With ``rel_tol`` it is not transitive, and
   the maximum matching is found by augmenting paths (:func:`_augmented`), one breadth-first
   layer per step over all rows. In order, the longest in-order match is the longest common
   subsequence under the match relation, computed bit-parallel (:func:`_in_order`): one step per
   expected call, integer operations on every row at once.
4. **Result.** ``correct`` from the counts of matched calls, ``missing`` and ``extra`` from the
   calls left unmatched, in their side's order.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Final, Literal, TypeAlias, get_args

import polars as pl
import pyarrow as pa
from pyarrow import json as pa_json

from gradeframe._inputs import IntoExpr, Schema, is_text
from gradeframe.matchers import _base
from gradeframe.matchers._base import Input

__all__ = ["TOOL_CALLS", "TOOL_CALLS_COLUMNS", "Mode", "tool_calls", "with_tool_calls"]

Mode: TypeAlias = Literal["exact", "in_order", "any_order", "superset", "subset"]
#: The modes, in the order the documentation gives them.
MODES: Final = get_args(Mode)
#: ``arguments=``: compare all of them, none, or the listed keys.
Arguments: TypeAlias = Literal["exact", "ignore"] | Sequence[str]

TOOL_CALLS: Final = _base.matcher(
    "tool_calls",
    {"actual": "calls", "expected": "calls"},
    missing=pl.List(pl.String),
    extra=pl.List(pl.String),
)
#: The columns tool_calls adds, before ``prefix``.
TOOL_CALLS_COLUMNS: Final = TOOL_CALLS.columns

_NAMES: Final = pl.List(pl.String)
_RESULT: Final = pl.Struct({"correct": pl.Boolean(), "missing": _NAMES, "extra": _NAMES})

# Sides of the long table of calls.
_E: Final = 0  # expected
_A: Final = 1  # actual

# ---------------------------------------------------------------------------------------------
# JSON, tagged by kind
# ---------------------------------------------------------------------------------------------

#: A JSON string literal (escapes included).
_STRING: Final = r'"(?:[^"\\]|\\.)*"'
#: One JSON token: an object key with its colon, a string, a number, a literal or punctuation.
#: White space between tokens is not a token (it is dropped).
_TOKEN: Final = (
    rf"{_STRING}\s*:|{_STRING}|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
    r"|true|false|null|[{}\[\],]"
)
#: A number in tagged text: the tag ``n`` with its value written as a string.
_TAGGED_NUMBER: Final = r'"n":"([^"]*)"'
#: The canonical arguments of a call without arguments (an empty object).
_NO_ARGUMENTS: Final = '{"o":{}}'


def _tagged(text: pl.Expr) -> pl.Expr:
    """Return JSON text with every value wrapped by kind; null where the text is not JSON tokens.

    ``{"a": [1, "x", true, null]}`` becomes
    ``{"o":{"a":{"l":[{"n":"1.0"},{"s":"x"},{"b":true},null]}}}``: an object is ``{"o": ...}``,
    a list ``{"l": [...]}``, a string ``{"s": ...}``, a Boolean ``{"b": ...}`` and a number
    ``{"n": "..."}``, its value as Polars writes the 64-bit float (so 1, 1.0 and 1e0 are all
    ``"1.0"``, and -0 is 0). Keys and null stay as they are. Text holding anything that is not a
    JSON token gives null; a wrong order of tokens is left for the decoder to refuse.
    """
    e = pl.element()
    number = e.cast(pl.Float64, strict=False)
    number = pl.when(number == 0).then(pl.lit(0.0)).otherwise(number).cast(pl.String)
    first = e.str.head(1)
    tag = (
        pl.when(first.eq('"') & e.str.ends_with(":"))
        .then(e.str.replace(r"\s*:$", ":"))
        .when(first.eq('"'))
        .then(pl.concat_str(pl.lit('{"s":'), e, pl.lit("}")))
        .when(e.eq("{"))
        .then(pl.lit('{"o":{'))
        .when(e.eq("}"))
        .then(pl.lit("}}"))
        .when(e.eq("["))
        .then(pl.lit('{"l":['))
        .when(e.eq("]"))
        .then(pl.lit("]}"))
        .when(e.eq(",") | e.eq("null"))
        .then(e)
        .when(e.eq("true") | e.eq("false"))
        .then(pl.concat_str(pl.lit('{"b":'), e, pl.lit("}")))
        .otherwise(pl.concat_str(pl.lit('{"n":"'), number, pl.lit('"}')))
    )
    joined = text.str.extract_all(_TOKEN).list.eval(tag).list.join("")
    leftover = text.str.replace_all(_TOKEN, "").str.strip_chars(" \t\n\r")
    return pl.when(leftover.eq("")).then(joined)


def _arrow_decoded(texts: pl.Series) -> pl.Series:
    """Decode JSON texts (null: null) into one dtype inferred from all of them, with Arrow.

    The texts are read as one newline-delimited JSON buffer (a raw line break in valid JSON is
    white space, so it becomes a space). Raises ``pyarrow.ArrowInvalid`` when a text is not
    JSON, or when two texts hold values of different kinds at the same place ("1" and 1).
    """
    lines = pl.select(
        pl.concat_str(
            pl.lit('{"v":'),
            pl.lit(texts)
            .str.replace_all("\n", " ", literal=True)
            .str.replace_all("\r", " ", literal=True)
            .fill_null("null"),
            pl.lit("}"),
        )
    ).to_series()
    if lines.len() == 0:
        return pl.Series(texts.name, [], dtype=pl.Null)
    buffer = lines.str.join("\n").cast(pl.Binary).item()
    options = pa_json.ReadOptions(block_size=max(1 << 20, len(buffer) // 8 + 1))
    try:
        table = pa_json.read_json(io.BytesIO(buffer), read_options=options)
    except pa.ArrowNotImplementedError:
        # blocks read apart inferred types Arrow cannot unify: one block, one inference
        options = pa_json.ReadOptions(block_size=len(buffer) + 1)
        table = pa_json.read_json(io.BytesIO(buffer), read_options=options)
    inferred = table.schema.field("v").type
    if _has_timestamp(inferred):
        # Arrow reads text that looks like a date as a timestamp ("2024-05-01" would then
        # equal "2024-05-01 00:00:00"): read again with every such place typed as text
        schema = pa.schema([pa.field("v", _without_timestamps(inferred))])
        parse = pa_json.ParseOptions(explicit_schema=schema)
        table = pa_json.read_json(io.BytesIO(buffer), read_options=options, parse_options=parse)
    decoded = pl.from_arrow(table.column("v"))
    return decoded.alias(texts.name)  # type: ignore[union-attr]


def _has_timestamp(dtype: pa.DataType) -> bool:
    if pa.types.is_timestamp(dtype):
        return True
    if pa.types.is_struct(dtype):
        return any(_has_timestamp(dtype.field(i).type) for i in range(dtype.num_fields))
    if pa.types.is_list(dtype) or pa.types.is_large_list(dtype):
        return _has_timestamp(dtype.value_type)
    return False


def _without_timestamps(dtype: pa.DataType) -> pa.DataType:
    """Return an Arrow type with each timestamp (inferred from text) as text."""
    if pa.types.is_timestamp(dtype):
        return pa.string()
    if pa.types.is_struct(dtype):
        fields = [dtype.field(i) for i in range(dtype.num_fields)]
        return pa.struct([f.with_type(_without_timestamps(f.type)) for f in fields])
    if pa.types.is_list(dtype):
        return pa.list_(_without_timestamps(dtype.value_type))
    if pa.types.is_large_list(dtype):
        return pa.large_list(_without_timestamps(dtype.value_type))
    return dtype


def _decoded(texts: pl.Series) -> pl.Series:
    """Decode tagged JSON texts into one struct dtype; the texts that are not JSON read as null.

    Tagged values never differ in kind at one place, so only invalid JSON is refused; those
    texts are found by halving (a decode per half, so a few bad texts cost a few decodes per
    doubling of the column, never one per text).
    """
    try:
        return _arrow_decoded(texts)
    except pa.ArrowInvalid:
        pass
    good = ~pl.Series(_invalid(texts), dtype=pl.Boolean)
    return _arrow_decoded(pl.select(pl.when(good).then(pl.lit(texts))).to_series())


def _invalid(texts: pl.Series) -> list[bool]:
    """Return, for each text, whether it cannot be decoded (found by halving)."""
    if texts.len() == 0:
        return []
    try:
        _arrow_decoded(texts)
    except pa.ArrowInvalid:
        if texts.len() == 1:
            return [True]
        half = texts.len() // 2
        return _invalid(texts.slice(0, half)) + _invalid(texts.slice(half))
    return [False] * texts.len()


# ---------------------------------------------------------------------------------------------
# Reading the sides: one long table of calls
# ---------------------------------------------------------------------------------------------

#: How a side holds its calls: no calls at all, a list of structs, or JSON text.
_NONE: Final = "none"
_LIST: Final = "list"
_TEXT: Final = "text"


def _kind(source: Input) -> str:
    """Return how an input holds its calls; raise naming the column when it holds none."""
    dtype = source.dtype
    if dtype == pl.Null:
        return _NONE
    if is_text(dtype):
        return _TEXT
    if isinstance(dtype, pl.List):
        inner = dtype.inner
        if inner == pl.Null:
            return _NONE
        if isinstance(inner, pl.Struct):
            fields = {f.name: f.dtype for f in inner.fields}
            arguments = fields.get("arguments", pl.Null())
            if "name" in fields and (
                arguments == pl.Null or isinstance(arguments, pl.Struct) or is_text(arguments)
            ):
                return _LIST
    msg = (
        f"`{source.argument}`: column {source.name!r} holds no tool calls: its dtype is {dtype}. "
        "Expected a list of structs with the fields `name` (text) and `arguments` (a struct, "
        "or a JSON object as text), or JSON text holding such a list."
    )
    raise TypeError(msg)


def _as_calls(expr: pl.Expr, kind: str) -> pl.Expr:
    """Return a side as the batch reads it: text as String, no calls as a null String."""
    if kind == _NONE:
        return pl.lit(None, pl.String)
    if kind == _TEXT:
        return expr.cast(pl.String)
    return expr


def _written(dtype: pl.DataType) -> pl.Expr:
    """Return the calls of a List(Struct) side as (name, arguments as JSON text, tagged)."""
    fields = _fields(dtype.inner)  # type: ignore[attr-defined]
    e = pl.element()
    arguments = fields.get("arguments", pl.Null())
    if isinstance(arguments, pl.Struct):
        text = e.struct.field("arguments").struct.json_encode()
        text = pl.when(e.struct.field("arguments").is_not_null()).then(text)
    elif arguments == pl.Null:
        text = pl.lit(None, pl.String)
    else:
        text = e.struct.field("arguments").cast(pl.String)
    call = pl.struct(
        name=e.struct.field("name").cast(pl.String), arguments=text, tagged=pl.lit(value=False)
    )
    return pl.col("calls").list.eval(call)


def _list_calls(frame: pl.DataFrame, column: str, side: int) -> pl.DataFrame:
    """Return the calls of a List(Struct) side as a long table (row, side, pos, name...)."""
    listed = frame.select("row", calls=pl.col(column))
    listed = listed.with_columns(_written(frame.schema[column]))
    return _exploded(listed, "calls").select(
        "row",
        side=pl.lit(side, pl.Int8),
        pos="pos",
        name=pl.col("calls").struct.field("name"),
        arguments=pl.col("calls").struct.field("arguments"),
        tagged=pl.col("calls").struct.field("tagged"),
        bad=pl.lit(value=False),
    )


def _exploded(listed: pl.DataFrame, column: str) -> pl.DataFrame:
    """Return one row per call of the list column ``column``, with ``pos``.

    An empty or null list gives no row (dropped by the explode itself: filtering the lists
    first would copy every call).
    """
    pos = pl.int_ranges(0, pl.col(column).list.len(), dtype=pl.Int64)
    return listed.with_columns(pos=pos).explode(
        [column, "pos"], empty_as_null=False, keep_nulls=False
    )


_EMPTY_CALLS: Final = pl.DataFrame(
    schema={
        "row": pl.UInt32,
        "side": pl.Int8,
        "pos": pl.Int64,
        "name": pl.String,
        "arguments": pl.String,
        "tagged": pl.Boolean,
        "bad": pl.Boolean,
    }
)


def _text_calls(frame: pl.DataFrame, column: str, side: int) -> tuple[pl.DataFrame, pl.Series]:
    """Return the calls of a JSON-text side as a long table, and the rows not holding a list.

    The text is tagged and decoded (all rows' at once); a call's arguments may be an object or
    a JSON object as text (as OpenAI writes them).
    """
    text = frame.get_column(column)
    blank = text.is_null() | text.str.strip_chars().eq("")
    tagged = frame.select(_tagged(pl.col(column))).to_series()
    tagged = pl.select(pl.when(tagged.str.starts_with('{"l":[')).then(tagged)).to_series()
    decoded = _decoded(tagged)
    unreadable = ~blank & decoded.is_null()
    empty = _EMPTY_CALLS.clear()  # a new frame, free to be changed by the caller
    if not isinstance(decoded.dtype, pl.Struct) or "l" not in _fields(decoded.dtype):
        return empty, unreadable
    items = pl.DataFrame({"row": frame.get_column("row"), "call": decoded.struct.field("l")})
    items = _exploded(items, "call")
    item_dtype = items.schema["call"]
    call = pl.col("call")
    if isinstance(item_dtype, pl.Struct) and "o" in _fields(item_dtype):
        obj_dtype = _fields(item_dtype)["o"]
        obj = call.struct.field("o")
        fields = _fields(obj_dtype)
        name = _tag_field(obj, fields, "name", "s")
        arguments = obj.struct.field("arguments") if "arguments" in fields else None
        arg_fields = _fields(fields["arguments"]) if arguments is not None else {}
        is_object = call.struct.field("o").is_not_null()
        # a call whose name is text, and whose arguments are absent, an object, or text
        good = is_object & name.is_not_null()
        if arguments is None:
            args_text, tagged_text = pl.lit(None, pl.String), pl.lit(value=True)
        else:
            as_text = arguments.struct.field("s") if "s" in arg_fields else None
            as_object = arguments.struct.json_encode()
            other = [k for k in arg_fields if k not in ("o", "s")]
            for k in other:
                good = good & arguments.struct.field(k).is_null()
            if as_text is not None:
                args_text = pl.when(as_text.is_not_null()).then(as_text).otherwise(as_object)
                tagged_text = as_text.is_null()
            else:
                args_text, tagged_text = as_object, pl.lit(value=True)
            args_text = pl.when(arguments.is_not_null()).then(args_text)
        calls = items.select(
            "row",
            side=pl.lit(side, pl.Int8),
            pos="pos",
            name=name,
            arguments=args_text,
            tagged=tagged_text,
            bad=~good.fill_null(value=False),
        )
    else:  # no item is an object: every call of every listed row is bad
        calls = items.select(
            "row",
            side=pl.lit(side, pl.Int8),
            pos="pos",
            name=pl.lit(None, pl.String),
            arguments=pl.lit(None, pl.String),
            tagged=pl.lit(value=True),
            bad=pl.lit(value=True),
        )
    return calls.cast(empty.schema), unreadable  # type: ignore[arg-type]


def _fields(dtype: pl.DataType) -> dict[str, pl.DataType]:
    return {f.name: f.dtype for f in dtype.fields} if isinstance(dtype, pl.Struct) else {}  # type: ignore[union-attr]


def _tag_field(obj: pl.Expr, fields: dict[str, pl.DataType], key: str, tag: str) -> pl.Expr:
    """Return the value of a tagged object's key when it is of the tagged kind (else null)."""
    if key not in fields or tag not in _fields(fields[key]):
        return pl.lit(None, pl.String)
    return obj.struct.field(key).struct.field(tag)


# ---------------------------------------------------------------------------------------------
# Keys: what two calls must share to match
# ---------------------------------------------------------------------------------------------


def _keyed(
    calls: pl.DataFrame, compared: tuple[str, ...] | None, *, tolerant: bool
) -> pl.DataFrame:
    """Add ``key`` to the calls: the name and the canonical compared arguments (and ``bad``).

    With ``tolerant`` (a ``rel_tol``), ``key`` is the name and the *shape* of the arguments (the
    canonical text with every number written ``#``), and ``numbers`` lists the numbers in the
    order the canonical text writes them: two calls match when their keys are equal and their
    numbers are pairwise within the tolerance.
    """
    if compared == ():  # arguments="ignore": the names alone
        return calls.with_columns(key=pl.col("name"))
    texts = calls.select(
        tagged=pl.when(pl.col("arguments").is_null())
        .then(pl.lit(_NO_ARGUMENTS))
        .when(pl.col("tagged"))
        .then(pl.col("arguments"))
        .otherwise(_tagged(pl.col("arguments")))
    ).to_series()
    distinct = texts.unique()
    decoded = _decoded(distinct)
    obj_dtype = _fields(decoded.dtype).get("o")
    table = pl.DataFrame({"tagged": distinct, "value": decoded})
    if obj_dtype is None:
        canonical = pl.lit(None, pl.String)
    else:
        obj = pl.col("value").struct.field("o")
        if compared is None:
            chosen = obj
        else:
            keys = _fields(obj_dtype)
            chosen = pl.struct(
                [
                    (obj.struct.field(k) if k in keys else pl.lit(None, pl.Null)).alias(f"k{i}")
                    for i, k in enumerate(compared)
                ]
            )
        canonical = pl.when(obj.is_not_null()).then(pl.struct(a=chosen).struct.json_encode())
    table = table.select("tagged", canonical=canonical)
    if tolerant:
        table = table.with_columns(
            numbers=pl.col("canonical")
            .str.extract_all(_TAGGED_NUMBER)
            .list.eval(pl.element().str.extract(_TAGGED_NUMBER, 1).cast(pl.Float64)),
            canonical=pl.col("canonical").str.replace_all(_TAGGED_NUMBER, '"n":#'),
        )
    keyed = calls.with_columns(tagged=texts).join(
        table, on="tagged", how="left", nulls_equal=True, maintain_order="left"
    )
    return keyed.with_columns(
        bad=pl.col("bad") | pl.col("canonical").is_null(),
        key=pl.concat_str(pl.col("name"), pl.lit("\x1f"), pl.col("canonical")),
    ).drop("tagged", "canonical")


#: The seed of the 64-bit hash a call's key (its name and canonical compared arguments) is
#: reduced to before matching. Two calls of one row whose keys differ match only if their
#: hashes collide: about one chance in 2**64 / (calls in the row)**2, for a row of 40 calls
#: 1 in 10**16.
_SEED: Final = 35

#: Whether :func:`_fast_calls` is tried first (the tests switch it off to hold the general path
#: to the same answers).
FAST: bool = True


def _fast_calls(
    frame: pl.DataFrame,
    kinds: dict[int, str],
    compared: tuple[str, ...] | None,
    twins: pl.Series | None = None,
) -> pl.DataFrame | None:
    """Return the keyed calls of both sides read in one Arrow decode, or None where it cannot.

    Both sides, every row, become one newline-delimited JSON buffer, so that Arrow infers one
    dtype for all the calls: keys in any order land in the same struct fields and a number
    read as an integer on one side and a float on the other becomes a float. The canonical
    arguments are then that struct written back as JSON. Arrow refuses a buffer holding
    values of different kinds at one place ("1" and 1, true and 1), invalid JSON, or a row
    that is not a list: None then, and the general path (tagged values) reads the batch.
    The actual texts of ``twins`` (rows whose actual text is the expected text, byte for byte)
    are not read: those rows hold no actual calls here.
    """
    typed = _typed_calls(frame, kinds)
    if typed is not None:
        return _fast_keys(typed, compared)
    lines = []
    for side, kind in kinds.items():
        column = pl.col("expected" if side == _E else "actual")
        if kind == _TEXT:
            blank = column.is_null() | column.str.strip_chars().eq("")
            if side == _A and twins is not None:
                blank = blank | pl.lit(twins)
            line = pl.when(~blank).then(column)
        elif kind == _LIST:
            line = pl.struct(v=column).struct.json_encode().str.slice(5).str.head(-1)
        else:
            continue
        lines.append(frame.select("row", side=pl.lit(side, pl.Int8), line=line))
    if not lines:
        return _EMPTY_CALLS.with_columns(key=pl.lit(None, pl.String)).drop("arguments", "tagged")
    table = pl.concat(lines)
    try:
        decoded = _arrow_decoded(table.get_column("line"))
    except pa.ArrowInvalid:
        return None
    dtype = decoded.dtype
    if dtype == pl.Null or (isinstance(dtype, pl.List) and dtype.inner == pl.Null):
        return _EMPTY_CALLS.with_columns(key=pl.lit(None, pl.String)).drop("arguments", "tagged")
    if not isinstance(dtype, pl.List) or not isinstance(dtype.inner, pl.Struct):
        return None
    fields = _fields(dtype.inner)
    if fields.get("name") != pl.String:
        return None
    listed = table.select("row", "side", calls=decoded)
    calls = _exploded(listed, "calls").with_columns(
        name=pl.col("calls").struct.field("name"),
    )
    return _fast_keys(calls, compared, fields.get("arguments", pl.Null()))


class _Conflict(Exception):
    """Two dtypes hold values of different kinds at one place."""


def _merged(a: pl.DataType, b: pl.DataType) -> pl.DataType:
    """Return the dtype both sides' values are read in (numbers as Float64 where they mix)."""
    if a == pl.Null:
        return b
    if b == pl.Null or a == b:
        return a
    if is_text(a) and is_text(b):
        return pl.String()
    if a.is_numeric() and b.is_numeric() and not a.is_decimal() and not b.is_decimal():
        return pl.Float64()
    if isinstance(a, pl.List) and isinstance(b, pl.List):
        return pl.List(_merged(a.inner, b.inner))
    if isinstance(a, pl.Struct) and isinstance(b, pl.Struct):
        fa, fb = _fields(a), _fields(b)
        names = list(fa) + [k for k in fb if k not in fa]
        return pl.Struct({k: _merged(fa.get(k, pl.Null()), fb.get(k, pl.Null())) for k in names})
    raise _Conflict


def _conformed(expr: pl.Expr, dtype: pl.DataType, target: pl.DataType) -> pl.Expr:
    """Return a value read in the merged dtype (absent struct fields as null)."""
    if dtype == target:
        return expr
    if isinstance(target, pl.Struct):
        if dtype == pl.Null:
            return pl.lit(None, target)
        have = _fields(dtype)
        inner = pl.struct(
            [
                (
                    _conformed(expr.struct.field(f.name), have[f.name], f.dtype)
                    if f.name in have
                    else pl.when(expr.is_null() & expr.is_not_null()).then(pl.lit(None, f.dtype))
                ).alias(f.name)  # (a null of the row's length: a bare literal has length 1)
                for f in target.fields
            ]
        )
        return pl.when(expr.is_not_null()).then(inner)
    if isinstance(target, pl.List):
        if dtype == pl.Null:
            return pl.lit(None, target)
        return expr.list.eval(_conformed(pl.element(), dtype.inner, target.inner))  # type: ignore[attr-defined]
    return expr.cast(target)


def _typed_calls(frame: pl.DataFrame, kinds: dict[int, str]) -> pl.DataFrame | None:
    """Return the calls of List(Struct) sides with struct arguments, in one dtype (no JSON).

    None when a side is JSON text, its arguments are text, or the sides' arguments hold values
    of different kinds at one place (then they are read as JSON, see :func:`_fast_calls`).
    """
    if any(kind == _TEXT for kind in kinds.values()):
        return None
    parts = {}
    for side, kind in kinds.items():
        if kind != _LIST:
            continue
        column = "expected" if side == _E else "actual"
        arguments = _fields(frame.schema[column].inner).get("arguments", pl.Null())  # type: ignore[attr-defined]
        if not (isinstance(arguments, pl.Struct) or arguments == pl.Null):
            return None
        listed = frame.select("row", calls=pl.col(column))
        parts[side] = _exploded(listed, "calls").select(
            "row",
            side=pl.lit(side, pl.Int8),
            pos="pos",
            name=pl.col("calls").struct.field("name").cast(pl.String),
            arguments=pl.col("calls").struct.field("arguments")
            if arguments != pl.Null
            else pl.lit(None, pl.Struct({})),
        )
    if not parts:
        return None
    try:
        target: pl.DataType = pl.Struct({})
        for part in parts.values():
            target = _merged(target, part.schema["arguments"])
    except _Conflict:
        return None
    return pl.concat(
        [
            part.with_columns(
                _conformed(pl.col("arguments"), part.schema["arguments"], target).alias("arguments")
            )
            for part in parts.values()
        ]
    )


def _fast_keys(
    calls: pl.DataFrame,
    compared: tuple[str, ...] | None,
    arguments_dtype: pl.DataType | None = None,
) -> pl.DataFrame | None:
    """Key the calls (row, side, pos, name, calls or arguments) of :func:`_fast_calls`."""
    if compared == ():
        return calls.select("row", "side", "pos", "name", key="name", bad=pl.col("name").is_null())
    if arguments_dtype is None:  # typed calls: arguments are a struct already
        pass
    elif arguments_dtype == pl.String:  # arguments written as JSON text (as OpenAI writes them)
        texts = calls.get_column("calls").struct.field("arguments")
        try:
            arguments = _arrow_decoded(texts)
        except pa.ArrowInvalid:
            return None
        calls = calls.with_columns(arguments=arguments)
    elif isinstance(arguments_dtype, pl.Struct):
        calls = calls.with_columns(arguments=pl.col("calls").struct.field("arguments"))
    elif arguments_dtype == pl.Null:
        calls = calls.with_columns(arguments=pl.lit(None, pl.Struct({})))
    else:
        return None
    arguments_dtype = calls.schema["arguments"]
    if arguments_dtype == pl.Null:
        arguments_dtype = pl.Struct({})
        calls = calls.with_columns(arguments=pl.lit(None, arguments_dtype))
    if not isinstance(arguments_dtype, pl.Struct):
        return None
    keys = _fields(arguments_dtype)

    # A null object (no arguments) is the empty object: its fields read as null, like those of
    # an object without the keys.
    def field(k: str) -> pl.Expr:
        if k not in keys:
            return pl.lit(None, pl.Null)
        return pl.col("arguments").struct.field(k)

    # Polars hashes -0.0 as 0.0 (nested ones too), so equal numbers need no rewriting. The
    # values are folded in two halves, two expressions Polars runs at once, then the halves.
    values = [pl.col("name"), *(field(k) for k in (keys if compared is None else compared))]
    half = (len(values) + 1) // 2
    rest = _combined_hash(values[half:]) if values[half:] else pl.lit(0, pl.UInt64)
    return calls.select(
        "row",
        "side",
        "pos",
        "name",
        k0=_combined_hash(values[:half]),
        k1=rest,
        bad=pl.col("name").is_null(),
    ).select(
        "row",
        "side",
        "pos",
        "name",
        key=(pl.col("k0") * pl.lit(_FOLD, pl.UInt64)) ^ pl.col("k1"),
        bad="bad",
    )


#: The multiplier that folds one field's hash into a call's key (the 64-bit FNV prime).
_FOLD: Final = 0x100000001B3


def _combined_hash(values: list[pl.Expr]) -> pl.Expr:
    """Return a 64-bit hash of the values, in order: each hashed alone, then folded together.

    Hashing the fields one by one and folding them (multiply, wrapping, then exclusive or) costs
    a fraction of hashing the struct they form, and tells the same values apart as well.
    """
    key = values[0].hash(_SEED)
    for value in values[1:]:
        key = (key * pl.lit(_FOLD, pl.UInt64)) ^ value.hash(_SEED)
    return key


def _edges(calls: pl.DataFrame, rel_tol: float) -> pl.DataFrame:
    """Return the pairs (row, e, a) of an expected and an actual call that match."""
    expected = calls.filter(pl.col("side") == _E).select("row", "key", e="pos", en="numbers")
    actual = calls.filter(pl.col("side") == _A).select("row", "key", a="pos", an="numbers")
    pairs = expected.join(actual, on=["row", "key"]).drop("key").with_row_index("pair")
    x, y = pl.col("en"), pl.col("an")
    close = (x == y) | ((x - y).abs() <= rel_tol * pl.max_horizontal(x.abs(), y.abs()))
    numbers = pairs.select("pair", "en", "an").explode(["en", "an"])
    far = numbers.filter(~close.fill_null(value=True)).select("pair").unique()
    return pairs.join(far, on="pair", how="anti").select("row", "e", "a")


# ---------------------------------------------------------------------------------------------
# Matching
# ---------------------------------------------------------------------------------------------


def _offsets(rows: pl.Series, height: int) -> pl.Series:
    """Return where each row's calls begin in ``rows`` (row numbers, ascending), and the end.

    Row ``r``'s calls are ``offsets[r]`` up to ``offsets[r + 1]``: ``height + 1`` offsets, found
    by a binary search per row (the calls of a side are kept row by row, so no grouping).
    """
    bounds = pl.int_range(0, height + 1, dtype=pl.UInt32, eager=True)
    return rows.cast(pl.UInt32).search_sorted(bounds, side="left").cast(pl.Int64)


def _counts(offsets: pl.Series) -> pl.Series:
    """Return the calls per row from :func:`_offsets`."""
    return offsets.slice(1) - offsets.slice(0, offsets.len() - 1)


def _mixed(row: pl.Expr, key: pl.Expr) -> pl.Expr:
    """Return a call's key mixed with its row's hash: the value :func:`_runs` sorts on."""
    return key ^ row.hash(_SEED)


def _runs(calls: pl.DataFrame) -> tuple[pl.Series, pl.DataFrame]:
    """Sort the calls by (row, key, side, pos); return the order and the sorted calls' runs.

    A run is the calls of one row with one key: its expected calls, then its actual calls,
    each in their side's order. Each sorted call gets ``start`` (the index of its run's first
    call), ``size`` (the run's calls) and ``ne`` (the run's expected calls), from running
    minima, maxima and sums: no grouping.

    The sort is a stable one on a single 64-bit value, the key mixed with the row's hash (the
    calls are already expected first, each side row by row, so a run comes out in that order);
    if two of a batch's (row, key) pairs mix to the same value next to each other, the exact
    sort on (row, key, side, pos) is done instead.
    """
    row, key, index = pl.col("row"), pl.col("key"), pl.int_range(pl.len(), dtype=pl.Int64)
    mixed = _mixed(row, key)
    order = calls.select(pl.arg_sort_by(mixed, maintain_order=True)).to_series()
    clash = (mixed == mixed.shift()) & ((row != row.shift()) | (key != key.shift()))
    ordered = calls.select("row", "side", "pos", "key").gather(order)
    if ordered.select(clash.any()).item():
        order = calls.select(pl.arg_sort_by("row", "key", "side", "pos")).to_series()
        ordered = calls.select("row", "side", "pos", "key").gather(order)
    first = ((row != row.shift()) | (key != key.shift())).fill_null(value=True)
    last = first.shift(-1).fill_null(value=True)
    is_e = (pl.col("side") == _E).cast(pl.Int64)
    runs = ordered.with_columns(
        start=pl.when(first).then(index).otherwise(0).cum_max(),
        end=pl.when(last).then(index).otherwise(pl.lit(1 << 62)).cum_min(reverse=True),
        seen=is_e.cum_sum(),
        before=is_e.cum_sum() - is_e,
    )
    return order, runs.select(
        "side",
        "pos",
        "start",
        size=pl.col("end") - pl.col("start") + 1,
        ne=pl.col("seen").gather(pl.col("end")) - pl.col("before").gather(pl.col("start")),
    )


def _counted(calls: pl.DataFrame) -> pl.Series:
    """Return whether each call is matched when matching is equality of keys: count per key.

    The first ``min(count on each side)`` calls of each key, in their side's order, are matched:
    in a run of :func:`_runs`, an expected call by its distance from the run's start, an actual
    call by its distance from the run's first actual call; the flags are put back in the order
    of ``calls``.
    """
    order, runs = _runs(calls)
    rank = pl.int_range(pl.len(), dtype=pl.Int64) - pl.col("start")
    ne, size = pl.col("ne"), pl.col("size")
    matched = runs.select(
        pl.when(pl.col("side") == _E).then(rank < size - ne).otherwise(rank - ne < ne)
    ).to_series()
    flags = pl.Series("matched", [False], pl.Boolean).new_from_index(0, calls.height)
    return flags.scatter(order, matched)


def _key_masks(calls: pl.DataFrame, expected: int, words: int) -> pl.DataFrame:
    """Per expected call (the first ``expected`` calls): the bits of the actual calls it matches.

    In the runs of :func:`_runs` the actual calls of an expected call's key follow it; their
    bits are summed by differences of running sums (each word in two halves of 32 bits, so that
    no running sum overflows).
    """
    order, runs = _runs(calls)
    # The bit of each actual call, per word: its two halves as Int64 (no sum overflows).
    is_a = pl.col("side") == _A
    first_a = (pl.col("start") + pl.col("ne")).clip(upper_bound=calls.height - 1)
    has_a = pl.col("ne") < pl.col("size")
    end = pl.col("start") + pl.col("size") - 1
    columns = []
    exponent = pl.col("pos") % _BITS
    for w in range(words):
        mine = is_a & (pl.col("pos") // _BITS == w)
        halves = []
        for half in range(2):
            # 2**k as a float is exact: the bit of an actual call in this half, else 0
            inside = mine & (exponent // 32 == half)
            bit = pl.lit(2.0).pow((exponent - 32 * half).clip(0)).cast(pl.Int64)
            part = pl.when(inside).then(bit).otherwise(pl.lit(0, pl.Int64))
            total = part.cum_sum()
            summed = total.gather(end) - (total - part).gather(first_a)
            halves.append(pl.when(has_a).then(summed).otherwise(0) * (1 << (32 * half)))
        columns.append((halves[0] + halves[1]).cast(pl.UInt64).alias(f"m{w}"))
    masks = runs.select(columns)
    zero = pl.Series([0], dtype=pl.UInt64).new_from_index(0, calls.height)
    return pl.DataFrame(
        [zero.scatter(order, masks.get_column(f"m{w}")).alias(f"m{w}") for w in range(words)]
    ).slice(0, expected)


def _edge_masks(
    calls: pl.DataFrame, edges: pl.DataFrame, expected: int, words: int
) -> pl.DataFrame:
    """Per expected call (the first ``expected`` calls): the bits of the actual calls it matches."""
    grid = edges.group_by("row", "e").agg(
        [
            _bit(pl.col("a") % _BITS).filter(pl.col("a") // _BITS == w).sum().alias(f"m{w}")
            for w in range(words)
        ]
    )
    return (
        calls.slice(0, expected)
        .select("row", e="pos")
        .join(grid, on=["row", "e"], how="left", maintain_order="left")
        .select(pl.col(f"m{w}").fill_null(0).cast(pl.UInt64) for w in range(words))
    )


def _augmented(edges: pl.DataFrame) -> pl.DataFrame:
    """Return a maximum matching of each row's bipartite graph as (row, e, a) pairs.

    Each phase searches every unfinished row at once, breadth first from all its free expected
    calls, one layer per step (a join over the edges of all rows), and augments along one
    shortest path per row. A row where no free actual call can be reached has a maximum
    matching (Berge) and drops out. Phases and layers are both bounded by the list lengths.
    """
    schema = {"row": pl.UInt32, "e": pl.Int64, "a": pl.Int64}
    matched = pl.DataFrame(schema=schema)
    nodes = edges.select("row", "e").unique()
    active = edges.select("row").unique()
    while active.height:
        free = nodes.join(active, on="row").join(matched, on=["row", "e"], how="anti")
        frontier = free.select("row", "e")
        visited = pl.DataFrame(schema={"row": pl.UInt32, "a": pl.Int64, "parent": pl.Int64})
        ends = pl.DataFrame(schema={"row": pl.UInt32, "a": pl.Int64})
        while frontier.height:
            reached = (
                frontier.join(edges, on=["row", "e"])
                .join(visited, on=["row", "a"], how="anti")
                .group_by("row", "a")
                .agg(parent=pl.col("e").min())
            )
            if not reached.height:
                break
            visited = pl.concat([visited, reached])
            new_ends = (
                reached.join(matched, on=["row", "a"], how="anti")
                .group_by("row")
                .agg(pl.col("a").min())
            )
            ends = pl.concat([ends, new_ends])
            frontier = (
                reached.join(new_ends, on="row", how="anti")
                .join(matched, on=["row", "a"])
                .select("row", "e")
            )
        if not ends.height:
            break
        step = ends
        while step.height:
            path = step.join(visited, on=["row", "a"]).rename({"parent": "e"})
            before = path.join(
                matched.rename({"a": "before"}), on=["row", "e"], how="left"
            )  # the actual call e held until now (null: e was free)
            matched = pl.concat(
                [matched.join(path, on=["row", "e"], how="anti"), path.select("row", "e", "a")]
            )
            step = before.filter(pl.col("before").is_not_null()).select("row", a="before")
        active = ends.select("row")
    return matched


#: Bits used in each 64-bit word of the bit-parallel longest common subsequence (one spare
#: bit takes the carry of the addition).
_BITS: Final = 63
_FULL: Final = (1 << _BITS) - 1
_LOW: Final = [(1 << b) - 1 for b in range(_BITS + 1)]  # the b lowest bits set


def _low_bits(count: pl.Expr) -> pl.Expr:
    """Return a word with the ``count`` (0 to 63) lowest bits set."""
    return count.replace_strict(list(range(_BITS + 1)), _LOW, return_dtype=pl.UInt64)


def _bit(position: pl.Expr) -> pl.Expr:
    """Return a word with only bit ``position`` (0 to 62) set."""
    return position.replace_strict(
        list(range(_BITS)), [1 << b for b in range(_BITS)], return_dtype=pl.UInt64
    )


def _in_order(
    masks: pl.DataFrame, offsets: pl.Series, rows: pl.DataFrame, words: int
) -> pl.DataFrame:
    """Return the pairs (row, e, a) of a longest in-order match (longest common subsequence).

    ``rows`` has ``row``, ``n`` (expected calls) and ``m`` (actual calls); ``masks`` has, per
    expected call (row by row, from ``offsets[row]``), the words ``m0``... of the bits of the
    actual calls it matches. The dynamic
    programme ``L[i][j]`` runs bit-parallel (Crochemore et al., 2001: a row of ``L`` is a bit
    vector ``V`` whose zero bits mark where ``L`` steps up, and one expected call updates it by
    ``V = (V + (V & M)) | (V & ~M)``), one step per expected call for all rows at once; each
    ``V_i`` is kept. The match is then traced back from ``(n, m)``: at ``(i, j)``, ``j`` moves
    left to the first column with the same ``L[i][j]`` (the highest zero bit of ``V_i`` below
    ``j``); there, if ``L[i][j] > L[i-1][j]``, expected call ``i`` matched actual call ``j``.
    """
    longest = int(rows.get_column("n").max() or 0)
    frame = rows.with_columns(
        [_low_bits((pl.col("m") - _BITS * w).clip(0, _BITS)).alias(f"v0_{w}") for w in range(words)]
    )
    full = pl.lit(_FULL, pl.UInt64)
    frame = frame.with_columns(o=pl.lit(offsets).gather(pl.col("row")))
    last = max(masks.height - 1, 0)
    for i in range(1, longest + 1):
        # expected call i of each row that has one: its masks, by position (no join)
        at = (pl.col("o") + (i - 1)).clip(0, last)
        have = pl.col("n") >= i
        frame = frame.with_columns(
            pl.when(have)
            .then(pl.lit(masks.get_column(f"m{w}")).gather(at))
            .otherwise(pl.lit(0, pl.UInt64))
            .alias(f"m{w}")
            for w in range(words)
        )
        carry: pl.Expr = pl.lit(0, pl.UInt64)
        updated = []
        for w in range(words):
            v, m = pl.col(f"v{i - 1}_{w}"), pl.col(f"m{w}")
            total = v + (v & m) + carry
            carry = total // pl.lit(1 << _BITS, pl.UInt64)
            updated.append(((total & full) | (v & (~m & full))).alias(f"v{i}_{w}"))
        frame = frame.with_columns(updated).drop([f"m{w}" for w in range(words)])

    def zeros(i: int, j: pl.Expr) -> pl.Expr:
        """L[i][j]: the zero bits of V_i below column j."""
        return pl.sum_horizontal(
            (~pl.col(f"v{i}_{w}") & _low_bits((j - _BITS * w).clip(0, _BITS)))
            .bitwise_count_ones()
            .cast(pl.Int64)
            for w in range(words)
        )

    pairs = []
    frame = frame.with_columns(j=pl.col("m").cast(pl.Int64))
    for i in range(longest, 0, -1):
        j = pl.col("j")
        highest = pl.max_horizontal(
            pl.when(below != 0)
            .then(_BITS * w + 64 - below.bitwise_leading_zeros().cast(pl.Int64))
            .otherwise(0)
            for w in range(words)
            for below in [~pl.col(f"v{i}_{w}") & _low_bits((j - _BITS * w).clip(0, _BITS))]
        )
        frame = frame.with_columns(left=highest)
        left = pl.col("left")
        take = (left > 0) & (zeros(i, left) > zeros(i - 1, left)) & (pl.col("n") >= i)
        frame = frame.with_columns(take=take)
        pairs.append(
            frame.filter(pl.col("take")).select("row", e=pl.lit(i - 1, pl.Int64), a=left - 1)
        )
        frame = frame.with_columns(j=pl.when(pl.col("take")).then(left - 1).otherwise(left)).drop(
            [f"v{i}_{w}" for w in range(words)]
        )
    if not pairs:
        return pl.DataFrame(schema={"row": pl.UInt32, "e": pl.Int64, "a": pl.Int64})
    return pl.concat(pairs)


# ---------------------------------------------------------------------------------------------
# One batch of rows
# ---------------------------------------------------------------------------------------------


def _general_calls(
    frame: pl.DataFrame, sides: dict[int, str], compared: tuple[str, ...] | None, *, tolerant: bool
) -> tuple[pl.DataFrame, dict[int, pl.Series]]:
    """Return the keyed calls of both sides read as tagged JSON, and each side's bad rows."""
    parts, unreadable = [], {}
    for side, kind in sides.items():
        column = "expected" if side == _E else "actual"
        if kind == _LIST:
            parts.append(_list_calls(frame, column, side))
            unreadable[side] = pl.Series([False] * frame.height, dtype=pl.Boolean)
        elif kind == _TEXT:
            side_calls, bad_rows = _text_calls(frame, column, side)
            parts.append(side_calls)
            unreadable[side] = bad_rows
        else:
            unreadable[side] = pl.Series([False] * frame.height, dtype=pl.Boolean)
    schema = _EMPTY_CALLS.schema
    calls = pl.concat([p.cast(schema) for p in parts]) if parts else _EMPTY_CALLS  # type: ignore[arg-type]
    calls = calls.with_columns(bad=pl.col("bad") | pl.col("name").is_null())
    return _keyed(calls, compared, tolerant=tolerant), unreadable


def _read(
    frame: pl.DataFrame, kinds: tuple[str, str], compared: tuple[str, ...] | None, *, tolerant: bool
) -> tuple[pl.DataFrame, dict[int, pl.Series], pl.Series]:
    """Return the keyed calls of a batch, each side's unreadable rows, and the twin rows.

    The calls come expected side first, then actual, each row by row and in order (the steps
    after rely on it: a side's calls of one row are a contiguous slice). A twin row's actual
    value is JSON text equal to its expected text: its actual calls are not read (they are the
    expected calls), and the row holds no actual calls in the table.
    """
    sides = {_E: kinds[1], _A: kinds[0]}
    no_rows = pl.Series([False], dtype=pl.Boolean).new_from_index(0, frame.height)
    twins = no_rows
    if kinds == (_TEXT, _TEXT):
        same_text = pl.col("actual") == pl.col("expected")
        twins = frame.select(same_text.fill_null(value=False)).to_series()
    fast = _fast_calls(frame, sides, compared, twins) if FAST and not tolerant else None
    if fast is not None:
        calls, unreadable = fast, {_E: no_rows, _A: no_rows}
    else:
        calls, unreadable, twins = (
            *_general_calls(frame, sides, compared, tolerant=tolerant),
            no_rows,
        )
    if calls.schema["key"] != pl.UInt64:
        calls = calls.with_columns(pl.col("key").hash(_SEED))
    return calls, unreadable, twins


def _check_expected(calls: pl.DataFrame, unreadable: pl.Series) -> None:
    """Raise naming the first row whose expected value is bad."""
    bad_expected = (
        calls.filter((pl.col("side") == _E) & pl.col("bad")).get_column("row").to_list()[:1]
    )
    unreadable_expected = unreadable.arg_true().to_list()[:1]
    first = min(bad_expected + unreadable_expected, default=None)
    if first is not None:
        what = (
            "is not JSON holding a list of tool calls"
            if first in unreadable_expected
            else "has a tool call without a name (text), or whose arguments are not a JSON object"
        )
        msg = f"`tool_calls`: the expected value in row {first} {what}"
        raise ValueError(msg)


def _same_rows(expected: pl.DataFrame, actual: pl.DataFrame, offsets: dict[int, pl.Series]):
    """Return, per row, whether both sides hold the same keys in the same order.

    Each expected call is set against the actual call at its position (rows of equal length
    only) and the differences are summed per row by a running sum: no grouping, no join.
    """
    n, m = _counts(offsets[_E]), _counts(offsets[_A])
    equal = n == m
    row = pl.col("row")
    at = expected.select(
        pl.when(pl.lit(equal).gather(row)).then(pl.lit(offsets[_A]).gather(row) + pl.col("pos"))
    ).to_series()
    differs = (expected.get_column("key") != actual.get_column("key").gather(at)).fill_null(
        value=True
    )
    running = pl.concat([pl.Series([0], dtype=pl.Int64), differs.cast(pl.Int64).cum_sum()])
    return equal & (
        running.gather(offsets[_E].slice(1)) == running.gather(offsets[_E].slice(0, n.len()))
    )


def _graded_flags(
    graded: pl.DataFrame, height: int, mode: str, rel_tol: float, *, tolerant: bool
) -> pl.Series:
    """Return whether each call of ``graded`` is matched: the matching of its rows' calls."""
    expected = int(graded.get_column("side").eq(_E).sum())
    offsets = {
        _E: _offsets(graded.get_column("row").slice(0, expected), height),
        _A: _offsets(graded.get_column("row").slice(expected), height),
    }
    edges = _edges(graded, rel_tol) if tolerant else None
    if mode in ("exact", "in_order"):
        rows = pl.DataFrame(
            {
                "row": pl.int_range(0, height, dtype=pl.UInt32, eager=True),
                "n": _counts(offsets[_E]),
                "m": _counts(offsets[_A]),
            }
        ).filter((pl.col("n") > 0) & (pl.col("m") > 0))
        if not rows.height:
            return pl.Series([False], dtype=pl.Boolean).new_from_index(0, graded.height)
        words = -(-int(rows.get_column("m").max()) // _BITS)  # type: ignore[arg-type]
        if edges is None:
            masks = _key_masks(graded, expected, words)
        else:
            masks = _edge_masks(graded, edges, expected, words)
        pairs = _in_order(masks, offsets[_E], rows, words)
    elif edges is None:
        return _counted(graded)
    else:
        pairs = _augmented(edges)
    at = pl.concat(
        [
            pairs.select(i=pl.lit(offsets[_E]).gather("row") + pl.col("e")),
            pairs.select(i=expected + pl.lit(offsets[_A]).gather("row") + pl.col("a")),
        ]
    ).get_column("i")
    flags = pl.Series([False], dtype=pl.Boolean).new_from_index(0, graded.height)
    return flags.scatter(at, True) if at.len() else flags


def _listed(side: pl.DataFrame, left: pl.Series, height: int) -> pl.Series:
    """Return, per row, the names of a side's calls that are ``left`` (a list, in their order).

    Only those calls are taken (few, against all calls); the lists are built on offsets found
    by a binary search, no grouping.
    """
    calls = side.select("row", "name").filter(left)
    offsets = _offsets(calls.get_column("row"), height)
    names = calls.get_column("name").cast(pl.String).rechunk()
    lists = pa.LargeListArray.from_arrays(offsets.to_arrow(), names.to_arrow())
    return pl.Series(pl.from_arrow(lists))


def _grade_batch(
    batch: pl.Series,
    *,
    kinds: tuple[str, str],
    mode: str,
    compared: tuple[str, ...] | None,
    rel_tol: float,
) -> pl.Series:
    """Grade a batch of rows: ``batch`` is a struct of the sides ``actual`` and ``expected``."""
    frame = batch.struct.unnest().with_row_index("row")
    height, tolerant = frame.height, rel_tol > 0 and compared != ()
    calls, unreadable, twins = _read(frame, kinds, compared, tolerant=tolerant)
    _check_expected(calls, unreadable[_E])
    # A bad actual value fails its row; its actual calls are neither matched nor listed.
    bad_rows = calls.filter(pl.col("bad")).get_column("row")
    failed = unreadable[_A].clone().scatter(bad_rows, True) if bad_rows.len() else unreadable[_A]
    expected = int(calls.get_column("side").eq(_E).sum())
    sides = {_E: calls.slice(0, expected), _A: calls.slice(expected)}
    offsets = {s: _offsets(part.get_column("row"), height) for s, part in sides.items()}
    if tolerant:
        same = pl.Series([False], dtype=pl.Boolean).new_from_index(0, height)
    else:  # every call of such a row is matched in every mode: it is left out of the matching
        same = (_same_rows(sides[_E], sides[_A], offsets) | twins) & ~failed
    row = pl.col("row")
    skipped = pl.lit(same).gather(row) | ((pl.col("side") == _A) & pl.lit(failed).gather(row))
    keep = calls.select(~skipped).to_series()
    matched = calls.select(pl.lit(same).gather(row)).to_series()
    if keep.any():
        flags = _graded_flags(calls.filter(keep), height, mode, rel_tol, tolerant=tolerant)
        matched = matched.scatter(keep.arg_true(), flags)
    listed_a = sides[_A].select(~pl.lit(failed).gather(row)).to_series()
    missing = _listed(sides[_E], ~matched.slice(0, expected), height)
    extra = _listed(sides[_A], ~matched.slice(expected) & listed_a, height)
    return _verdict(mode, missing, extra, offsets, failed, twins).alias(batch.name)


def _verdict(
    mode: str,
    missing: pl.Series,
    extra: pl.Series,
    offsets: dict[int, pl.Series],
    failed: pl.Series,
    twins: pl.Series,
) -> pl.Series:
    """Return the result struct from the calls left unmatched on each side.

    A twin row (see :func:`_read`) holds as many actual calls as expected ones.
    """
    unmatched_e, unmatched_a = missing.list.len(), extra.list.len()
    if mode in ("exact", "any_order"):
        ok = (unmatched_e == 0) & (unmatched_a == 0)
    elif mode in ("in_order", "superset"):
        ok = unmatched_e == 0
    else:
        ok = unmatched_a == 0
    if mode == "exact":
        ok = ok & ((_counts(offsets[_E]) == _counts(offsets[_A])) | twins)
    return pl.DataFrame({"correct": ok & ~failed, "missing": missing, "extra": extra}).to_struct()


# ---------------------------------------------------------------------------------------------
# The matcher
# ---------------------------------------------------------------------------------------------


def _check_arguments(
    mode: object, arguments: object, rel_tol: object
) -> tuple[str, tuple[str, ...] | None, float]:
    """Check ``mode``, ``arguments`` and ``rel_tol``; return the compared keys (None: all)."""
    if mode not in MODES:
        allowed = ", ".join(repr(m) for m in MODES)
        msg = f"`mode` must be one of {allowed}, got {mode!r}"
        raise ValueError(msg)
    compared: tuple[str, ...] | None
    if arguments == "exact":
        compared = None
    elif arguments == "ignore":
        compared = ()
    elif isinstance(arguments, list | tuple) and all(isinstance(k, str) for k in arguments):
        if not arguments:
            msg = '`arguments` as a list of keys names at least one key (for none: "ignore")'
            raise ValueError(msg)
        compared = tuple(arguments)
    else:
        msg = (
            '`arguments` must be "exact", "ignore" or a list of argument names (str), '
            f"got {type(arguments).__name__}: {arguments!r}"
        )
        raise ValueError(msg)
    if not _base.is_number(rel_tol) or not 0 <= rel_tol < float("inf"):  # type: ignore[operator]
        msg = f"`rel_tol` must be a finite number >= 0, got {rel_tol!r}"
        raise ValueError(msg)
    return str(mode), compared, float(rel_tol)  # type: ignore[arg-type]


@_base.shares_parameters
def tool_calls(
    actual: IntoExpr = "tool_calls",
    expected: IntoExpr = "expected_calls",
    *,
    mode: Mode = "in_order",
    arguments: Arguments = "exact",
    rel_tol: float = 0.0,
    label: str | None = None,
    prefix: str = "",
    schema: Schema | None = None,
) -> pl.Expr:
    r"""Check that an agent called the expected tools, with the expected arguments, in order.

    Each side is a list of calls, a call being a struct with ``name`` and ``arguments`` (a
    struct, or a JSON object as text), or JSON text holding such a list; a null side (and a
    blank text) is no calls. An actual call matches an expected call when the names are equal
    and the arguments match: with ``arguments="exact"`` equal as JSON values (keys in any
    order, numbers by value so 1 equals 1.0, strings exactly, lists in order, nested objects
    alike, a null value the same as an absent key, a Boolean never a number); with
    ``"ignore"`` the names alone; with a list of keys only those keys, as under "exact" (a
    listed key absent on both sides matches). Numbers are compared as 64-bit floats. Other
    fields of a call (``id``, ``type``) are not compared.

    Modes, for the expected calls E and the actual calls A:

    - ``"exact"``: A is E, call for call, in the same order;
    - ``"in_order"``: E appears in order within A (other calls may come between);
    - ``"any_order"``: A and E match one to one, in any order;
    - ``"superset"``: every call of E matches a distinct call of A (A may have more);
    - ``"subset"``: every call of A matches a distinct call of E (E may have more).

    "Distinct" is a maximum matching, not a greedy one. ``missing`` lists the names of the
    expected calls left unmatched and ``extra`` those of the actual calls, each in its side's
    order; under "exact" and "in_order" they are the calls outside a longest in-order match.
    When more than one maximum matching exists, which of two calls of the same name is listed
    may differ, never how many of each name.

    A bad expected value (text that is not a JSON list of calls, a call without a name, or
    arguments that are not an object) raises naming the row; a bad actual value fails its row
    (``correct`` false, every expected call missing).

    Parameters
    ----------
    actual
        The calls the agent made: a column name or an expression.
    expected
        The calls expected: a column name or an expression.
    mode
        ``"exact"``, ``"in_order"``, ``"any_order"``, ``"superset"`` or ``"subset"``.
    arguments
        ``"exact"``, ``"ignore"``, or a list of the argument names to compare.
    rel_tol
        Numbers (nested ones too) match when ``|a - b| <= rel_tol * max(|a|, |b|)``.
    label
        Replaces the default description, the mode's name.

    Returns
    -------
    pl.Expr
        A struct expression named ``prefix + "tool_calls"`` with the fields ``correct``,
        ``expectation``, ``missing`` and ``extra`` (List(String)).

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "tool_calls": [
    ...             '[{"name": "search", "arguments": {"q": "paris"}},'
    ...             ' {"name": "weather", "arguments": {"city": "Paris", "days": 3}}]',
    ...             '[{"name": "weather", "arguments": {"days": 3.0, "city": "Paris"}}]',
    ...             None,
    ...         ],
    ...         "expected_calls": [
    ...             '[{"name": "weather", "arguments": {"city": "Paris", "days": 3}}]'
    ...         ]
    ...         * 3,
    ...     }
    ... )
    >>> df.select(gf.tool_calls()).unnest("tool_calls")
    shape: (3, 4)
    ┌─────────┬─────────────┬─────────────┬────────────┐
    │ correct ┆ expectation ┆ missing     ┆ extra      │
    │ ---     ┆ ---         ┆ ---         ┆ ---        │
    │ bool    ┆ str         ┆ list[str]   ┆ list[str]  │
    ╞═════════╪═════════════╪═════════════╪════════════╡
    │ true    ┆ in_order    ┆ []          ┆ ["search"] │
    │ true    ┆ in_order    ┆ []          ┆ []         │
    │ false   ┆ in_order    ┆ ["weather"] ┆ []         │
    └─────────┴─────────────┴─────────────┴────────────┘
    >>> df.select(gf.tool_calls(mode="exact")).unnest("tool_calls").get_column("correct").to_list()
    [False, True, False]
    """
    checked_mode, compared, tolerance = _check_arguments(mode, arguments, rel_tol)
    inputs = _base.inputs(actual=actual, expected=expected)
    return _base.expression(
        TOOL_CALLS,
        inputs,
        lambda resolved: _rule(resolved, checked_mode, compared, tolerance),
        expectation=_base.expectation(label, checked_mode),
        prefix=prefix,
        schema=schema,
    )


def _rule(
    inputs: dict[str, Input], mode: str, compared: tuple[str, ...] | None, rel_tol: float
) -> pl.Expr:
    actual, expected = inputs["actual"], inputs["expected"]
    kinds = (_kind(actual), _kind(expected))
    sides = pl.struct(
        actual=_as_calls(actual.expr, kinds[0]),
        expected=_as_calls(expected.expr, kinds[1]),
    )
    return sides.map_batches(
        lambda batch: _grade_batch(
            batch, kinds=kinds, mode=mode, compared=compared, rel_tol=rel_tol
        ),
        return_dtype=_RESULT,
        is_elementwise=True,
    )


with_tool_calls = _base.frame_function(
    TOOL_CALLS.columns,
    tool_calls,
    "Add ``correct``, ``expectation``, ``missing`` and ``extra``; see :func:`tool_calls`.",
)
