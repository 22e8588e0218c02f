"""The project's dbt unit tests pass on every engine (tests/pipeline/engines.py; Spark's:
tests/spark/scenarios/engine_equality.py), and the scenarios' builds leave them out.

They read their fixtures, never the warehouse, so running them in each of the suite's few
hundred builds proved nothing more: each engine runs them once, here."""

from __future__ import annotations

from tests.pipeline.project import Pipeline, event


def test_unit_tests_pass_and_builds_leave_them_out(engine_pipeline: Pipeline) -> None:
    pipeline = engine_pipeline
    pipeline.land("2026-11-01_001_main.csv", [event("A", 100)])
    built = pipeline.build()
    assert any(node.startswith("test.") for node in built.statuses), "a build runs the data tests"
    assert not any(node.startswith("unit_test.") for node in built.statuses), built.statuses
    ran = pipeline.unit_tests()
    # models/intermediate/_intermediate__models.yml has three
    assert sum(node.startswith("unit_test.") for node in ran.statuses) >= 3, ran.statuses
