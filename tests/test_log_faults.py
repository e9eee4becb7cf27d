"""Hostile and broken logs: every fault a log reader met, reproduced from the real fixtures.

Each test breaks a log written by the real tool (tests/fixtures/logs/, see its README) in a
temporary folder: cut short, given bad bytes, re-zipped, bombed or with fields of other types;
the reader either reads it or raises a :class:`LogFormatError` naming the file (and the line,
member or record, and the field). Nothing is left out without a word.
"""

from __future__ import annotations

import json
import random
import shutil
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest

import gradeframe as gf
from gradeframe.logs import LogFormatError, SkippedLogWarning, detect_tool
from tests.test_logs import run_cli

LOGS = Path(__file__).parent / "fixtures" / "logs"
INSPECT = LOGS / "inspect"
INSPECT_QA_EVAL = INSPECT / "2026-11-30T20-32-04-00-00_gf-qa_hH4q6vpC7RtD79gw4cKxLP.eval"
INSPECT_QA_JSON = INSPECT / "2026-11-30T20-32-12-00-00_gf-qa_9AVH5LECPjQ7cbwAFhBhEM.json"
UNSCORED = INSPECT / "unscored"
UNSCORED_JSON = UNSCORED / "2026-12-01T23-09-50-00-00_gf-unscored_XCa2Wmdxye3FbnjG8mVioy.json"
UNSCORED_EVAL = UNSCORED / "2026-12-01T23-09-53-00-00_gf-unscored_VRj5rJPvZiHfWe7kP33Miq.eval"
NO_SCORE_EVAL = UNSCORED / "2026-12-01T23-09-57-00-00_gf-scored_3KePpCY7yxDWKbveFdnA7o.eval"
LM_EVAL = LOGS / "lm_eval" / "demo-org__scripted-a"
LM_EVAL_GEN = LM_EVAL / "samples_gf_gen_2026-11-30T20-34-46.889095.jsonl"
LM_EVAL_RESULTS = LM_EVAL / "results_2026-11-30T20-34-46.889095.json"
PROMPTFOO_JSON = LOGS / "promptfoo" / "results.json"
PROMPTFOO_JSONL = LOGS / "promptfoo" / "results.jsonl"
OPENAI_MATCH = LOGS / "openai_evals" / "gf-match.jsonl"
HELM_QA = LOGS / "helm" / "v1" / "gf_qa__model_gf_scripted-a"


def eval_members(path: Path) -> dict[str, bytes]:
    """The decompressed members of a real .eval (its members are Zstandard-compressed)."""
    from gradeframe.logs._common import ZipLog

    with zipfile.ZipFile(path) as archive:
        log = ZipLog(path, archive, None)
        return {name: log.read(name) for name in log.infos}


def write_eval(target: Path, members: dict[str, bytes] | list[tuple[str, bytes]]) -> Path:
    """Write members as a zip (deflated: Python's zipfile cannot write Zstandard)."""
    items = members.items() if isinstance(members, dict) else members
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in items:
            archive.writestr(name, data)
    return target


# ---- 8. malformed fields: a named LogFormatError, never a crash deep inside -----------------

_DEEP = "__deeply_nested__"  # written as 100,000 nested lists
REPLACEMENTS: list[Any] = [None, 7, -1.5, "x", True, [], [1, "a"], {}, {"a": [1]}, _DEEP]


def _paths(value: Any, prefix: tuple = (), depth: int = 0) -> Iterator[tuple]:
    """Every JSON path in a document (the first three items of each list)."""
    yield prefix
    if depth >= 7:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key), depth + 1)
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):
            yield from _paths(item, (*prefix, index), depth + 1)


