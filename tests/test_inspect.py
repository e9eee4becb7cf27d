"""gradeframe's scorers inside inspect_ai (SPEC §12), with the real inspect_ai, offline.

A task runs on inspect's ``mockllm/model`` with scripted replies (the numeric traps, a not-found
item, a ``max_tokens`` stop, a content-filter stop, a message limit, an error) and is scored by
each gradeframe scorer; ``inspect score`` re-grades copies of the real logs in
``tests/fixtures/logs/inspect``. On every log the scores equal
``read_inspect(log).grade.answer_contains("output", "refs")`` row for row, kinds included.

inspect_ai is heavy (it is not in the ``test`` extra): these tests skip without it, and
``.ci/run`` installs it and runs them with ``GRADEFRAME_REQUIRE_INSPECT=1``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import polars as pl
import pytest

if os.environ.get("GRADEFRAME_REQUIRE_INSPECT") != "1":
    pytest.importorskip("inspect_ai", reason="inspect_ai is not installed (`.ci/run` runs these)")

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log
from inspect_ai.model import ChatMessageUser, ModelOutput, ModelUsage, get_model
from inspect_ai.solver import Generate, TaskState, solver

import gradeframe as gf
import gradeframe.inspect as gi

FIXTURES = Path(__file__).parent / "fixtures" / "logs" / "inspect"

# inspect_ai's own event loop leaves anyio streams for the garbage collector (ResourceWarning),
# and some of its dependencies warn about deprecations: not gradeframe's to fix.
pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

# ---- a task with scripted replies ------------------------------------------------------------

REPLIES: dict[str, str] = {
    "height": "It is 145.2 m.",  # 45.2 only inside 145.2: wrong, with a near miss
    "temp": "It fell to -12 °C.",  # 12 only as -12: wrong
    "units": "Made 12,400 units.",  # 12400 with a separator: right
    "capital": "Paris is the capital.",
    "launch": "The document does not mention the launch date.",  # unanswerable, reported
    "staff": "The document does not say how many staff there are.",  # not_in_document
    "refusal": "I'm sorry, but I can't help with that request.",
    "letter": "ANSWER: B",
    "number": "45.3",
}


def _key(messages: list[Any]) -> str:
    """The sample's key: the "[key]" its first user message holds (a template may wrap it)."""
    for message in messages:
        if isinstance(message, ChatMessageUser):
            found = re.search(r"\[(\w+)\]", message.text)
            if found:
                return found[1]
    return "?"


