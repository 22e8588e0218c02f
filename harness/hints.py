"""Hints: the classic re-run bug a difference looks like, in one sentence a reviewer can act on.

A hint states only what the evidence shows: the shape of the difference (which side has the
surplus, whether keys or only columns changed), the check that found it, and what the model's
SQL and config in the manifest show (`ModelSql`: `{{ this }}` read back, a wall-clock function,
a window function beside an `is_incremental()` filter, microbatch with its lookback, no
unique_key, a key declared to repeat). Where no rule fits the evidence the hint says so
(`NO_KNOWN_CAUSE`) rather than guess. A hint never suggests `volatile_columns` for a model that
reads `{{ this }}` or whose SQL names no build-time function: that would hide the bug.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.results import TableDiff

APPEND_DUPLICATES = (
    "duplicates from append: the re-run added rows the table already held (an `append` "
    "strategy with no key, or a filter such as `>=` on the last loaded value that re-reads the "
    "boundary rows); give the model a unique_key (merge / delete+insert) or read only rows not "
    "loaded yet"
)
VOLATILE = (
    "volatile column(s) {columns}: the model's SQL computes a value at build time ({functions}), "
    "which differs on every run; derive it from the data, or list it in "
    "meta.rerun_safe.volatile_columns if it is bookkeeping"
)
READS_THIS = (
    "the model reads its own table back ({{{{ this }}}}) and a re-run changed {columns}: state carried "
    "from {{{{ this }}}} is added to again (a balance over a lookback window counts the window's "
    "rows twice); compute it from the input rows, or carry only rows older than the window"
)
WINDOW_OVER_BATCH = (
    "a window function over the incremental batch only: the SQL has `over (...)` beside an "
    "is_incremental() filter, so row_number() / a running sum sees only the new rows and "
    "restarts on every run ({columns} differ); compute it over the rows already held as well"
)
WALL_CLOCK = (
    "the SQL reads the wall clock ({functions}): a window such as `current_date - 3` selects "
    "other rows depending on when the build runs, not on the data; bound it by the data "
    "(max(event time) of {{{{ this }}}}, a var) instead"
)
MICROBATCH_LOOKBACK = (
    "microbatch with lookback {lookback}: a batch re-reads only the last {lookback} batch(es) "
    "before it, so rows arriving later than that are lost; raise `lookback` to cover the "
    "lateness, or rebuild the affected batches"
)
KEY_REPEATS_PARTITION = (
    "the unique_key is declared to repeat (meta.rerun_safe.unique_key_repeats): a partition "
    "replaced by its key takes only the rows this run selected, so the rows it held before are "
    "lost; replace a partition with all of its rows (read the whole partition, not the batch)"
)
NO_UNIQUE_KEY = (
    "the model has no unique_key: a new version of a key already loaded is appended beside "
    "the old row instead of replacing it; give the model a unique_key (merge / delete+insert)"
)
NULLABLE_KEY = (
    "the unique_key has a column that is NULL in {keys} repeated key(s): a merge compares keys "
    "with `=`, and NULL = NULL is not true, so such a row never matches the row already held and "
    "is inserted again on every run; key on columns that are never NULL (coalesce the column)"
)
NO_KNOWN_CAUSE = (
    "no known cause: the difference ({kinds}) fits no rule the harness knows for this model's "
    "SQL; look at the sample rows"
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
ROW_ORDER = (
    "the result depends on row order: a tie in an ORDER BY or a window, or any_value, or a "
    "limit without an order; order by columns that tell every row apart"
)
DUPLICATE_KEY = (
    "the unique_key is not unique in the model's own rows: it misses part of the grain, so one "
    "key matches two or more source rows, and a merge/delete+insert on it overwrites or "
    "multiplies rows; key the model on its real grain"
)

# Functions whose value depends on when (or in which invocation) the build runs.
BUILD_TIME = re.compile(
    r"\b(current_date|current_timestamp|current_time|localtimestamp|now\s*\(\s*\)|getdate\s*\(\s*\)|"
    r"sysdate|today\s*\(\s*\)|get_current_time|invocation_id|run_started_at|random\s*\(\s*\)|"
    r"uuid\s*\(\s*\)|gen_random_uuid\s*\(\s*\))",
    re.IGNORECASE,
)
# The build-time functions that read the wall clock (a time window), as opposed to an id or a
# random value.
WALL_CLOCK_FUNCTIONS = re.compile(
    r"^(current_date|current_timestamp|current_time|localtimestamp|now|getdate|sysdate|today|"
    r"get_current_time|run_started_at)",
    re.IGNORECASE,
)
THIS = re.compile(r"\{\{-?\s*this\s*-?\}\}")
WINDOW = re.compile(r"\bover\s*\(", re.IGNORECASE)
# A filter clause, and what ends one (the next select or from), before a function's position.
FILTER_START = re.compile(r"\b(where|having|qualify)\b", re.IGNORECASE)
FILTER_END = re.compile(r"\b(select|from|group\s+by|order\s+by)\b", re.IGNORECASE)


@dataclass(frozen=True)
class ModelSql:
    """What a model's SQL (raw and compiled) and config in the manifest show, for the hints."""

    name: str = ""
    reads_this: bool = False  # `{{ this }}` (the model's own relation) is read
    build_time: tuple[str, ...] = ()  # build-time functions the SQL names, as written
    wall_clock_filter: tuple[str, ...] = ()  # wall-clock functions in a filter (where ...)
    window_over_batch: bool = False  # a window function beside an is_incremental() filter
    window_columns: tuple[str, ...] = ()  # columns the SQL computes with a window (`over (...) as c`)
    microbatch: bool = False
    lookback: int = 1  # microbatch's lookback (dbt's default 1)
    unique_key: bool = False  # a unique_key config
    unique_key_repeats: bool = False  # meta.rerun_safe.unique_key_repeats

    @property
    def wall_clock(self) -> tuple[str, ...]:
        return tuple(f for f in self.build_time if WALL_CLOCK_FUNCTIONS.match(f))


