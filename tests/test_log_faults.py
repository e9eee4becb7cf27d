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
NEW = Path(__file__).parent / "fixtures" / "logs_new"
DEEPEVAL_RUN = sorted((NEW / "deepeval").glob("test_run_*.json"))[0]
BRAINTRUST = NEW / "braintrust" / "gf-braintrust.json"
PHOENIX_JSON = NEW / "phoenix" / "gf-phoenix.json"
EEE_QA = next((NEW / "eee" / "inspect" / "gf_qa").rglob("*_samples.jsonl"))


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


def run(*argv: str) -> tuple[int, str, str]:
    """Run ``gradeframe`` in this process (an error it does not handle fails the test)."""
    return run_cli(*map(str, argv))


def _folder_with(tmp_path: Path, broken_name: str, data: bytes) -> tuple[Path, Path]:
    """A folder of real logs (openai evals and promptfoo) plus one broken log."""
    folder = tmp_path / "logs"
    shutil.copytree(LOGS / "openai_evals", folder)
    shutil.copy(PROMPTFOO_JSONL, folder)
    (folder / "README.md").write_text("# notes\n")
    (folder / "settings.json").write_text('{"temperature": 0}')
    broken = folder / broken_name
    broken.write_bytes(data)
    return folder, broken


# ---- 1. a folder read never drops a log it cannot read ------------------------------------


def _lm_eval_lines() -> list[bytes]:
    return LM_EVAL_GEN.read_bytes().splitlines(keepends=True)