def _replies(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    key = _key(input)
    if key == "filtered":
        out = ModelOutput.from_content("mockllm/model", "", stop_reason="content_filter")
    elif key == "cut":
        out = ModelOutput.from_content(
            "mockllm/model", "The total was 1,2", stop_reason="max_tokens"
        )
    elif key == "boom":
        raise RuntimeError("mock provider failure: upstream 500")
    elif key == "loop":
        out = ModelOutput.from_content("mockllm/model", "Still thinking...")
    else:
        out = ModelOutput.from_content("mockllm/model", REPLIES.get(key, "no idea"))
    # usage set here: mockllm would count tokens with tiktoken, which needs the network
    n = len(out.completion.split())
    out.usage = ModelUsage(input_tokens=10, output_tokens=n, total_tokens=10 + n)
    return out


@solver
def _ask_until_limit() -> Any:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state = await generate(state)
        while state.metadata.get("loop"):
            state.messages.append(ChatMessageUser(content="Please continue."))
            state = await generate(state)
        return state

    return solve


SAMPLES = [
    Sample(id="height", input="[height] How tall?", target=["45.2", "45.2 m"]),
    Sample(id="temp", input="[temp] How cold?", target="12"),
    Sample(id="units", input="[units] How many units?", target="12400"),
    Sample(id="capital", input="[capital] Capital of France?", target=["Paris", "Paris, France"]),
    Sample(id="launch", input="[launch] When was the launch?", target="NOT_IN_DOCUMENT"),
    Sample(id="staff", input="[staff] How many staff?", target="340"),
    Sample(id="refusal", input="[refusal] Describe the exploit.", target="buffer overflow"),
    Sample(id="filtered", input="[filtered] Say something unsafe.", target="anything"),
    Sample(id="cut", input="[cut] What was the total?", target="1,204"),
    Sample(id="loop", input="[loop] Solve it.", target="42", metadata={"loop": True}),
    Sample(id="boom", input="[boom] This one errors.", target="7"),
    Sample(id="number", input="[number] How tall, in metres?", target="45.2"),
]

EXPECTED_KINDS = {
    "height": "wrong",
    "temp": "wrong",
    "units": None,
    "capital": None,
    "launch": None,
    "staff": "not_in_document",
    "refusal": "wrong",
    "filtered": "refusal",
    "cut": "wrong",
    "loop": "budget_stop",
    "number": "wrong",
}


def _run(scorer: Any, tmp_path: Path, samples: list[Sample] = SAMPLES) -> Path:
    task = Task(
        dataset=samples,
        solver=_ask_until_limit(),
        scorer=scorer,
        model=get_model("mockllm/model", custom_outputs=_replies),
        message_limit=6,
        fail_on_error=False,
    )
    [log] = eval(task, log_dir=str(tmp_path), display="none", log_format="json")
    assert log.location
    return Path(log.location)


def _scores(path: Path, scorer: str) -> dict[str, Any]:
    log = read_eval_log(str(path))
    return {
        (str(s.id), s.epoch): s.scores[scorer]
        for s in log.samples or []
        if s.scores and scorer in s.scores
    }


# ---- at eval time ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def contains_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _run(gi.answer_contains(), tmp_path_factory.mktemp("contains"))


def test_answer_contains_scorer_kinds_at_eval_time(contains_log: Path) -> None:
    scores = _scores(contains_log, "answer_contains")
    kinds = {sample_id: s.metadata["failure_kind"] for (sample_id, _), s in scores.items()}
    assert kinds == EXPECTED_KINDS  # the errored sample is not scored by inspect at all
    values = {sample_id: s.value for (sample_id, _), s in scores.items()}
    assert values["units"] == "C"
    assert values["height"] == "I"


def test_answer_contains_scorer_equals_read_inspect_row_for_row(contains_log: Path) -> None:
    scores = _scores(contains_log, "answer_contains")
    graded = gf.read_inspect(contains_log).grade.answer_contains("output", "refs")
    rows = graded.filter(pl.col("inspect_error").is_null())
    assert rows.height == len(scores)
    for row in rows.iter_rows(named=True):
        score = scores[(row["sample_id"], row["epoch"])]
        assert (score.value == "C") == row["correct"], row["sample_id"]
        assert score.metadata["failure_kind"] == row["failure_kind"], row["sample_id"]
        assert score.metadata["outcome"] == row["outcome"], row["sample_id"]


def test_explanation_names_the_kind_and_the_near_miss(contains_log: Path) -> None:
    scores = {sid: s for (sid, _), s in _scores(contains_log, "answer_contains").items()}
    assert scores["height"].explanation.startswith("wrong: 45.2")
    assert "inside" in scores["height"].explanation
    assert scores["filtered"].explanation.startswith("refusal:")
    assert "content_filter" in scores["filtered"].explanation
    assert scores["loop"].explanation.startswith("budget_stop:")
    assert scores["staff"].explanation.startswith("not_in_document:")
    assert scores["units"].explanation.startswith("right")
    assert scores["height"].answer == "It is 145.2 m."


def test_metrics_accuracy_stderr_and_kind_shares(contains_log: Path) -> None:
    log = read_eval_log(str(contains_log))
    # failure_kinds() counts every epoch ("unreduced"), so inspect lists it in a result of its own
    metrics = {
        name: m.value
        for result in log.results.scores
        if result.name == "answer_contains"
        for name, m in result.metrics.items()
    }
    assert metrics["accuracy"] == pytest.approx(3 / 11)
    assert "stderr" in metrics
    assert metrics["wrong"] == pytest.approx(5 / 11)
    assert metrics["budget_stop"] == pytest.approx(1 / 11)
    assert metrics["not_in_document"] == pytest.approx(1 / 11)
    assert set(gf.KINDS) <= set(metrics)


def test_refusal_option_reaches_the_rules(tmp_path: Path) -> None:
    path = _run(gi.answer_contains(refusal=True), tmp_path, [SAMPLES[6]])
    [score] = _scores(path, "answer_contains").values()
    assert score.metadata["failure_kind"] == "refusal"


# ---- the matcher scorers ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scorer", "name", "sample", "right", "kind", "extra"),
    [
        pytest.param(gi.exact_match(), "exact_match", 4 - 1, False, "wrong", None, id="exact"),
        pytest.param(gi.includes(), "includes", 3, False, "wrong", "missing", id="includes_all"),
        pytest.param(gi.within(delta=0.5), "within", 11, True, None, "difference", id="within"),
        pytest.param(gi.within(delta=0.05), "within", 11, False, "wrong", "tolerance", id="out"),
        pytest.param(gi.f1(), "f1", 3, True, None, "f1", id="f1"),
        pytest.param(gi.exact_match(), "exact_match", 7, False, "refusal", None, id="filtered"),
        pytest.param(gi.f1(), "f1", 9, False, "budget_stop", "f1", id="limit_explained"),
    ],
)
def test_matcher_scorers(
    tmp_path: Path, scorer: Any, name: str, sample: int, right: bool, kind: Any, extra: Any
) -> None:
    path = _run(scorer, tmp_path, [SAMPLES[sample]])
    [score] = _scores(path, name).values()
    assert (score.value == "C") is right
    assert score.metadata["failure_kind"] == kind
    if extra:
        assert extra in score.metadata
    assert score.explanation.startswith(kind or "right")