def _found(pattern: re.Pattern[str], text: str) -> tuple[str, ...]:
    seen: list[str] = []
    for match in pattern.finditer(text):
        word = re.sub(r"\s+", "", match.group(1)).lower()
        if word not in seen:
            seen.append(word)
    return tuple(seen)


def window_aliases(code: str) -> tuple[str, ...]:
    """The column names given to window expressions: `... over (...) [= 1] as name`."""
    found: list[str] = []
    for match in WINDOW.finditer(code):
        depth, index = 1, match.end()
        while index < len(code) and depth:
            depth += {"(": 1, ")": -1}.get(code[index], 0)
            index += 1
        tail = re.match(r"[^,()]*?\bas\s+\"?(\w+)\"?", code[index : index + 200], re.IGNORECASE | re.DOTALL)
        if tail and tail.group(1).lower() not in found:
            found.append(tail.group(1).lower())
    return tuple(found)


def _in_filter(before: str) -> bool:
    """Does SQL text that ends right before a function leave it inside a where/having/qualify?"""
    starts = [m.end() for m in FILTER_START.finditer(before)]
    if not starts:
        return False
    return not FILTER_END.search(before[starts[-1] :])


def model_sql(node: Mapping[str, Any]) -> ModelSql:
    """The evidence of one manifest node (raw_code, compiled_code, config, relation_name)."""
    raw = str(node.get("raw_code") or "")
    compiled = str(node.get("compiled_code") or "")
    relation = str(node.get("relation_name") or "")
    config = node.get("config") or {}
    meta = dict(node.get("meta") or {})
    meta.update(config.get("meta") or {})
    code = raw + "\n" + compiled
    incremental = "is_incremental" in raw
    filtered = tuple(
        re.sub(r"\s+", "", match.group(1)).lower()
        for match in BUILD_TIME.finditer(code)
        if WALL_CLOCK_FUNCTIONS.match(match.group(1)) and _in_filter(code[: match.start()])
    )
    repeats = ((meta.get("rerun_safe") or {}) if isinstance(meta.get("rerun_safe"), dict) else {}).get(
        "unique_key_repeats", False
    )
    lookback = config.get("lookback")
    return ModelSql(
        name=str(node.get("name") or ""),
        reads_this=bool(THIS.search(raw)) or bool(relation and compiled and relation in compiled),
        build_time=_found(BUILD_TIME, code),
        wall_clock_filter=tuple(dict.fromkeys(filtered)),
        window_over_batch=incremental and bool(WINDOW.search(raw)),
        window_columns=window_aliases(raw),
        microbatch=str(config.get("incremental_strategy") or "").lower() == "microbatch",
        lookback=int(lookback) if isinstance(lookback, int) else 1,
        unique_key=bool(config.get("unique_key")),
        unique_key_repeats=repeats is True or str(repeats).lower() == "true",
    )


def models_sql(manifest: Path) -> dict[str, ModelSql]:
    """Every model of a manifest.json by name (its relation's identifier too)."""
    data = json.loads(manifest.read_text())
    found: dict[str, ModelSql] = {}
    for node in (data.get("nodes") or {}).values():
        if node.get("resource_type") not in ("model", "snapshot", "seed"):
            continue
        sql = model_sql(node)
        found.setdefault(sql.name.lower(), sql)
        alias = str(node.get("alias") or "").lower()
        if alias:
            found.setdefault(alias, sql)
    return found


def reordered(label: str) -> bool:
    """Does a comparison (its label) put deliveries in another order (batches: reverse, shuffled)?"""
    return "reverse order" in label or "shuffled" in label


def _columns(diff: TableDiff) -> str:
    return ", ".join(sorted(diff.changed_columns)) or "rows"


def _by_window(diff: TableDiff, known: ModelSql) -> bool:
    """Did a window function over the incremental batch compute a column that changed?"""
    return known.window_over_batch and any(c.lower() in known.window_columns for c in diff.changed_columns)


