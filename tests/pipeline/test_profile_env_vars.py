"""The profile's env vars are data (rerun_safe_duckdb/profile_check.py): a warehouse in a folder
with a quote, spaces and non-ASCII letters builds; a file name with a quote, which dbt-duckdb
cannot quote in its own catalog queries, and a memory limit DuckDB cannot read, fail before the
file is created, naming the env var, with no traceback."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.pipeline.project import Pipeline, event


class PlacedPipeline(Pipeline):
    """A pipeline whose warehouse file is `path` (absolute: no shared parse), with extra env."""

    shares_parse = False

    def __init__(self, root: Path, warehouse: Path, env: dict[str, str] | None = None) -> None:
        super().__init__(root)
        self.warehouse = warehouse
        self.extra_env = env or {}

    def dbt_env(self) -> dict[str, str]:
        return {**super().dbt_env(), **self.extra_env}


def test_a_warehouse_folder_with_quotes_spaces_and_non_ascii_builds(tmp_path: Path) -> None:
    folder = tmp_path / "o'brien \"q\" données"
    folder.mkdir()
    pipeline = PlacedPipeline(tmp_path / "run", folder / "entrepôt 2026.duckdb")
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    pipeline.build()
    assert pipeline.net_total() == 100


@pytest.mark.parametrize(("name", "env", "named"), [
    ("o'neil.duckdb", {}, "env var DBT_DUCKDB_PATH"),
    ('say "hi".duckdb', {}, "env var DBT_DUCKDB_PATH"),
    ("fine.duckdb", {"DBT_DUCKDB_MEMORY_LIMIT": "lots"}, "env var DBT_DUCKDB_MEMORY_LIMIT"),
    ("fine.duckdb", {"DBT_DUCKDB_MEMORY_LIMIT": "8GB'; set threads=1; --"}, "env var DBT_DUCKDB_MEMORY_LIMIT"),
])
def test_a_profile_env_var_that_cannot_be_used_fails_before_the_file_exists(
    tmp_path: Path, name: str, env: dict[str, str], named: str,
) -> None:
    warehouse = tmp_path / name
    pipeline = PlacedPipeline(tmp_path / "run", warehouse, env)
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    result = pipeline.dbt("build")
    assert not result.success
    message = " ".join(result.messages.values())
    assert named in message and "Traceback" not in message and "Parser Error" not in message
    assert not warehouse.exists()
