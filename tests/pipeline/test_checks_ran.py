"""Every documented safety check is sent to DuckDB by a normal build, with its SQL, in the node
that owns it: the first build (every table new) and an incremental build with a new delivery.
Mutants C01-C12 (mutation/mutants.yml) each render one check to nothing; this test kills them."""
from __future__ import annotations

from pathlib import Path

from tests.pipeline.checks_ran import missing_checks, two_logged_builds
from tests.pipeline.project import Pipeline


def test_every_check_runs_in_the_first_and_an_incremental_build(pipeline: Pipeline, tmp_path: Path) -> None:
    first, second = two_logged_builds(pipeline, tmp_path / "logs")
    assert missing_checks(first, incremental=False) == []
    assert missing_checks(second, incremental=True) == []