def test_choice_scorer_reads_the_letters(tmp_path: Path) -> None:
    from inspect_ai.solver import multiple_choice

    task = Task(
        dataset=[
            Sample(
                id="mc1",
                input="[letter] Capital of France?",
                choices=["Berlin", "Paris"],
                target="B",
            ),
            Sample(id="mc2", input="[letter] Which is prime?", choices=["7", "4", "6"], target="A"),
        ],
        solver=multiple_choice(),
        scorer=gi.choice(),
        model=get_model("mockllm/model", custom_outputs=_replies),
    )
    [log] = eval(task, log_dir=str(tmp_path), display="none")
    scores = {s.id: s.scores["choice"] for s in log.samples or []}
    assert scores["mc1"].value == "C"
    assert scores["mc1"].metadata["chosen"] == ["B"]
    assert scores["mc2"].value == "I"
    assert scores["mc2"].metadata["failure_kind"] == "wrong"


# ---- inspect score on the real logs ------------------------------------------------------------


def _entry_point_installed() -> bool:
    from importlib.metadata import entry_points

    return any(ep.name == "gradeframe" for ep in entry_points(group="inspect_ai"))


LOGS = sorted(p.name for p in FIXTURES.iterdir() if p.suffix in {".eval", ".json"})


@pytest.mark.parametrize("log", LOGS)
def test_inspect_score_command_equals_read_inspect(tmp_path: Path, log: str) -> None:
    if not _entry_point_installed() and os.environ.get("GRADEFRAME_REQUIRE_INSPECT") != "1":
        pytest.skip("gradeframe is not installed with its inspect_ai entry point")
    copy = tmp_path / log
    shutil.copy(FIXTURES / log, copy)
    scored = tmp_path / ("scored" + copy.suffix)
    command = [
        sys.executable, "-m", "inspect_ai._cli.main", "score", str(copy),
        "--scorer", "gradeframe/answer_contains", "--action", "append",
        "--output-file", str(scored), "--display", "none",
    ]  # fmt: skip
    inspect_cli = shutil.which("inspect", path=str(Path(sys.executable).parent))
    if inspect_cli:
        command[:3] = [inspect_cli]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    scores = _scores(scored, "answer_contains")
    expected = gf.read_inspect(FIXTURES / log).grade.answer_contains("output", "refs")
    assert len(scores) == expected.height  # every sample and epoch, the errored one too
    for row in expected.iter_rows(named=True):
        score = scores[(row["sample_id"], row["epoch"])]
        assert (score.value == "C") == row["correct"], row["sample_id"]
        assert score.metadata["failure_kind"] == row["failure_kind"], row["sample_id"]


def test_import_gradeframe_does_not_import_inspect_ai() -> None:
    code = "import sys, gradeframe; print('inspect_ai' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_batches_grade_many_samples_in_one_call(tmp_path: Path, monkeypatch: Any) -> None:
    calls: Counter[int] = Counter()
    real = gi.read_samples

    def counting(records: Any, **kwargs: Any) -> pl.DataFrame:
        calls[len(records)] += 1
        return real(records, **kwargs)

    monkeypatch.setattr(gi, "read_samples", counting)
    many = [Sample(id=f"u{i}", input="[units] How many units?", target="12400") for i in range(40)]
    path = _run(gi.answer_contains(), tmp_path, many)
    assert len(_scores(path, "answer_contains")) == 40
    assert sum(calls.values()) < 40  # samples that finish together are graded together


# ---- one bad sample fails alone (issue 38, G6 and G7) ----------------------------------------

#: A target of about 0.5 MB: Polars compiles a literal needle that is one value for the whole
#: batch into a regex, and this one exceeds its size limit.
LONG_TARGET = "a long reference text " * 24_000
REPLIES["long"] = f"Quoted: {LONG_TARGET} (end)"


