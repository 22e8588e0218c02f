"""Every documented safety check is sent to DuckDB by a normal build, with its SQL, in the node
that owns it: the first build (every table new) and an incremental build with a new delivery.
Mutants C01-C12 (mutation/mutants.yml) each render one check to nothing; this test kills them."""

from __future__ import annotations

from pathlib import Path

from tests.pipeline.checks_ran import Check, missing_checks, two_logged_builds
from tests.pipeline.project import Pipeline

# DuckDB's one checkpoint of a run: the last on-run-end hook (macros/cross_db/checkpoint_warehouse.sql;
# the profile's checkpoint_threshold keeps DuckDB from checkpointing inside a model's COMMIT)
DUCKDB_ONLY = (Check("the run's checkpoint in on-run-end", "rerun_safe-on-run-end", r"^checkpoint$"),)


def test_every_check_runs_in_the_first_and_an_incremental_build(pipeline: Pipeline, tmp_path: Path) -> None:
    first, second = two_logged_builds(pipeline, tmp_path / "logs")
    assert missing_checks(first, incremental=False, extra=DUCKDB_ONLY) == []
    assert missing_checks(second, incremental=True, extra=DUCKDB_ONLY) == []
