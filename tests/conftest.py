from __future__ import annotations

import functools
import importlib
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from gradeframe._delegate import delegate_of
from tests.utils import FRAME_TYPES, make_frame

# Hypothesis profiles, chosen with GRADEFRAME_HYPOTHESIS:
# - "quick" (the default, what `pytest` runs): 40 examples per property, so the whole suite
#   stays under three minutes on two cores;
# - "dev": a little more, for working on the rules;
# - "ci" (also called "thorough"): 2,000 examples per property; .ci/run runs the property tests
#   with it after the README's test command.
_COMMON: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
settings.register_profile("quick", max_examples=40, **_COMMON)
settings.register_profile("dev", max_examples=200, **_COMMON)
settings.register_profile("ci", max_examples=2000, **_COMMON)
settings.register_profile("thorough", max_examples=2000, **_COMMON)
settings.load_profile(os.environ.get("GRADEFRAME_HYPOTHESIS", "quick"))


def _documented_object(name: str) -> Any:
    """Resolve a doctest's dotted name (module, then attributes) to the object it documents."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            target = getattr(target, part, None)
        return target
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the doctests of ``.grade`` methods: they are their functions' docstrings, run there."""
    kept, dropped = [], []
    for item in items:
        dtest = getattr(item, "dtest", None)
        if dtest is not None and delegate_of(_documented_object(dtest.name)) is not None:
            dropped.append(item)
        else:
            kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture(params=FRAME_TYPES)
def constructor(request: pytest.FixtureRequest):
    """Build a frame of each type: Polars eager, Polars lazy, pandas object, pandas Arrow."""
    return functools.partial(make_frame, request.param)


@pytest.fixture(params=FRAME_TYPES)
def frame_type(request: pytest.FixtureRequest) -> str:
    return request.param
