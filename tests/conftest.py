from __future__ import annotations

import functools
import os

import pytest
from hypothesis import HealthCheck, settings

from tests.utils import FRAME_TYPES, make_frame

# CI runs the property tests with at least 2,000 examples each; a quick local run may set
# GRADEFRAME_HYPOTHESIS=dev.
settings.register_profile(
    "ci",
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "dev",
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile(os.environ.get("GRADEFRAME_HYPOTHESIS", "ci"))


@pytest.fixture(params=FRAME_TYPES)
def constructor(request: pytest.FixtureRequest):
    """Build a frame of each type: Polars eager, Polars lazy, pandas object, pandas Arrow."""
    return functools.partial(make_frame, request.param)


@pytest.fixture(params=FRAME_TYPES)
def frame_type(request: pytest.FixtureRequest) -> str:
    return request.param
