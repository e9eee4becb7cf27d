"""An inspect_ai task graded by ``model_graded_fact()`` whose judge writes the verdicts' traps.

The judge is a ``mockllm`` model with scripted replies: ``**GRADE:** C``, ``GRADE: [C]``,
fullwidth "ＧＲＡＤＥ：Ｃ", "GRADE: CI", a reply with no verdict, and plain ones. Its log keeps
each judge reply (the score's explanation) next to inspect's own verdict, so
``read_log(path).grade.judge("inspect_score_explanation")`` re-reads them. It wrote
``tests/fixtures/logs_extra/inspect_judge/`` (inspect_ai 0.3.285, offline)::

    inspect eval tools/inspect_judge_task.py@gf_judge \
        --log-dir tests/fixtures/logs_extra/inspect_judge --log-format json --display plain
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import model_graded_fact
from inspect_ai.solver import generate

#: Each sample's key, the model's answer, and the judge's reply (the trap it holds).
REPLIES = {
    "plain_right": ("Paris.", "The answer names Paris.\n\nGRADE: C"),
    "plain_wrong": ("Lyon.", "The answer names Lyon, not Paris.\n\nGRADE: I"),
    "bold": ("Paris.", "The submission matches the expert answer.\n\n**GRADE:** C"),
    "bracket": ("Paris.", "It states the capital correctly.\n\nGRADE: [C]"),
    "fullwidth": ("Paris.", "The answer is right.\n\nＧＲＡＤＥ：Ｃ"),
    "two_letters": ("Paris or Lyon.", "It names two cities; one is right.\n\nGRADE: CI"),
    "no_verdict": ("Paris.", "I cannot tell whether the submission is right."),
    "partial": ("Paris, I think.", "Hedged, but names the capital.\n\nGRADE: P"),
}


def _key(text: str) -> str:
    for key in REPLIES:
        if f"[{key}]" in text:
            return key
    return "?"


def _usage(out: ModelOutput, input_tokens: int) -> ModelOutput:
    # Usage set here: mockllm otherwise counts tokens with tiktoken (a download, offline fails).
    n = len(out.completion.split())
    out.usage = ModelUsage(
        input_tokens=input_tokens, output_tokens=n, total_tokens=input_tokens + n
    )
    return out


def answer(input, tools, tool_choice, config) -> ModelOutput:
    """Answer as the model under test."""
    reply = REPLIES.get(_key(input[-1].text), ("?", ""))[0]
    return _usage(ModelOutput.from_content(model="mockllm/model", content=reply), 10)


def judge(input, tools, tool_choice, config) -> ModelOutput:
    """Grade as the judge: the scripted reply of the sample named in the grading prompt."""
    reply = REPLIES.get(_key(input[-1].text), ("", "GRADE: I"))[1]
    return _usage(ModelOutput.from_content(model="mockllm/judge", content=reply), 500)


@task
def gf_judge() -> Task:
    """Eight samples, answered by one mock model and graded by a mock judge."""
    return Task(
        dataset=[
            Sample(id=key, input=f"[{key}] What is the capital of France?", target="Paris")
            for key in REPLIES
        ],
        solver=[generate()],
        scorer=model_graded_fact(model=get_model("mockllm/judge", custom_outputs=judge)),
        model=get_model("mockllm/model", custom_outputs=answer),
    )
