from __future__ import annotations

from pathlib import Path

import pytest

from tests.pipeline.project import Pipeline
from tests.postgres.conftest import postgres_server  # noqa: F401  (the throw-away server fixture)
from tests.postgres.project import PostgresPipeline


@pytest.fixture
def pipeline(tmp_path: Path) -> Pipeline:
    return Pipeline(tmp_path)


@pytest.fixture
def pg(tmp_path: Path, postgres_server) -> PostgresPipeline:  # noqa: F811
    return PostgresPipeline(tmp_path, postgres_server)
