"""Every documented safety check is sent to each engine (tests/pipeline/engines.py) by a normal
build, with its SQL, in the node that owns it: the first build (every table new) and an
incremental build with a new delivery. Mutants C01-C12 (mutation/mutants.yml) each render one
check to nothing; this test kills them."""

from __future__ import annotations

from pathlib import Path

from tests.pipeline.checks_ran import Check, missing_checks, two_logged_builds
from tests.pipeline.engines import Engine
from tests.pipeline.project import Pipeline

# DuckDB's one checkpoint of a run: the last on-run-end hook (macros/cross_db/checkpoint_warehouse.sql;
# the profile's checkpoint_threshold keeps DuckDB from checkpointing inside a model's COMMIT)
DUCKDB_ONLY = (Check("the run's checkpoint in on-run-end", "rerun_safe-on-run-end", r"^checkpoint$"),)
# Postgres: the unique index on staged rows (created with the table: the first build only), and
# the lease guard's row lock that keeps a take-over waiting for the model's COMMIT
INDEX = Check("staged rows unique (index)", "stg_landing__events", r"create unique index \S+ on \S+ \(_row_id\)")
ROW_LOCK = Check("lease guard holds the row", "fct_revenue_ledger", r"holder_invocation_id = '[0-9a-f-]+' for share")
# engine -> (extra checks of the first build, of the incremental build)
ENGINE_ONLY = {
    Engine.DUCKDB: (DUCKDB_ONLY, DUCKDB_ONLY),
    Engine.POSTGRES: ((INDEX, ROW_LOCK), (ROW_LOCK,)),
}


def test_every_check_runs_in_the_first_and_an_incremental_build(
    engine: Engine, engine_pipeline: Pipeline, tmp_path: Path
) -> None:
    first, second = two_logged_builds(engine_pipeline, tmp_path / "logs")
    first_extra, incremental_extra = ENGINE_ONLY[engine]
    assert missing_checks(first, incremental=False, extra=first_extra) == []
    assert missing_checks(second, incremental=True, extra=incremental_extra) == []