def test_includes_scorer_matches_a_half_megabyte_target(tmp_path: Path) -> None:
    samples = [
        Sample(id="long", input="[long] Quote it.", target=LONG_TARGET),
        Sample(id="longer", input="[long] Quote it.", target=LONG_TARGET + "!"),
        Sample(id="units", input="[units] How many units?", target="12,400"),
    ]
    scores = {
        sid: s
        for (sid, _), s in _scores(_run(gi.includes(), tmp_path, samples), "includes").items()
    }
    assert {sid: s.value for sid, s in scores.items()} == {"long": "C", "longer": "I", "units": "C"}
    assert scores["longer"].metadata["missing"] == [LONG_TARGET + "!"]
    # the explanation shows the target cut, as everywhere values are shown
    assert len(scores["longer"].explanation) < 2 * gf.MAX_METADATA_LENGTH


def test_within_scorer_bad_target_fails_only_its_own_sample(tmp_path: Path) -> None:
    samples = [
        Sample(id="number", input="[number] How tall, in metres?", target="45.2"),
        Sample(id="no_number", input="[number] How tall, in metres?", target="n/a"),
        Sample(id="far", input="[number] How tall, in metres?", target="40"),
    ]
    path = _run(gi.within(delta=0.5), tmp_path, samples)
    scores = {sid: s for (sid, _), s in _scores(path, "within").items()}
    assert scores["number"].value == "C"
    assert scores["far"].value == "I"
    assert scores["far"].metadata["failure_kind"] == "wrong"
    bad = scores["no_number"]
    assert bad.value != bad.value  # NaN: unscored, left out of inspect's metrics
    assert bad.metadata["failure_kind"] == "no_reference"
    assert "sample 'no_number' (epoch 1)" in bad.explanation
    assert "'n/a'" in bad.explanation
    metrics = {
        name: m.value
        for result in read_eval_log(str(path)).results.scores
        if result.name == "within"
        for name, m in result.metrics.items()
    }
    assert metrics["accuracy"] == pytest.approx(1 / 2)  # of the two samples scored


def test_a_sample_that_cannot_be_graded_fails_alone_naming_it() -> None:
    def grade(frame: pl.DataFrame) -> list[Any]:
        if "bad" in frame.get_column("sample_id").to_list():
            raise pl.exceptions.ComputeError("a raw Polars error")
        return frame.get_column("sample_id").to_list()

    records = [
        {"id": sid, "epoch": 1, "input": "q", "target": ["1"], "output": {"completion": "1"}}
        for sid in ("a", "b", "bad", "c", "d")
    ]
    got = gi._Batcher(grade)._graded(records, "mockllm/model")
    assert got[:2] == ["a", "b"]
    assert got[3:] == ["c", "d"]
    assert isinstance(got[2], RuntimeError)
    assert "sample 'bad' (epoch 1)" in str(got[2])
    assert "a raw Polars error" in str(got[2])


# ---- verdict(): re-reading a judge's stored replies (SPEC §13) -------------------------------

JUDGE_LOG = Path(__file__).parent / "fixtures" / "logs_extra" / "inspect_judge"


def test_verdict_rereads_the_judge_replies_inspect_left_unscored():
    from inspect_ai import score as inspect_score

    [path] = sorted(JUDGE_LOG.glob("*.json"))
    scored = inspect_score(read_eval_log(str(path)), scorers=[gi.verdict()], action="append")
    got = {s.id: s.scores["verdict"] for s in scored.samples}
    # The same verdicts as judge() on the frame read_log gives (test_judge_inspect_log.py).
    frame = gf.read_log(path).grade.judge("inspect_score_explanation")
    for row in frame.iter_rows(named=True):
        mine = got[row["sample_id"]]
        assert mine.value == ("C" if row["correct"] else "I")
        assert mine.answer == row["verdict"]
        assert mine.metadata["grader_failure"] == row["grader_failure"]
        assert mine.metadata["failure_kind"] == row["failure_kind"]
    assert got["fullwidth"].answer == "C"
    assert got["two_letters"].metadata["grader_failure"] == "not_offered"
    metrics = scored.results.scores[-1].metrics
    assert metrics["grader_failure"].value == pytest.approx(2 / 8)


def test_verdict_checks_its_options_when_built():
    with pytest.raises(ValueError, match="`scale` is required"):
        gi.verdict(scheme="scale")
    with pytest.raises(ValueError, match="`text` must be"):
        gi.verdict(text="reply")
