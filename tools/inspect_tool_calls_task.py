"""A tiny inspect_ai agent task whose mock model calls tools from a script (the tool_calls fixture).

Each sample's metadata holds the calls it is expected to make (``expected_calls``, JSON text);
the mock model makes the sample's scripted calls one at a time (each tool runs, and its result
comes back as a tool message), then answers. It wrote ``tests/fixtures/logs_extra/
inspect_tools/`` (inspect_ai 0.3.285, offline, mockllm)::

    inspect eval tools/inspect_tool_calls_task.py@gf_tools \
        --log-dir tests/fixtures/logs_extra/inspect_tools --log-format eval --display plain

and the same with ``--log-format json``.
"""

from __future__ import annotations

import json

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import tool


@tool
def add():
    """Return the tool that adds two numbers."""

    async def execute(x: float, y: float) -> str:
        """Add two numbers.

        Args:
            x: The first number.
            y: The second number.
        """
        return str(x + y)

    return execute


@tool
def weather():
    """Return the tool that forecasts the weather."""

    async def execute(city: str, days: int) -> str:
        """Forecast the weather.

        Args:
            city: The city.
            days: How many days ahead.
        """
        return f"Sunny in {city} for {days} days."

    return execute


@tool
def search():
    """Return the tool that searches the web."""

    async def execute(query: str) -> str:
        """Search the web.

        Args:
            query: What to search for.
        """
        return f"Results for {query}."

    return execute


# Per sample (the key in brackets at the start of its input): the calls the mock model makes,
# in order, then its answer.
SCRIPTS = {
    "weather": ([("weather", {"city": "Paris", "days": 3})], "Sunny for three days."),
    "sum": ([("add", {"x": 2, "y": 3}), ("add", {"x": 5, "y": 4})], "9"),
    "wrong_city": (
        [("search", {"query": "weather paris"}), ("weather", {"city": "Lyon", "days": 3})],
        "Sunny.",
    ),
    "no_tools": ([], "I think it is sunny."),
}

# What each sample is expected to call (days written 3.0: equal to 3 by value).
EXPECTED = {
    "weather": [{"name": "weather", "arguments": {"city": "Paris", "days": 3.0}}],
    "sum": [
        {"name": "add", "arguments": {"x": 2, "y": 3}},
        {"name": "add", "arguments": {"y": 4, "x": 5}},
    ],
    "wrong_city": [{"name": "weather", "arguments": {"city": "Paris", "days": 3}}],
    "no_tools": [{"name": "weather", "arguments": {"city": "Paris", "days": 1}}],
}


def _key(messages) -> str:
    text = next(m for m in messages if m.role == "user").text
    return text[1 : text.index("]")] if text.startswith("[") else "?"


def _usage(out: ModelOutput) -> ModelOutput:
    # Usage set here: mockllm otherwise counts tokens with tiktoken (a download; offline fails).
    out.usage = ModelUsage(input_tokens=20, output_tokens=5, total_tokens=25)
    return out


def agent(input, tools, tool_choice, config) -> ModelOutput:
    """Make the sample's next scripted call, or answer once every call has had its result."""
    calls, answer = SCRIPTS[_key(input)]
    done = sum(1 for m in input if m.role == "tool")
    if done < len(calls):
        name, arguments = calls[done]
        out = ModelOutput.for_tool_call(
            model="mockllm/model", tool_name=name, tool_arguments=arguments
        )
    else:
        out = ModelOutput.from_content(model="mockllm/model", content=answer)
    return _usage(out)


@task
def gf_tools() -> Task:
    """Four agent runs: right calls, two calls in order, a wrong argument, no call at all."""
    return Task(
        dataset=[
            Sample(
                id=key,
                input=f"[{key}] Use the tools to answer.",
                target=SCRIPTS[key][1],
                metadata={"expected_calls": json.dumps(EXPECTED[key])},
            )
            for key in SCRIPTS
        ],
        solver=[use_tools(add(), weather(), search()), generate()],
        scorer=includes(),
        model=get_model("mockllm/model", custom_outputs=agent),
    )
