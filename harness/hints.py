"""Hints: the classic re-run bug a difference looks like, in one sentence a reviewer can act on.

A hint is a guess from the shape of the difference (which side has the surplus, whether keys
or only columns changed) and the check that found it; the report shows it next to the table.
"""

from __future__ import annotations

from harness.results import TableDiff

APPEND_DUPLICATES = (
    "duplicates from append: the re-run added rows the table already held (an `append` "
    "strategy with no key, or a filter such as `>=` on the last loaded value that re-reads the "
    "boundary rows); give the model a unique_key (merge / delete+insert) or read only rows not "
    "loaded yet"
)
VOLATILE = (
    "volatile column(s) {columns}: a value computed at build time (current_timestamp, now(), "
    "invocation_id, random()) differs on every run; derive it from the data, or list it in "
    "meta.rerun_safe.volatile_columns if it is bookkeeping"
)
DROPPED_LATE = (
    "rows dropped by the incremental route: a filter like `where ts > (select max(ts) from "
    "{{ this }})` skips rows that arrive later with an older timestamp (late data); read a "
    "lookback window with a unique_key, or track which files/rows were loaded"
)
LOST_AFTER_CRASH = (
    "rows lost after a stopped build: progress (a claim, a high-water mark) was committed apart "
    "from the data it covers; write both in one transaction, or derive progress from the data"
)
UPDATES_MISSED = (
    "rows of existing keys not updated by the incremental route: a later row for a key already "
    "loaded (a return, a correction, a new version) was skipped by the incremental filter or "
    "lost to the older row; read a lookback window that covers late changes and let the merge "
    "update, ordering versions by their own column"
)
ORDER_DEPENDENT = (
    "the result depends on batch order: ties are not broken (row_number without a total order) "
    "or the last file merged wins; order by every column that tells two versions apart"
)
DUPLICATE_KEY = (
    "the unique_key is not unique in the model's own rows: it misses part of the grain, so one "
    "key matches two or more source rows, and a merge/delete+insert on it overwrites or "
    "multiplies rows; key the model on its real grain"
)


def reordered(label: str) -> bool:
    """Does a comparison (its label) put deliveries in another order (batches: reverse, shuffled)?"""
    return "reverse order" in label or "shuffled" in label


def hint_for(diff: TableDiff, check: str, label: str = "") -> str:
    """A hint for one differing table found by `check` in the comparison `label`, or "" when
    no pattern fits. Only a comparison that reorders the deliveries can show an order
    dependence; a key repeated on either side is the key missing part of the grain."""
    if diff.identical or diff.missing_on or diff.schema_changes:
        return ""
    added_only = diff.surplus_right > 0 and diff.surplus_left == 0
    removed_only = diff.surplus_left > 0 and diff.surplus_right == 0
    more_duplicate_keys = diff.duplicate_keys_right > diff.duplicate_keys_left
    if check in ("idempotency", "replay", "concurrency") and (
        (added_only and (diff.duplicated_groups or not diff.key)) or more_duplicate_keys
    ):
        return APPEND_DUPLICATES
    if check == "idempotency" and diff.key and diff.changed_columns and not (diff.keys_added or diff.keys_removed):
        return VOLATILE.format(columns=", ".join(sorted(diff.changed_columns)))
    # right: the incremental (or crashed) side; left: the full refresh (or clean) side
    # a key repeated on the reference side, with no key lost: the key misses part of the grain
    # (a key lost is rows dropped by the route, below; the key check names the repeats)
    if check in ("convergence", "batches", "crash") and (
        diff.duplicate_keys_right or (diff.duplicate_keys_left and not diff.keys_removed)
    ):
        return DUPLICATE_KEY
    if check in ("convergence", "batches") and (
        diff.keys_removed
        or removed_only
        or (diff.surplus_left > 0 and not diff.changed_columns and not diff.duplicated_groups)
    ):
        return DROPPED_LATE
    if check == "crash" and (diff.keys_removed or removed_only):
        return LOST_AFTER_CRASH
    if check == "batches" and reordered(label) and diff.changed_columns and not diff.keys_removed:
        return ORDER_DEPENDENT
    if check in ("batches", "convergence") and diff.changed_columns and not diff.keys_removed:
        return UPDATES_MISSED
    if diff.duplicate_keys_left or diff.duplicate_keys_right:
        return DUPLICATE_KEY
    if check != "idempotency" and diff.duplicated_groups and diff.surplus_right:
        return APPEND_DUPLICATES
    return ""
