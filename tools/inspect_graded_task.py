"""A tiny inspect_ai task whose scorer asks a second model (a grader).

Its logs have two ``model_usage`` entries per sample, the model under test's and the grader's.
It wrote ``tests/fixtures/logs_extra/inspect_graded/`` (inspect_ai 0.3.285, offline, mockllm)::

    inspect eval tools/inspect_graded_task.py@gf_graded \
        --log-dir tests/fixtures/logs_extra/inspect_graded --log-format json --display plain

and the same with ``--log-format eval``.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import model_graded_qa
from inspect_ai.solver import generate

ANSWERS = {"units": "Made 12,400 units.", "height": "It is 145.2 m."}


def _key(messages) -> str:
    text = messages[-1].text
    return text[1 : text.index("]")] if text.startswith("[") else "?"


def _usage(out: ModelOutput, input_tokens: int) -> ModelOutput:
    # Usage set here: mockllm otherwise counts tokens with tiktoken (a download, offline fails).
    n = len(out.completion.split())
    total = input_tokens + n
    out.usage = ModelUsage(input_tokens=input_tokens, output_tokens=n, total_tokens=total)
    return out


def answer(input, tools, tool_choice, config) -> ModelOutput:
    """Answer as the model under test."""
    content = ANSWERS.get(_key(input), "Default output")
    return _usage(ModelOutput.from_content(model="mockllm/model", content=content), 10)


def grade(input, tools, tool_choice, config) -> ModelOutput:
    """Grade as the grader model: right when the answer has "12,400"."""
    # The grader's prompt is long (the rubric): 1000 input tokens, so its tokens stand out.
    verdict = "GRADE: C" if "12,400" in input[-1].text else "GRADE: I"
    return _usage(ModelOutput.from_content(model="mockllm/grader", content=verdict), 1000)


@task
def gf_graded() -> Task:
    """Two samples, answered by one mock model and graded by another."""
    return Task(
        dataset=[
            Sample(id="units", input="[units] How many units were made?", target="12400"),
            Sample(id="height", input="[height] How tall is it?", target="45.2"),
        ],
        solver=[generate()],
        scorer=model_graded_qa(model=get_model("mockllm/grader", custom_outputs=grade)),
        model=get_model("mockllm/model", custom_outputs=answer),
    )