def _cut_first_line() -> bytes:
    lines = _lm_eval_lines()
    return lines[0][: len(lines[0]) // 2] + b"".join(lines[1:])


def _bad_utf8_first_line() -> bytes:
    lines = _lm_eval_lines()
    return lines[0].replace(b"units", b"units\xff\xfe", 1) + b"".join(lines[1:])


def _cut_inspect_json(keep: int) -> bytes:
    return INSPECT_QA_JSON.read_bytes()[:keep]


def _late_key_unreadable_promptfoo() -> bytes:
    """promptfoo JSON with ``evalId`` last, after 128 KB of results, cut before its end."""
    document = json.loads(PROMPTFOO_JSON.read_text())
    moved = {k: v for k, v in document.items() if k != "evalId"} | {"evalId": "eval-1"}
    text = json.dumps(moved)
    return text[: text.index('"evalId"') + 12].encode()


BROKEN_LOGS = {
    # a JSON Lines log whose first line was cut (its name says lm-eval)
    "cut-first-line": (LM_EVAL_GEN.name, _cut_first_line, r"line 1: not valid JSON"),
    # the same with invalid UTF-8 in its first line (and a name that says nothing)
    "bad-utf8": ("run.jsonl", _bad_utf8_first_line, r"line 1: not UTF-8 text"),
    # inspect .json cut after 10 bytes (recognised by its name) and after 3 KB
    "inspect-cut-early": (INSPECT_QA_JSON.name, lambda: _cut_inspect_json(10), "not valid JSON"),
    "inspect-cut": ("run.json", lambda: _cut_inspect_json(3000), "not valid JSON"),
    # promptfoo JSON whose evalId comes after its first 64 KB, then cut
    "promptfoo-late-key": ("export.json", _late_key_unreadable_promptfoo, "not valid JSON"),
}


@pytest.mark.parametrize("case", list(BROKEN_LOGS))
def test_folder_read_raises_naming_a_broken_log_instead_of_dropping_it(tmp_path, case):
    name, make, problem = BROKEN_LOGS[case]
    folder, broken = _folder_with(tmp_path, name, make())
    with pytest.raises(LogFormatError, match=problem) as error:
        gf.read_log(folder)
    assert str(broken) in str(error.value)
    assert detect_tool(broken) is not None  # recognised as a log, though it cannot be read


@pytest.mark.parametrize("case", list(BROKEN_LOGS))
def test_errors_skip_reads_the_other_logs_and_names_the_broken_one(tmp_path, case):
    name, make, _ = BROKEN_LOGS[case]
    folder, broken = _folder_with(tmp_path, name, make())
    with pytest.warns(SkippedLogWarning, match=r"1 log\(s\) .* skipped") as caught:
        frame = gf.read_log(folder, errors="skip")
    assert str(broken) in str(caught[0].message)
    expected = gf.read_log(LOGS / "openai_evals").height + gf.read_log(PROMPTFOO_JSONL).height
    assert frame.height == expected


def test_cli_stops_at_a_broken_log_in_a_folder_or_skips_it_when_asked(tmp_path):
    folder, broken = _folder_with(tmp_path, LM_EVAL_GEN.name, _cut_first_line())
    status, out, err = run("score", folder, "--quiet")
    assert status == 2
    assert out == ""
    assert err.startswith("gradeframe: error: ")
    assert str(broken) in err
    assert "line 1: not valid JSON" in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err
    status, out, err = run("score", folder, "--quiet", "--skip-bad-logs")
    assert status == 0, err
    assert "(1 unreadable log(s) skipped, named on stderr)" in out.splitlines()[0]
    assert err.startswith("gradeframe: warning: 1 log(s)")
    assert str(broken) in err


def test_helm_run_folder_without_its_scenario_state_is_named(tmp_path):
    run = tmp_path / "runs" / HELM_QA.name
    shutil.copytree(HELM_QA, run)
    (run / "scenario_state.json").unlink()
    with pytest.raises(LogFormatError, match=r"not a HELM run folder \(no scenario_state\.json\)"):
        gf.read_log(tmp_path / "runs")


def test_a_first_line_longer_than_4_mb_is_read(tmp_path):
    lines = _lm_eval_lines()
    first = json.loads(lines[0])
    first["doc"]["padding"] = "x" * 5_000_000
    folder = tmp_path / LM_EVAL.name
    folder.mkdir()
    shutil.copy(LM_EVAL_RESULTS, folder)
    (folder / LM_EVAL_GEN.name).write_bytes(
        json.dumps(first).encode() + b"\n" + b"".join(lines[1:])
    )
    assert detect_tool(folder / LM_EVAL_GEN.name) == "lm_eval"
    assert gf.read_log(folder).height == gf.read_log(LM_EVAL_GEN).height


def test_promptfoo_json_with_its_eval_id_after_64_kb_is_read(tmp_path):
    document = json.loads(PROMPTFOO_JSON.read_text())
    moved = {k: v for k, v in document.items() if k != "evalId"} | {"evalId": "eval-1"}
    text = json.dumps(moved)
    assert text.index('"evalId"') > 65_536
    (tmp_path / "export.json").write_text(text)
    assert detect_tool(tmp_path / "export.json") == "promptfoo"
    assert gf.read_log(tmp_path).height == gf.read_log(PROMPTFOO_JSON).height


def test_files_that_are_not_logs_are_ignored(tmp_path):
    folder, _ = _folder_with(tmp_path, "answers.csv", b"answer,refs\n12,12\n")
    (folder / "logs.json").write_text(json.dumps({"x.eval": {"eval": {"eval_id": "1"}}}))
    (folder / "notes.txt").write_bytes(b"\xff not text")
    frame = gf.read_log(folder)
    assert sorted(frame["tool"].unique()) == ["openai_evals", "promptfoo"]
    for name in ("README.md", "settings.json", "answers.csv", "logs.json", "notes.txt"):
        assert detect_tool(folder / name) is None


def test_a_folder_where_no_log_can_be_read_raises_even_with_errors_skip(tmp_path):
    (tmp_path / LM_EVAL_GEN.name).write_bytes(_cut_first_line())
    with pytest.raises(LogFormatError, match="line 1: not valid JSON"):
        gf.read_log(tmp_path, errors="skip")
    with pytest.raises(ValueError, match=r"`errors` must be 'raise' or 'skip', got 'ignore'"):
        gf.read_log(tmp_path, errors="ignore")


# ---- 3. inspect logs without scores ---------------------------------------------------------


@pytest.mark.parametrize("path", [UNSCORED_JSON, UNSCORED_EVAL, NO_SCORE_EVAL])
def test_inspect_log_without_scores_reads_with_null_verdicts(path):
    frame = gf.read_log(path)
    assert frame.height == 3
    assert frame["tool_score"].null_count() == 3
    assert frame["tool_correct"].null_count() == 3
    assert frame.schema["tool_correct"] == pl.Boolean
    graded = frame.grade.answer_contains("output", "refs").sort("sample_id")
    assert graded["correct"].to_list() == [True, False, True]  # capital, height, units
    # nothing to choose from: scorer= does not raise
    assert gf.read_inspect(path, scorer="includes").height == 3


def test_inspect_unscored_json_and_eval_read_alike():
    columns = ["sample_id", "epoch", "input", "output", "refs", "tool_score", "tool_correct"]
    as_json = gf.read_log(UNSCORED_JSON).select(columns).sort("sample_id")
    as_eval = gf.read_log(UNSCORED_EVAL).select(columns).sort("sample_id")
    assert as_json.equals(as_eval)


# ---- 5. .eval zip bombs ----------------------------------------------------------------------

_ZSTD = 93


def _zip(entries: list[tuple[str, bytes, int, int, int]], aliases: int = 0) -> bytes:
    """A zip archive of ``(name, stored bytes, method, declared size, crc)`` entries, written
    byte by byte (Python's zipfile writes no Zstandard members and no false sizes); ``aliases``
    more directory entries point at the first member's data."""
    body, directory = bytearray(), bytearray()
    offsets = []
    for name, data, method, size, crc in entries:
        offsets.append(len(body))
        raw = name.encode()
        body += (
            struct.pack(
                "<4sHHHHHIIIHH",
                b"PK\x03\x04",
                20,
                0,
                method,
                0,
                0,
                crc,
                len(data),
                size,
                len(raw),
                0,
            )
            + raw
            + data
        )
    names = [(e[0], e, o) for e, o in zip(entries, offsets, strict=True)]
    names += [(f"samples/alias_{i}.json", entries[0], offsets[0]) for i in range(aliases)]
    for name, (_, data, method, size, crc), offset in names:
        raw = name.encode()
        directory += (
            struct.pack(
                "<4sHHHHHHIIIHHHHHII",
                b"PK\x01\x02",
                20,
                20,
                0,
                method,
                0,
                0,
                crc,
                len(data),
                size,
                len(raw),
                0,
                0,
                0,
                0,
                0,
                offset,
            )
            + raw
        )
    end = struct.pack(
        "<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(names), len(names), len(directory), len(body), 0
    )
    return bytes(body + directory + end)


def _zstd_frame(data_chunks: Iterator[bytes]) -> bytes:
    import zstandard

    compressor = zstandard.ZstdCompressor(level=1).compressobj()
    out = b"".join(compressor.compress(chunk) for chunk in data_chunks)
    return out + compressor.flush()


def _real_members() -> list[tuple[str, bytes, int, int, int]]:
    """The real gf-qa .eval's members, Zstandard-compressed again, with their true sizes."""
    import zstandard

    compressor = zstandard.ZstdCompressor()
    return [
        (name, compressor.compress(data), _ZSTD, len(data), zlib.crc32(data))
        for name, data in eval_members(INSPECT_QA_EVAL).items()
    ]


def test_rewritten_eval_archive_reads_as_the_real_one(tmp_path):
    target = tmp_path / INSPECT_QA_EVAL.name
    target.write_bytes(_zip(_real_members()))
    columns = ["sample_id", "epoch", "output", "refs", "tool_score"]
    assert gf.read_log(target).select(columns).equals(gf.read_log(INSPECT_QA_EVAL).select(columns))


def test_member_holding_more_than_it_declares_stops_at_the_declared_size(tmp_path):
    import time
    import tracemalloc

    # 512 MiB of JSON white space compressed into a member that declares 1,000 bytes
    bomb = _zstd_frame(b" " * (1 << 20) for _ in range(512))
    members = _real_members()
    name = "samples/units_epoch_1.json"
    members = [(n, bomb, _ZSTD, 1000, 0) if n == name else m for m in members for n in [m[0]]]
    target = tmp_path / INSPECT_QA_EVAL.name
    target.write_bytes(_zip(members))
    assert target.stat().st_size < 200_000
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(LogFormatError, match=r"holds more than the 1,000 bytes it declares"):
            gf.read_log(target)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - started < 5
    assert peak < 10_000_000  # the whole bomb would be 512 MiB
    with pytest.raises(LogFormatError) as error:
        gf.read_log(target)
    assert str(target) in str(error.value)
    assert repr(name) in str(error.value)


def test_directory_entries_pointing_at_one_member_are_refused(tmp_path):
    members = _real_members()
    target = tmp_path / INSPECT_QA_EVAL.name
    target.write_bytes(_zip(members, aliases=400))
    with pytest.raises(LogFormatError, match=r"point at the same data \(a zip bomb"):
        gf.read_log(target)


def test_total_decompressed_bytes_are_capped_per_log(tmp_path):
    total = sum(len(data) for data in eval_members(INSPECT_QA_EVAL).values())
    with pytest.raises(LogFormatError, match=r"would take the log past max_bytes=10,000") as error:
        gf.read_log(INSPECT_QA_EVAL, max_bytes=10_000)
    assert str(INSPECT_QA_EVAL) in str(error.value)
    assert gf.read_log(INSPECT_QA_EVAL, max_bytes=total).height == 22
    assert gf.read_log(INSPECT_QA_EVAL, max_bytes=None).height == 22


def test_member_cut_short_or_failing_its_crc_is_named(tmp_path):
    members = _real_members()
    name = "samples/height_epoch_1.json"
    cut = [(n, d, m, size + 10, c) if n == name else e for e in members for n, d, m, size, c in [e]]
    target = tmp_path / INSPECT_QA_EVAL.name
    target.write_bytes(_zip(cut))
    with pytest.raises(LogFormatError, match=rf"member '{name}' is cut short"):
        gf.read_log(target)
    bad_crc = [
        (n, d, m, size, c ^ 1) if n == name else e for e in members for n, d, m, size, c in [e]
    ]
    target.write_bytes(_zip(bad_crc))
    with pytest.raises(LogFormatError, match=rf"member '{name}' fails its CRC check"):
        gf.read_log(target)


# ---- 9. inspect samples: one rule for .json and .eval ---------------------------------------


def _eval_with(target: Path, change: Callable[[str, Any], Any]) -> Path:
    """The real gf-qa .eval with each sample passed through ``change(member, sample)``."""
    members = eval_members(INSPECT_QA_EVAL)
    for name, data in members.items():
        if name.startswith("samples/"):
            members[name] = json.dumps(change(name, json.loads(data))).encode()
    return write_eval(target, members)


def _json_with(target: Path, change: Callable[[int, Any], Any]) -> Path:
    log = json.loads(INSPECT_QA_JSON.read_text())
    log["samples"] = [change(i, sample) for i, sample in enumerate(log["samples"])]
    target.write_text(json.dumps(log))
    return target


def test_inspect_sample_that_is_not_an_object_is_a_named_error(tmp_path):
    target = _json_with(tmp_path / "a.json", lambda i, s: 7 if i == 2 else s)
    with pytest.raises(LogFormatError, match=r"a\.json: samples\[2\] is not a JSON object"):
        gf.read_log(target)
    member = "samples/temp_epoch_1.json"
    target = _eval_with(tmp_path / "a.eval", lambda n, s: [s] if n == member else s)
    with pytest.raises(LogFormatError, match=rf"a\.eval\[{member}\]: the sample is not a JSON"):
        gf.read_log(target)


def test_inspect_sample_without_epoch_is_kept_as_epoch_1_in_both_formats(tmp_path):
    def drop(_, sample):
        return {k: v for k, v in sample.items() if not (k == "epoch" and sample["id"] == "temp")}

    as_json = gf.read_log(_json_with(tmp_path / "a.json", drop))
    as_eval = gf.read_log(_eval_with(tmp_path / "a.eval", drop))
    for frame in (as_json, as_eval):
        assert frame.height == 22
        assert frame.filter(sample_id="temp")["epoch"].to_list() == [1, 1]


def test_inspect_number_target_reads_as_its_text_in_both_formats(tmp_path):
    def seven(_, sample):
        return {**sample, "target": 7} if sample["id"] == "boom" else sample

    for frame in (
        gf.read_log(_json_with(tmp_path / "a.json", seven)),
        gf.read_log(_eval_with(tmp_path / "a.eval", seven)),
    ):
        assert frame.filter(sample_id="boom")["refs"].to_list() == [["7"], ["7"]]


def test_two_eval_members_with_one_name_are_a_named_error(tmp_path):
    members = list(eval_members(INSPECT_QA_EVAL).items())
    name = "samples/units_epoch_1.json"
    twice = [*members, (name, dict(members)[name])]
    with pytest.warns(UserWarning, match="Duplicate name"):  # zipfile's own warning
        write_eval(tmp_path / "a.eval", twice)
    with pytest.raises(LogFormatError, match=rf"two members are named '{name}'"):
        gf.read_log(tmp_path / "a.eval")


# ---- 10a. invalid UTF-8 in an .eval member names the member ---------------------------------


def test_invalid_utf8_in_an_eval_member_names_the_member(tmp_path):
    members = eval_members(INSPECT_QA_EVAL)
    name = "samples/height_epoch_2.json"
    members[name] = members[name].replace(b"How tall", b"How \xff\xfe tall", 1)
    target = write_eval(tmp_path / "a.eval", members)
    with pytest.raises(LogFormatError, match=rf"a\.eval\[{name}\]: not UTF-8 text"):
        gf.read_log(target)


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
        (
            "eee",
            tmp / EEE_QA.name,
            _json_lines(EEE_QA)[:4],
            _write_lines,
            tmp / EEE_QA.name,
        ),
        (
            "deepeval",
            tmp / DEEPEVAL_RUN.name,
            json.loads(DEEPEVAL_RUN.read_text()),
            _write_json,
            tmp / DEEPEVAL_RUN.name,
        ),
        (
            "braintrust",
            tmp / BRAINTRUST.name,
            json.loads(BRAINTRUST.read_text()),
            _write_json,
            tmp / BRAINTRUST.name,
        ),
        (
            "phoenix",
            tmp / PHOENIX_JSON.name,
            json.loads(PHOENIX_JSON.read_text()),
            _write_json,
            tmp / PHOENIX_JSON.name,
        ),
    ]


