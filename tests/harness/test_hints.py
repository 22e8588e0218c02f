"""Each hint matches what the diff shows: rows removed by the incremental route,
rows added twice, a key that matches two source rows, an order dependence (only where the
deliveries came in another order), updates of existing keys missed."""

from __future__ import annotations

from harness.hints import (
    APPEND_DUPLICATES, DROPPED_LATE, DUPLICATE_KEY, ORDER_DEPENDENT, UPDATES_MISSED, hint_for,
)
from harness.results import TableDiff

CONVERGENCE = "incremental batch by batch vs full refresh"
REVERSE = "one batch per key vs one batch per key, reverse order"
COARSE = "one batch per key vs 2 keys per batch"


def keyed(**fields) -> TableDiff:
    return TableDiff(table="main.m", key=("id",), **fields)


def test_a_key_missing_part_of_the_grain_is_not_blamed_on_late_data() -> None:
    # keyed on order_item_id, one row per event: the full refresh holds two rows of a key, the
    # incremental side one (the later merge replaced both): rows removed, no key removed
    diff = keyed(surplus_left=1, duplicate_keys_left=1)
    assert hint_for(diff, "convergence", CONVERGENCE) == DUPLICATE_KEY
    assert hint_for(diff, "batches", COARSE) == DUPLICATE_KEY
    assert "two or more source rows" in DUPLICATE_KEY


def test_a_late_return_is_a_missed_update_not_an_order_dependence() -> None:
    # the same keys, a column of one key differs: the incremental route kept the old row
    diff = keyed(surplus_left=1, surplus_right=1, keys_changed=1, changed_columns={"status": 1})
    assert hint_for(diff, "convergence", CONVERGENCE) == UPDATES_MISSED
    assert hint_for(diff, "batches", COARSE) == UPDATES_MISSED
    # only a split that reorders the deliveries shows an order dependence
    assert hint_for(diff, "batches", REVERSE) == ORDER_DEPENDENT


def test_rows_removed_and_rows_added_twice() -> None:
    removed = keyed(surplus_left=2, keys_removed=1)
    assert hint_for(removed, "convergence", CONVERGENCE) == DROPPED_LATE
    # a key lost stays rows dropped, even where the full build repeats another key
    lost_and_repeated = keyed(surplus_left=2, keys_removed=1, duplicate_keys_left=1)
    assert hint_for(lost_and_repeated, "convergence", CONVERGENCE) == DROPPED_LATE
    twice = TableDiff(table="main.m", surplus_right=2, duplicated_groups=2)
    assert hint_for(twice, "idempotency", "build vs build again") == APPEND_DUPLICATES
    assert hint_for(twice, "convergence", CONVERGENCE) == APPEND_DUPLICATES
