"""tests/pipeline/test_value_edges.py on Postgres: the same delivery, the same rules (the
postgres__ regex of has_blank_or_control, trim_blank and parse_utc_timestamp)."""
from __future__ import annotations

import pytest

from tests.pipeline.test_value_edges import (  # noqa: F401  (collected here, with this module's fixture)
    cases,
    test_every_key_column_rejects_every_invisible_class,
    test_every_row_gets_the_reason_of_its_rule,
    test_the_quarantine_keeps_the_landed_text_of_every_field,
    test_values_are_trimmed_at_both_ends,
)
from tests.postgres.conftest import PostgresServer
from tests.postgres.project import PostgresPipeline


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory, postgres_server: PostgresServer) -> tuple[PostgresPipeline, list]:
    pipeline = PostgresPipeline(tmp_path_factory.mktemp("value_edges_pg"), postgres_server)
    rows = cases()
    pipeline.land("2026-11-01_001_edges.csv", [row for row, _ in rows])
    pipeline.build()
    return pipeline, rows
