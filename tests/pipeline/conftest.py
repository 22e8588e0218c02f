"""Fixtures of the pipeline scenarios: `engine_pipeline` runs a scenario once per engine
(tests/pipeline/engines.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.pipeline.engines import Engine, engine_params, pipeline_on
from tests.pipeline.project import Pipeline
from tests.postgres.conftest import postgres_server  # noqa: F401  (the throw-away server fixture)


@pytest.fixture(params=engine_params())
def engine(request: pytest.FixtureRequest) -> Engine:
    return request.param


@pytest.fixture
def engine_pipeline(engine: Engine, tmp_path: Path, request: pytest.FixtureRequest) -> Pipeline:
    return pipeline_on(engine, tmp_path / engine.value, request)
