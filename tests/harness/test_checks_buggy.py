"""Each known re-run bug of the `buggy` fixture is reported by the check that must catch it.

Fixture: tests/fixtures/projects/buggy, one model per bug; deliveries in tests/fixtures/deliveries.
"""

from __future__ import annotations

from pathlib import Path

from harness.keys import DELETE_INSERT_DUPLICATES, MERGE_DUPLICATES
from harness.report import render_markdown, render_terminal
from harness.results import Status
from tests.harness.helpers import run_fixture_check


def test_idempotency_catches_blind_append_and_current_time(workdir: Path) -> None:
    # Building twice with the same files: a blind append doubles its rows, now() changes a column.
    result = run_fixture_check("idempotency", "buggy", workdir)
    assert result.status is Status.FAIL
    (comparison,) = result.comparisons
    blind = comparison.diff_for("blind_append")
    assert blind.right_rows == 2 * blind.left_rows
    assert "duplicated rows" in blind.kinds()
    current = comparison.diff_for("current_time")
    assert current.key == ("event_id",)
    assert set(current.changed_columns) == {"computed_at"}
    assert current.keys_changed == current.left_rows
    assert {table for table, where in result.failing_tables().items() if where != ["key check"]} == {
        "blind_append",
        "current_time",
        "append_gte",
    }
    # The key check after every build: unique_keys that are not unique in the model's rows,
    # whatever the strategy (lookback_zero, delete+insert, holds the two payloads of e9 v1).
    assert {v.model for v in result.key_violations} == {"merge_non_unique", "delete_insert_non_unique", "lookback_zero"}


def test_keys_catches_a_delete_insert_key_that_repeats(workdir: Path) -> None:
    # delete_insert_non_unique: keyed on order_item_id, no strategy named (dbt-duckdb's default
    # delete+insert), one row per event. Re-runs agree, so only the key check can see it.
    result = run_fixture_check("keys", "buggy", workdir)
    assert result.status is Status.FAIL
    violations = {v.model: v for v in result.key_violations}
    assert set(violations) == {"delete_insert_non_unique", "lookback_zero", "merge_non_unique"}
    default = violations["delete_insert_non_unique"]
    assert (default.columns, default.declared_by) == (("order_item_id",), "unique_key config")
    assert default.sample == ["'i1' x3", "'i2' x2", "'i9' x2"] and default.extra_rows == 4
    assert violations["lookback_zero"].sample == ["('e9', 1) x2"]  # delete+insert named
    assert default.hint == violations["lookback_zero"].hint == DELETE_INSERT_DUPLICATES
    assert violations["merge_non_unique"].hint == MERGE_DUPLICATES
    assert f"delete_insert_non_unique: {DELETE_INSERT_DUPLICATES}" in result.hints()
    assert result.exercised["grains asserted"] == 5
    # every model whose key was not asserted is listed, with why
    assert {(n.model, n.why) for n in result.keys_not_asserted} == {
        (name, "no unique_key and no unique / unique_combination test")
        for name in ("append_gt", "append_gte", "blind_append", "claimed_events", "claimed_files")
    }
    for text in (render_terminal([result]), render_markdown([result])):
        assert "DUPLICATE KEYS delete_insert_non_unique: (order_item_id) [unique_key config] is not unique" in text
        assert f"hint: delete_insert_non_unique: {DELETE_INSERT_DUPLICATES}" in text
        assert (
            "key not asserted, no unique_key and no unique / unique_combination test: "
            "append_gt, append_gte, blind_append, claimed_events, claimed_files"
        ) in text
    assert "duplicate keys in delete_insert_non_unique, lookback_zero, merge_non_unique" in result.headline()


def test_idempotency_per_model_runs_each_model_twice(workdir: Path) -> None:
    # `dbt run -s model` twice after one build: only the model itself is judged each time.
    result = run_fixture_check(
        "idempotency", "buggy", workdir, select=("blind_append", "lookback_zero"), per_model=True
    )
    assert result.status is Status.FAIL
    labels = [c.label for c in result.comparisons]
    assert labels == ["dbt run -s blind_append twice", "dbt run -s lookback_zero twice"]
    blind, lookback = result.comparisons
    assert [d.table for d in blind.diffs] == ["main.blind_append"]
    assert "duplicated rows" in blind.diffs[0].kinds()
    assert lookback.passed


def test_convergence_catches_merge_on_non_unique_key_and_zero_lookback(workdir: Path) -> None:
    # Three batches built one by one vs one full refresh of all files.
    result = run_fixture_check("convergence", "buggy", workdir)
    assert result.status is Status.FAIL
    (comparison,) = result.comparisons
    # merge on order_item_id: the later event of item i1 overwrote both earlier rows.
    merge = comparison.diff_for("merge_non_unique")
    assert merge.key == ("order_item_id",)
    assert "duplicated rows" in merge.kinds()
    assert "-" in merge.sample and "e6" in merge.sample
    # zero lookback: batch 3 was ingested before batch 2's max: e8 never loaded.
    lookback = comparison.diff_for("lookback_zero")
    assert lookback.keys_removed == 1
    assert "e8" in lookback.sample
    assert lookback.surplus_left == 2 and lookback.surplus_right == 0
    assert {"blind_append", "merge_non_unique", "lookback_zero", "current_time"} <= set(result.failing_tables())


def test_replay_catches_blind_append(workdir: Path) -> None:
    # Redelivering landed files (same names with a new mtime, then new names) must post nothing.
    result = run_fixture_check("replay", "buggy", workdir)
    assert result.status is Status.FAIL
    same_names, new_names = result.comparisons
    assert "same names" in same_names.label and "new names" in new_names.label
    for comparison in (same_names, new_names):
        blind = comparison.diff_for("blind_append")
        assert "duplicated rows" in blind.kinds() and blind.surplus_left == 0
        assert comparison.diff_for("lookback_zero").identical
        # Loads every delivery on purpose (meta records_deliveries): left out of replay only.
        assert "main.claimed_events" in {nj.table for nj in comparison.not_judged}
    assert "blind_append" in result.failing_tables()
    assert "claimed_events" not in result.failing_tables()


def test_batches_catches_the_unbroken_tie(workdir: Path) -> None:
    # e9 version 1 comes twice with other amounts (batches 1 and 3): the last merged file wins,
    # so the reverse order keeps 100 where the natural order keeps 999.
    result = run_fixture_check("batches", "buggy", workdir)
    assert result.status is Status.FAIL
    reverse = next(c for c in result.comparisons if "reverse" in c.label)
    tie = reverse.diff_for("tie_break")
    assert tie.key == ("event_id",)
    assert "amount_cents" in tie.changed_columns
    assert "e9" in tie.sample and "999" in tie.sample and "100" in tie.sample
    # merge on a non-unique key errors when a later batch brings two rows for one stored item.
    assert any("merge_non_unique" in error and "MERGE" in error for error in result.errors)
