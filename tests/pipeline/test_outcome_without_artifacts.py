"""The tests' pipelines run dbt with `--no-write-json` (harness.dbt_invoke.run_dbt,
write_json=False) and read each node's outcome from dbtRunner's result instead of
run_results.json. That outcome must be the one the file gives: same nodes, statuses and
messages, for a build that passes, one whose model fails, and a run-operation."""

from __future__ import annotations

import json
from pathlib import Path

from harness.dbt_invoke import run_dbt
from tests.pipeline.project import PROJECT_DIR, Pipeline, event


def _both_ways(pipeline: Pipeline, *args: str, vars_: dict | None = None) -> tuple:
    argv = [
        *args,
        "--project-dir",
        str(PROJECT_DIR),
        "--profiles-dir",
        str(PROJECT_DIR),
        "--target-path",
        str(pipeline.target_path),
        "--quiet",
        "--vars",
        json.dumps({"landing_path": str(pipeline.landing), **(vars_ or {})}),
    ]
    outcomes = []
    for write_json in (True, False):
        outcome = run_dbt(argv, target_path=pipeline.target_path, env=pipeline.dbt_env(), write_json=write_json)
        outcomes.append(outcome)
    return tuple(outcomes)


def test_in_memory_outcome_equals_run_results(tmp_path: Path) -> None:
    pipeline = Pipeline(tmp_path)
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    with_file, in_memory = _both_ways(pipeline, "build", "--exclude", "resource_type:unit_test")
    assert with_file.wrote_results and in_memory.wrote_results
    assert with_file.success and in_memory.success
    assert len(with_file.nodes) > 50  # models, seeds, data tests and hooks
    assert {node.status for node in with_file.nodes} == {"success", "pass"}
    assert sorted(in_memory.nodes, key=repr) == sorted(with_file.nodes, key=repr)
    # a model that fails: its error message
    failing = {"rerun_safe_fail_model": "fct_order_items"}
    with_file, in_memory = _both_ways(pipeline, "run", "--select", "fct_order_items", vars_=failing)
    assert not with_file.success and not in_memory.success
    statuses = {node.unique_id: node.status for node in with_file.nodes}
    assert statuses["model.rerun_safe.fct_order_items"] == "error", statuses
    assert sorted(in_memory.nodes, key=repr) == sorted(with_file.nodes, key=repr)
    # run-operation: its results name their macro without a node
    with_file, in_memory = _both_ways(
        pipeline, "run-operation", "release_warehouse_lease", "--args", "{invocation_id: 00000000-0000}"
    )
    assert with_file.nodes and in_memory.nodes == with_file.nodes
