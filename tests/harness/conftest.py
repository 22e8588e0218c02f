"""Fixtures of the harness tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    return tmp_path / "work"