def _no_known_cause(diff: TableDiff) -> str:
    return NO_KNOWN_CAUSE.format(kinds=", ".join(diff.kinds()) or "rows differ")


def in_delivery_files(files: list[Path]) -> Callable[[str], bool]:
    """Does a value (its text) appear in any of these delivery files? CSV files are read as
    text, a line at a time; a Parquet file's values are cast to text by DuckDB."""

    def found(value: str) -> bool:
        if not value:
            return False
        for path in files:
            if path.suffix.lower() == ".parquet":
                import duckdb

                with duckdb.connect() as con:
                    row = con.execute(
                        "select count(*) from read_parquet(?) as row_of where contains(cast(row_of as varchar), ?)",
                        [str(path), value],
                    ).fetchone()
                    if row and row[0]:
                        return True
                continue
            with path.open(errors="replace") as lines:
                if any(value in line for line in lines):
                    return True
        return False

    return found


def _looks_like_stamps(diff: TableDiff, in_input: Callable[[str], bool] | None) -> bool:
    """No new value of a changed column appears in the input (when the input is known)."""
    if in_input is None:
        return True
    return not any(in_input(value) for values in diff.changed_values.values() for value in values)


def hint_for(
    diff: TableDiff,
    check: str,
    label: str = "",
    sql: ModelSql | None = None,
    in_input: Callable[[str], bool] | None = None,
) -> str:
    """A hint for one differing table found by `check` in the comparison `label`, given what
    the model's SQL shows (`sql`; None: nothing known of it) and, to tell a build stamp from a
    value of the data, whether a value appears in the deliveries (`in_input`), or "" when it
    is identical. Only a comparison that reorders the deliveries can show an order dependence."""
    if diff.identical or diff.missing_on or diff.schema_changes:
        return ""
    known = sql or ModelSql()
    if check == "determinism":
        if (
            known.build_time
            and diff.key
            and diff.changed_columns
            and not (diff.keys_added or diff.keys_removed)
            and _looks_like_stamps(diff, in_input)
        ):
            return VOLATILE.format(columns=_columns(diff), functions=", ".join(known.build_time))
        return ROW_ORDER
    added_only = diff.surplus_right > 0 and diff.surplus_left == 0
    removed_only = diff.surplus_left > 0 and diff.surplus_right == 0
    more_duplicate_keys = diff.duplicate_keys_right > diff.duplicate_keys_left
    lost = diff.keys_removed or removed_only or diff.surplus_left > 0
    only_columns = bool(diff.key and diff.changed_columns and not (diff.keys_added or diff.keys_removed))
    if (
        check in ("convergence", "batches", "crash")
        and sql is not None
        and not known.unique_key
        and diff.key
        and more_duplicate_keys
    ):
        return NO_UNIQUE_KEY
    if diff.null_key_duplicates_right and more_duplicate_keys:
        return NULLABLE_KEY.format(keys=diff.null_key_duplicates_right)
    if check in ("idempotency", "replay", "concurrency") and (
        (added_only and (diff.duplicated_groups or not diff.key)) or more_duplicate_keys
    ):
        return APPEND_DUPLICATES
    if check in ("idempotency", "replay") and (only_columns or diff.changed_columns):
        if known.reads_this:
            return READS_THIS.format(columns=_columns(diff))
        if _by_window(diff, known):
            return WINDOW_OVER_BATCH.format(columns=_columns(diff))
        if known.build_time and only_columns and _looks_like_stamps(diff, in_input):
            return VOLATILE.format(columns=_columns(diff), functions=", ".join(known.build_time))
        return _no_known_cause(diff)
    if check in ("convergence", "batches", "crash"):
        # right: the incremental (or crashed) side; left: the full refresh (or clean) side
        if known.wall_clock_filter:
            return WALL_CLOCK.format(functions=", ".join(known.wall_clock_filter))
        if known.microbatch and lost:
            return MICROBATCH_LOOKBACK.format(lookback=known.lookback)
        if known.unique_key_repeats and lost:
            return KEY_REPEATS_PARTITION
        if _by_window(diff, known) and not reordered(label):
            return WINDOW_OVER_BATCH.format(columns=_columns(diff))
    return _route_hint(diff, check, label, known, removed_only)


def _route_hint(diff: TableDiff, check: str, label: str, known: ModelSql, removed_only: bool) -> str:
    """The hint when no cause the model's SQL shows explains the difference: what the shape of
    the difference says, by the route the check compared."""
    # a key repeated on the reference side, with no key lost: the key misses part of the grain
    # (a key lost is rows dropped by the route, below; the key check names the repeats)
    if (
        check in ("convergence", "batches", "crash")
        and not known.unique_key_repeats
        and (diff.duplicate_keys_right or (diff.duplicate_keys_left and not diff.keys_removed))
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
    if (diff.duplicate_keys_left or diff.duplicate_keys_right) and not known.unique_key_repeats:
        return DUPLICATE_KEY
    if check != "idempotency" and diff.duplicated_groups and diff.surplus_right:
        return APPEND_DUPLICATES
    return _no_known_cause(diff)