def test_langsmith_parquet_cut_short_or_with_a_nested_column_is_named(tmp_path):
    source = NEW / "langsmith" / "gf-langsmith.parquet"
    cut = tmp_path / source.name
    data = source.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(LogFormatError, match=cut.name):
        gf.read_log(cut, tool="langsmith")
    nested = tmp_path / "nested.parquet"
    frame = pl.read_parquet(source)
    frame.with_columns(pl.concat_list("execution_time").alias("execution_time")).write_parquet(
        nested
    )
    with pytest.raises(LogFormatError, match=r"column 'execution_time' holds List"):
        gf.read_log(nested)


def test_phoenix_csv_with_a_malformed_cell_or_an_extra_field_is_named(tmp_path):
    source = NEW / "phoenix" / "gf-phoenix.csv"
    header, first, *rest = source.read_text().splitlines(keepends=True)
    bad = tmp_path / source.name
    bad.write_text(header + first.replace(",1,", ",x,", 1) + "".join(rest))
    with pytest.raises(LogFormatError, match=r"record 1: field 'repetition_number'"):
        gf.read_log(bad)
    bad.write_text(header + first.rstrip("\n") + ",extra\n" + "".join(rest))
    with pytest.raises(LogFormatError, match=r"gf-phoenix\.csv: a row has more fields"):
        gf.read_log(bad)


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
            except Exception as error:
                escaped.append((name, path, f"{type(error).__name__}: {error}"[:300]))
            else:
                assert isinstance(frame, pl.DataFrame)
        if original is not None:
            target.write_bytes(original)
    assert not escaped, "\n".join(map(str, escaped))