def _replaced(document: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    copy = json.loads(json.dumps(document))
    parent = copy
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = new
    return copy


def _dumps(value: Any) -> str:
    deep = "[" * 100_000 + "]" * 100_000
    return json.dumps(value).replace(json.dumps(_DEEP), deep)


def _variants(document: Any, seed: str, count: int) -> list[tuple[tuple, Any]]:
    """``count`` (path, new value) pairs, the same on every run."""
    rng = random.Random(seed)
    paths = list(_paths(document))
    picked = rng.sample(paths, min(count, len(paths)))
    return [(path, _replaced(document, path, rng.choice(REPLACEMENTS))) for path in picked]


def _json_lines(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _write_json(target: Path, document: Any) -> None:
    target.write_text(_dumps(document))


def _write_lines(target: Path, records: Any) -> None:
    if isinstance(records, list):
        target.write_text("\n".join(_dumps(record) for record in records))
    else:
        target.write_text(_dumps(records))


def _write_members(target: Path, members: Any) -> None:
    if isinstance(members, dict):
        write_eval(target, {name: _dumps(value).encode() for name, value in members.items()})
    else:
        target.write_text(_dumps(members))


def _eval_document(source: Path) -> dict[str, Any]:
    members = eval_members(source)
    kept = ["header.json", *[m for m in members if m.startswith("samples/")][:3]]
    return {name: json.loads(members[name]) for name in kept}


# (name, the file the variant is written to, its document, how to write it, what to read)
def _fuzz_cases(tmp: Path) -> list[tuple[str, Path, Any, Callable[[Path, Any], None], Path]]:
    helm = tmp / "helm_run"
    shutil.copytree(HELM_QA, helm)
    lm = tmp / "lm"
    lm.mkdir()
    shutil.copy(LM_EVAL_GEN, lm)
    shutil.copy(LM_EVAL_RESULTS, lm)
    state, stats = helm / "scenario_state.json", helm / "per_instance_stats.json"
    return [
        (
            "inspect-json",
            tmp / INSPECT_QA_JSON.name,
            json.loads(INSPECT_QA_JSON.read_text()),
            _write_json,
            tmp / INSPECT_QA_JSON.name,
        ),
        (
            "inspect-eval",
            tmp / INSPECT_QA_EVAL.name,
            _eval_document(INSPECT_QA_EVAL),
            _write_members,
            tmp / INSPECT_QA_EVAL.name,
        ),
        (
            "lm_eval",
            lm / LM_EVAL_GEN.name,
            _json_lines(LM_EVAL_GEN)[:4],
            _write_lines,
            lm / LM_EVAL_GEN.name,
        ),
        (
            "lm_eval-results",
            lm / LM_EVAL_RESULTS.name,
            json.loads(LM_EVAL_RESULTS.read_text()),
            _write_json,
            lm / LM_EVAL_GEN.name,
        ),
        (
            "promptfoo-json",
            tmp / "results.json",
            json.loads(PROMPTFOO_JSON.read_text()),
            _write_json,
            tmp / "results.json",
        ),
        (
            "promptfoo-jsonl",
            tmp / "results.jsonl",
            _json_lines(PROMPTFOO_JSONL)[:4],
            _write_lines,
            tmp / "results.jsonl",
        ),
        (
            "openai_evals",
            tmp / OPENAI_MATCH.name,
            _json_lines(OPENAI_MATCH),
            _write_lines,
            tmp / OPENAI_MATCH.name,
        ),
        ("helm-state", state, json.loads(state.read_text()), _write_json, helm),
        ("helm-stats", stats, json.loads(stats.read_text()), _write_json, helm),
    ]


def test_malformed_fields_read_or_raise_a_log_format_error_naming_the_file(tmp_path):
    escaped = []
    for name, target, document, write, read in _fuzz_cases(tmp_path):
        original = target.read_bytes() if target.exists() else None
        for path, variant in _variants(document, name, 30):
            write(target, variant)
            try:
                frame = gf.read_log(read)
            except LogFormatError as error:
                if str(target) not in str(error) and str(read) not in str(error):
                    escaped.append((name, path, f"unnamed: {error}"))
            except Exception as error:  # noqa: BLE001 - any other error is the fault
                escaped.append((name, path, f"{type(error).__name__}: {error}"[:300]))
            else:
                assert isinstance(frame, pl.DataFrame)
        if original is not None:
            target.write_bytes(original)
    assert not escaped, "\n".join(map(str, escaped))
