"""A lane can run dbt in a child process, for the checks that kill a build or run two at once."""

from __future__ import annotations

from pathlib import Path

from harness.dbt_invoke import DbtSettings
from harness.deliveries import land
from harness.workspace import Lane
from tests.harness.helpers import DELIVERIES, PROJECTS


def test_spawned_build_is_collected_from_its_own_run_results(tmp_path: Path) -> None:
    project = PROJECTS / "correct"
    lane = Lane(root=tmp_path, settings=DbtSettings(project, project), progress=lambda _: None)
    land(sorted(DELIVERIES.glob("*.csv")), lane.landing)
    killed = lane.spawn()
    killed.process.kill()
    assert lane.collect(killed, timeout=60, record=False).error == "dbt build exited with -9"
    assert lane.runs == []  # killed on purpose: not a problem of the check
    spawned = lane.spawn()
    run = lane.collect(spawned, timeout=120)
    assert run.ok, run.problems
    assert "model.fixture_correct.current_events" in {node.unique_id for node in run.nodes}
    assert spawned.target_path != killed.target_path
    snapshot = lane.snapshot("after the child build")
    assert "current_events" in {relation.name for relation in snapshot.relations}
