"""Fixtures of the harness tests."""

from __future__ import annotations

from pathlib import Path

import pytest

# The throw-away PostgreSQL 15 server of tests/postgres (one per xdist worker), for the
# safety tests: a target pointing at a server schema must never be written.
from tests.postgres.conftest import postgres_server  # noqa: F401


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    return tmp_path / "work"