def _first_result(document: dict, change: dict) -> dict:
    results = document["results"]["results"]
    return {
        **document,
        "results": {**document["results"], "results": [{**results[0], **change}, *results[1:]]},
    }


def _first_line(records: list, change: dict) -> list:
    return [{**records[0], **change}, *records[1:]]


def _first_state(document: dict, change: Callable[[dict], dict]) -> dict:
    states = document["request_states"]
    return {**document, "request_states": [change(states[0]), *states[1:]]}


NAMED_FIELDS = {
    "promptfoo": (
        PROMPTFOO_JSON,
        lambda d: _first_result(d, {"response": 7}),
        r"results\.json: results\[0\]: field 'response' has an unexpected value",
    ),
    "promptfoo-deep": (
        PROMPTFOO_JSON,
        lambda d: _first_result(d, {"vars": _DEEP}),
        r"results\.json: JSON nested too deeply",
    ),
    "lm_eval": (
        LM_EVAL_GEN,
        lambda r: _first_line(r, {"doc_id": {"a": 1}}),
        r"\.jsonl, line 1: the record: field 'doc_id' has a value of an unexpected type",
    ),
    "openai_evals": (
        OPENAI_MATCH,
        lambda r: [
            r[0],
            *[{**x, "data": [1]} if x.get("type") == "sampling" else x for x in r[1:]],
        ],
        r"gf-match\.jsonl, line \d+: sample 'gf-match\.dev\.\d+': field 'sampling\[0\]",
    ),
    "helm": (
        HELM_QA / "scenario_state.json",
        lambda d: _first_state(d, lambda s: {**s, "result": {**s["result"], "completions": 5}}),
        r"request_states\[0\]: field 'result\.completions' has an unexpected value",
    ),
    "eee": (
        EEE_QA,
        lambda r: _first_line(r, {"input": {**r[0]["input"], "reference": 5}}),
        r"_samples\.jsonl, line 1: field 'input\.reference' holds a number",
    ),
    "deepeval": (
        DEEPEVAL_RUN,
        lambda d: {**d, "testCases": [{**d["testCases"][0], "metricsData": 5}]},
        r"test_run_\d+_\d+\.json: testCases\[0\]: field 'metricsData' has an unexpected",
    ),
    "braintrust": (
        BRAINTRUST,
        lambda d: {**d, "results": [{**d["results"][0], "scores": 5}, *d["results"][1:]]},
        r"gf-braintrust\.json: results\[0\]: field 'scores' has an unexpected value",
    ),
    "phoenix": (
        PHOENIX_JSON,
        lambda d: [{**d[0], "repetition_number": "x"}, *d[1:]],
        r"gf-phoenix\.json: \[0\]: field 'repetition_number' has an unexpected value",
    ),
    "inspect": (
        INSPECT_QA_JSON,
        lambda d: {
            **d,
            "samples": [{**d["samples"][0], "output": {"choices": "x"}}, *d["samples"][1:]],
        },
        r"\.json: samples\[0\]: field 'output\.choices' has an unexpected value",
    ),
}


