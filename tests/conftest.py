from __future__ import annotations

from pathlib import Path

import pytest

from tests.pipeline.project import Pipeline


@pytest.fixture
def pipeline(tmp_path: Path) -> Pipeline:
    return Pipeline(tmp_path)
