r"""gradeframe.rewards (SPEC §16): the trainers' reward functions give the frame functions' verdicts.

The reference is the frame pipeline a user would write: ``extract_boxed``, else ``extract_answer``,
then ``df.grade.equivalent`` (or ``df.grade.answer_contains``), on the same inputs. Completions are
generated from the real MATH-500 and GSM8K answer keys (tests/fixtures/answer_keys) in every form a
trainer hands over: boxed, "Answer: ...", "The answer is ..." (not an answer in a form that is
read), conversations, empty, wrong, None.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gradeframe as gf
from gradeframe.rewards import accuracy_reward, answer_contains_reward, compute_score

KEYS = Path(__file__).parent / "fixtures" / "answer_keys"


def _golds(name: str) -> list[str]:
    lines = (KEYS / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["answer"] for line in lines]


MATH500 = _golds("math500_answers.jsonl")
GSM8K = _golds("gsm8k_test_answers.jsonl")


def _conversation(text: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": "Put the final answer in a box."},
        {"role": "user", "content": "Solve the problem."},
        {"role": "assistant", "content": text},
    ]


def completions_for(golds: list[str]) -> tuple[list[Any], list[str]]:
    """Every form of completion for every gold: (completions, their golds)."""
    completions: list[Any] = []
    solution: list[str] = []
    for i, gold in enumerate(golds):
        other = golds[(i + 7) % len(golds)]
        forms = [
            f"We simplify step by step.\nSo the result is $\\boxed{{{gold}}}$.",
            f"Working it out gives this.\nAnswer: {gold}",
            f"The answer is {gold}.",  # no box, no Answer: line: nothing is read
            _conversation(f"First \\boxed{{0}}, no wait: \\boxed{{{gold}}}"),
            _conversation(f"**Final answer:** {other}"),
            "",
            f"\\boxed{{{other}}}",  # another item's gold: usually wrong
            None,
        ]
        completions.extend(forms)
        solution.extend([gold] * len(forms))
    return completions, solution


def _text(completion: Any) -> str | None:
    """The test's own reading of a completion: a string, or the last message's content."""
    return completion[-1]["content"] if isinstance(completion, list) else completion


def frame_verdicts(completions: list[Any], solution: list[Any]) -> pl.DataFrame:
    """The frame functions on the same inputs: extract, then equivalent."""
    frame = pl.DataFrame(
        {
            "completion": pl.Series([_text(c) for c in completions], dtype=pl.String),
            "gold": solution,
        }
    ).with_columns(
        pred=pl.coalesce(gf.extract_boxed("completion"), gf.extract_answer("completion"))
    )
    return frame.grade.equivalent("pred", "gold")


@pytest.mark.parametrize("golds", [MATH500, GSM8K], ids=["math500", "gsm8k"])
def test_rewards_equal_the_frame_functions_on_real_golds(golds: list[str]) -> None:
    completions, solution = completions_for(golds)
    expected = frame_verdicts(completions, solution)
    rewards = accuracy_reward(completions, solution)
    assert rewards == [float(c) for c in expected["correct"]]
    scores = compute_score(["math"] * len(completions), completions, solution)
    assert [s["score"] for s in scores] == rewards
    assert [s["acc"] for s in scores] == expected["correct"].to_list()
    assert [s["pred"] for s in scores] == expected["pred"].to_list()
    assert [s["method"] for s in scores] == expected["method"].to_list()
    # the boxed, Answer: and conversational forms of each gold are right; the others are not
    per_gold = len(completions) // len(golds)
    rights = [rewards[i::per_gold] for i in range(per_gold)]
    assert all(r == 1.0 for r in rights[0] + rights[1] + rights[3])
    assert all(r == 0.0 for r in rights[2] + rights[5] + rights[7])


# Literal values as golds and answers are written (so the engine is never needed), and the
# wrappings a completion puts around them.
_NUMBERS = st.one_of(
    st.integers(-10_000, 10_000).map(str),
    st.builds(lambda a, b: f"\\frac{{{a}}}{{{b}}}", st.integers(0, 99), st.integers(1, 99)),
    st.builds(lambda a, b: f"{a}/{b}", st.integers(0, 99), st.integers(1, 99)),
    st.builds(lambda a, b: f"{a}.{b}", st.integers(0, 999), st.integers(0, 99)),
    st.builds(lambda a: f"{a}\\%", st.integers(0, 100)),
)
_FORMS = st.sampled_from(
    [
        "\\boxed{{{}}}",
        "Reasoning first.\nAnswer: {}",
        "**Final answer:** ${}$",
        "First \\boxed{{1}}, then \\boxed{{{}}}",
        "The answer is {}.",
        "{}",
        "",
    ]
)


@given(
    st.lists(
        st.tuples(_NUMBERS, _NUMBERS, _FORMS, st.booleans(), st.booleans()),
        min_size=1,
        max_size=12,
    )
)
def test_rewards_equal_the_frame_functions_on_generated_batches(rows: list[tuple]) -> None:
    completions: list[Any] = []
    solution: list[str] = []
    for gold, answer, form, same, conversation in rows:
        text = form.format(gold if same else answer)
        completions.append(_conversation(text) if conversation else text)
        solution.append(gold)
    expected = frame_verdicts(completions, solution)
    assert accuracy_reward(completions, solution) == [float(c) for c in expected["correct"]]
    scores = compute_score(["m"] * len(rows), completions, solution)
    assert [s["method"] for s in scores] == expected["method"].to_list()
    assert [s["pred"] for s in scores] == expected["pred"].to_list()


def test_the_answer_is_in_prose_is_not_read() -> None:
    # "The answer is 12." holds no answer in a form that is read (boxed or an Answer: line)
    assert accuracy_reward(["The answer is 12.", "Answer: 12"], ["12", "12"]) == [0.0, 1.0]
    kinds = [
        r["failure_kind"]
        for r in compute_score(["m", "m"], ["The answer is 12.", "13"], ["12"] * 2)
    ]
    assert kinds == ["parse_failure", "parse_failure"]


@pytest.mark.parametrize(
    ("gold", "why"),
    [
        pytest.param(None, "null", id="null_gold"),
        pytest.param("", "blank", id="empty_gold"),
        pytest.param("  \n", "blank", id="blank_gold"),
        pytest.param(float("nan"), "null", id="nan_gold"),
        pytest.param(float("inf"), "null", id="infinite_gold"),
        pytest.param("\\frac{", "unreadable", id="gold_the_engine_cannot_read"),
        pytest.param("@@", "unreadable", id="gold_of_symbols_only"),
    ],
)
def test_a_gold_that_cannot_be_read_is_skipped_not_punished(gold: Any, why: str) -> None:
    completions = ["\\boxed{12}", "Answer: 12", "nothing"]
    golds = [gold, "12", gold]
    assert accuracy_reward(completions, golds) == [None, 1.0, None]
    rows = compute_score(["m"] * 3, completions, golds)
    assert [r["failure_kind"] for r in rows] == ["no_reference", None, "no_reference"]
    assert [r["score"] for r in rows] == [0.0, 1.0, 0.0]
    assert [r["method"] for r in rows] == [None, "literal", None]
    assert [r["pred"] for r in rows] == ["12", "12", None]


def test_numbers_as_golds_are_read_as_polars_writes_them() -> None:
    completions = ["\\boxed{12}", "\\boxed{0.5}", "\\boxed{1/2}", "\\boxed{12}"]
    assert accuracy_reward(completions, [12, 0.5, 0.5, 12.0]) == [1.0, 1.0, 1.0, 1.0]


def test_compute_score_rows_say_why() -> None:
    rows = compute_score(
        ["gsm8k"] * 4,
        ["#### \\boxed{18}", "Answer: 17", "no answer here", None],
        ["18", "18", "18", "18"],
        extra_infos=[{}] * 4,
        reward_kwarg="ignored",
    )
    assert rows == [
        {"score": 1.0, "acc": True, "pred": "18", "failure_kind": None, "method": "literal"},
        {"score": 0.0, "acc": False, "pred": "17", "failure_kind": "wrong", "method": "literal"},
        {
            "score": 0.0,
            "acc": False,
            "pred": None,
            "failure_kind": "parse_failure",
            "method": "unparsed",
        },
        {
            "score": 0.0,
            "acc": False,
            "pred": None,
            "failure_kind": "parse_failure",
            "method": "unparsed",
        },
    ]


def test_trl_keyword_arguments_are_accepted_and_ignored() -> None:
    rewards = accuracy_reward(
        completions=[[{"role": "assistant", "content": "\\boxed{3}"}]],
        solution=["3"],
        prompts=[[{"role": "user", "content": "1+2?"}]],
        completion_ids=[[1, 2, 3]],
        trainer_state=None,
        problem=["1+2?"],
    )
    assert rewards == [1.0]


@pytest.mark.parametrize(
    ("completion", "reward"),
    [
        pytest.param([{"role": "assistant", "content": "\\boxed{3}"}], 1.0, id="one_message"),
        pytest.param(
            [{"role": "assistant", "content": "\\boxed{3}"}, {"role": "user", "content": "ok"}],
            1.0,
            id="last_assistant_message_not_last_message",
        ),
        pytest.param(
            [{"role": "assistant", "content": "\\boxed{3}"}, {"role": "assistant", "content": "4"}],
            0.0,
            id="the_last_assistant_message_is_read",
        ),
        pytest.param([{"role": "user", "content": "\\boxed{3}"}], 0.0, id="no_assistant_message"),
        pytest.param(
            [{"role": "assistant", "content": [{"type": "text", "text": "Answer: 3"}]}],
            1.0,
            id="content_as_parts",
        ),
        pytest.param([{"role": "assistant", "content": None}], 0.0, id="null_content"),
        pytest.param([], 0.0, id="empty_conversation"),
    ],
)
def test_conversations_are_read_at_their_last_assistant_message(
    completion: Any, reward: float
) -> None:
    assert accuracy_reward([completion], ["3"]) == [reward]


@pytest.mark.parametrize(
    ("completions", "solution", "error", "needle"),
    [
        pytest.param(["1", "2"], ["1"], ValueError, "same length", id="lengths_differ"),
        pytest.param([12], ["12"], TypeError, "completions[0]", id="number_as_completion"),
        pytest.param(["1"], [True], TypeError, "solution[0]", id="bool_as_gold"),
        pytest.param(["1"], [["1"]], TypeError, "solution[0]", id="list_as_gold"),
        pytest.param([["not a message"]], ["1"], TypeError, "completions[0]", id="bad_message"),
    ],
)
def test_bad_input_raises_naming_the_position(
    completions: Any, solution: Any, error: type, needle: str
) -> None:
    with pytest.raises(error, match=needle.replace("[", r"\[").replace("]", r"\]")):
        accuracy_reward(completions, solution)


def test_an_empty_batch_gives_no_rewards() -> None:
    assert accuracy_reward([], []) == []
    assert compute_score([], [], []) == []
    assert answer_contains_reward([], []) == []


# --------------------------------------------------------------------------------------------
# Threads and signals
# --------------------------------------------------------------------------------------------

# a symbolic pair (the engine runs), a literal pair, and an unreadable gold
THREAD_BATCH = (["\\boxed{2\\sqrt{3}}", "\\boxed{0.5}", "\\boxed{1}"], ["\\sqrt{12}", "1/2", "}{"])


def test_a_call_from_a_worker_thread_returns() -> None:
    results: list[Any] = []
    worker = threading.Thread(target=lambda: results.append(accuracy_reward(*THREAD_BATCH)))
    worker.start()
    worker.join(timeout=120)
    assert not worker.is_alive(), "accuracy_reward did not return from a worker thread"
    assert results == [[1.0, 1.0, None]]


def test_threads_grading_at_once_all_return() -> None:
    results: dict[int, Any] = {}

    def run(i: int) -> None:
        results[i] = compute_score(["m"] * 3, *THREAD_BATCH)

    workers = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert not any(w.is_alive() for w in workers)
    assert len({json.dumps(r) for r in results.values()}) == 1


def test_no_signal_handler_is_installed_or_alarm_set(monkeypatch: pytest.MonkeyPatch) -> None:
    names = ["SIGALRM", "SIGINT", "SIGTERM", "SIGCHLD", "SIGVTALRM", "SIGPROF"]
    watched = [getattr(signal, n) for n in names if hasattr(signal, n)]
    before = {s: signal.getsignal(s) for s in watched}
    calls: list[str] = []
    for name in ("signal", "alarm", "setitimer"):
        if hasattr(signal, name):
            real = getattr(signal, name)
            monkeypatch.setattr(
                signal, name, lambda *a, _n=name, _r=real: calls.append(_n) or _r(*a)
            )
    accuracy_reward(*THREAD_BATCH)
    compute_score(["m"] * 3, *THREAD_BATCH)
    answer_contains_reward(["It was 1987."], ["1987"])
    assert calls == []
    assert {s: signal.getsignal(s) for s in watched} == before


# --------------------------------------------------------------------------------------------
# answer_contains_reward
# --------------------------------------------------------------------------------------------


def test_answer_contains_reward_equals_the_frame_function_on_the_example() -> None:
    example = gf.example().with_columns(text=pl.col("answer").struct.field("answer"))
    expected = example.grade.answer_contains("text", "refs")["correct"]
    completions = example["text"].to_list()
    conversations = [None if t is None else _conversation(t) for t in completions]
    refs = example["refs"].to_list()
    rewards = answer_contains_reward(completions, refs)
    assert rewards == [float(c) for c in expected]
    assert answer_contains_reward(conversations, refs) == rewards
    assert 0 < sum(rewards) < len(rewards)


@pytest.mark.parametrize(
    ("completion", "ref", "reward"),
    [
        pytest.param("It cost 12,400 dollars.", "12400", 1.0, id="thousands_separator_folded"),
        pytest.param("It was 2012.", "12", 0.0, id="numbers_matched_whole"),
        pytest.param("The text does not say.", "NOT_IN_DOCUMENT", 1.0, id="unanswerable_item"),
        pytest.param("It was 1987.", '["1986", "1987"]', 1.0, id="json_list_refs"),
        pytest.param("It was 1987.", None, 0.0, id="no_reference"),
        pytest.param(None, "1987", 0.0, id="null_completion"),
        pytest.param("Route 66", 66, 1.0, id="numbers_as_refs"),
    ],
)
def test_answer_contains_reward_cases(completion: Any, ref: Any, reward: float) -> None:
    assert answer_contains_reward([completion], [ref], trainer_state=None) == [reward]
    frame = pl.DataFrame({"answer": pl.Series([completion], dtype=pl.String), "refs": [ref]})
    assert frame.grade.answer_contains("answer", "refs")["correct"].to_list() == [reward == 1.0]


def test_answer_contains_reward_takes_strings_and_lists_together() -> None:
    rewards = answer_contains_reward(["in 1987", "in 1988", "x"], ["1987", ["1988", "88"], None])
    assert rewards == [1.0, 1.0, 0.0]


def test_rewards_import_no_trainer_engine_or_cluster() -> None:
    code = (
        "import sys, gradeframe.rewards\n"
        "print([m for m in ('torch', 'trl', 'verl', 'ray', 'math_verify') if m in sys.modules])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]"