@pytest.mark.parametrize("case", list(NAMED_FIELDS))
def test_malformed_field_error_names_the_record_and_the_field(tmp_path, case):
    source, change, message = NAMED_FIELDS[case]
    if source.suffix == ".jsonl":
        target = tmp_path / source.name
        _write_lines(target, change(_json_lines(source)))
        if source == LM_EVAL_GEN:
            shutil.copy(LM_EVAL_RESULTS, tmp_path)
    elif source.name == "scenario_state.json":
        target = tmp_path / "run"
        shutil.copytree(source.parent, target)
        _write_json(target / source.name, change(json.loads(source.read_text())))
    else:
        target = tmp_path / source.name
        _write_json(target, change(json.loads(source.read_text())))
    with pytest.raises(LogFormatError, match=message):
        gf.read_log(target)


@pytest.mark.parametrize(
    ("name", "path", "change"),
    [
        (
            "promptfoo",
            PROMPTFOO_JSON,
            lambda d: {
                **d,
                "results": {
                    **d["results"],
                    "results": [{**d["results"]["results"][0], "response": 7}],
                },
            },
        ),
        ("inspect", INSPECT_QA_JSON, lambda d: {**d, "eval": [1]}),
        ("helm", HELM_QA / "scenario_state.json", lambda d: {"request_states": [{"instance": 5}]}),
    ],
)
def test_cli_prints_one_line_naming_the_file_for_a_malformed_field(tmp_path, name, path, change):
    if name == "helm":
        target = tmp_path / "run"
        shutil.copytree(path.parent, target)
        (target / path.name).write_text(json.dumps(change(json.loads(path.read_text()))))
    else:
        target = tmp_path / path.name
        target.write_text(json.dumps(change(json.loads(path.read_text()))))
    status, out, err = run("score", target, "--quiet")
    assert status == 2
    assert out == ""
    assert err.startswith("gradeframe: error: ")
    assert str(target) in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


# ---- v4 fields: grader failures, grader tokens, cache and reasoning tokens, cost --------------

EXTRA = Path(__file__).parent / "fixtures" / "logs_extra"
JUDGED_JSON = next((EXTRA / "inspect_judged").glob("*.json"))
JUDGED_EVAL = next((EXTRA / "inspect_judged").glob("*.eval"))
PROMPTFOO_GRADER_JSON = EXTRA / "promptfoo_grader" / "results.json"

_SCORE = ("scores", "model_graded_fact")
_OWN = ("model_usage", "mockllm/model")
# the fields the v4 readers read, below each sample (inspect) or result (promptfoo)
V4_SAMPLE_FIELDS = [
    (*_SCORE, "value"),
    (*_SCORE, "reason"),
    (*_SCORE, "metadata"),
    ("role_usage",),
    ("role_usage", "grader"),
    ("role_usage", "grader", "input_tokens"),
    ("model_usage",),
    _OWN,
    (*_OWN, "input_tokens_cache_read"),
    (*_OWN, "reasoning_tokens"),
    (*_OWN, "total_cost"),
    ("model_usage", "mockllm/grader", "output_tokens"),
]
V4_RESULT_FIELDS = [
    ("gradingResult", "metadata"),
    ("gradingResult", "tokensUsed"),
    ("gradingResult", "tokensUsed", "prompt"),
    ("gradingResult", "componentResults"),
    ("gradingResult", "componentResults", 0),
    ("gradingResult", "componentResults", 0, "metadata"),
    ("gradingResult", "componentResults", 0, "metadata", "graderError"),
    ("gradingResult", "componentResults", 0, "metadata", "graderOutputs"),
    ("gradingResult", "componentResults", 0, "assertion"),
    ("gradingResult", "componentResults", 0, "reason"),
    ("response", "tokenUsage", "completionDetails"),
    ("response", "tokenUsage", "completionDetails", "reasoning"),
    ("testCase", "options"),
    ("testCase", "options", "provider"),
    ("cost",),
]


def _set(document: Any, path: tuple, new: Any) -> Any:
    """A copy of ``document`` with the value at ``path`` replaced (made where missing)."""
    copy = json.loads(json.dumps(document))
    parent = copy
    for key in path[:-1]:
        if isinstance(parent, dict) and not isinstance(parent.get(key), dict | list):
            parent[key] = {}
        parent = parent[key]
    parent[path[-1]] = new
    return copy


def _v4_cases() -> Iterator[tuple[str, Path, Callable[[Path, Any], None], Any]]:
    judged = json.loads(JUDGED_JSON.read_text())
    sample = next(i for i, s in enumerate(judged["samples"]) if s.get("role_usage"))
    for field in V4_SAMPLE_FIELDS:
        for new in REPLACEMENTS:
            path = ("samples", sample, *field)
            yield (
                f"inspect-json {field} = {new!r:.20}",
                JUDGED_JSON,
                _write_json,
                _set(judged, path, new),
            )
    members = _eval_document(JUDGED_EVAL)
    name = next(m for m in members if m.startswith("samples/") and members[m].get("role_usage"))
    header_fields = [("stats",), ("stats", "model_usage"), ("stats", "model_usage", "x")]
    for field in [
        *[(name, *f) for f in V4_SAMPLE_FIELDS],
        *[("header.json", *f) for f in header_fields],
    ]:
        for new in REPLACEMENTS:
            yield (
                f"inspect-eval {field} = {new!r:.20}",
                JUDGED_EVAL,
                _write_members,
                _set(members, field, new),
            )
    promptfoo = json.loads(PROMPTFOO_GRADER_JSON.read_text())
    for index in (0, 4):  # a judge that passed, a judge that failed
        for field in V4_RESULT_FIELDS:
            for new in REPLACEMENTS:
                path = ("results", "results", index, *field)
                yield (
                    f"promptfoo {index} {field} = {new!r:.20}",
                    PROMPTFOO_GRADER_JSON,
                    _write_json,
                    _set(promptfoo, path, new),
                )


def test_malformed_v4_fields_read_or_raise_a_log_format_error_naming_the_file(tmp_path):
    escaped = []
    for case, source, write, variant in _v4_cases():
        target = tmp_path / source.name
        write(target, variant)
        try:
            frame = gf.read_log(target)
        except LogFormatError as error:
            if str(target) not in str(error):
                escaped.append((case, f"unnamed: {error}"))
        except Exception as error:
            escaped.append((case, f"{type(error).__name__}: {error}"[:300]))
        else:
            assert isinstance(frame, pl.DataFrame)
            assert frame.schema["tool_failure"] == pl.String
    assert not escaped, "\n".join(map(str, escaped))
