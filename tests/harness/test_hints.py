"""Each hint matches what the diff shows: rows removed by the incremental route,
rows added twice, a key that matches two source rows, an order dependence (only where the
deliveries came in another order), updates of existing keys missed."""

from __future__ import annotations

from harness.hints import (
    APPEND_DUPLICATES,
    DROPPED_LATE,
    DUPLICATE_KEY,
    ORDER_DEPENDENT,
    UPDATES_MISSED,
    hint_for,
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


# What the model's SQL shows decides the hint; without evidence the hint says so.

from harness.hints import (  # noqa: E402
    KEY_REPEATS_PARTITION,
    MICROBATCH_LOOKBACK,
    NO_UNIQUE_KEY,
    NULLABLE_KEY,
    READS_THIS,
    ROW_ORDER,
    VOLATILE,
    WALL_CLOCK,
    WINDOW_OVER_BATCH,
    ModelSql,
    model_sql,
)

RERUN = "build twice, same inputs"
COLUMNS_ONLY = dict(surplus_left=2, surplus_right=2, keys_changed=2, changed_columns={"balance_cents": 2})


def node(raw: str, **config) -> dict:
    return {"name": "m", "raw_code": raw, "config": config, "relation_name": '"db"."main"."m"'}


def test_a_build_stamp_is_volatile_only_where_the_sql_computes_one() -> None:
    diff = keyed(**COLUMNS_ONLY)
    stamped = model_sql(node("select id, now() as computed_at from {{ ref('x') }}"))
    assert stamped.build_time == ("now()",)
    assert hint_for(diff, "idempotency", RERUN, stamped) == VOLATILE.format(columns="balance_cents", functions="now()")
    # no build-time function in the SQL, or nothing known of the model: no volatile_columns
    for sql in (model_sql(node("select id, amount from {{ ref('x') }}")), None):
        hint = hint_for(diff, "idempotency", RERUN, sql)
        assert "volatile_columns" not in hint and hint.startswith("no known cause")


def test_state_read_back_from_this_is_never_called_volatile() -> None:
    raw = """
    {{ config(materialized='incremental', unique_key=['company_id', 'day']) }}
    select company_id, day, (select max(balance) from {{ this }}) + sum(cents) as balance_cents, now() as at
    from {{ ref('x') }} group by 1, 2
    """
    sql = model_sql(node(raw, materialized="incremental", unique_key=["company_id", "day"]))
    assert sql.reads_this and sql.build_time == ("now()",)
    hint = hint_for(keyed(**COLUMNS_ONLY), "idempotency", RERUN, sql)
    assert hint == READS_THIS.format(columns="balance_cents") and "volatile_columns" not in hint
    # the compiled SQL names the model's own relation: it reads {{ this }} too
    compiled = {**node("select 1"), "compiled_code": 'select max(x) from "db"."main"."m"'}
    assert model_sql(compiled).reads_this


def test_a_window_over_the_incremental_batch_is_named_for_the_columns_it_computes() -> None:
    raw = """
    select id, sum(cents) over (partition by company order by ts rows unbounded preceding) as running_cents,
        row_number() over (partition by company order by ts) = 1 as is_first
    from {{ ref('x') }}
    {% if is_incremental() %} where file not in (select file from {{ this }}) {% endif %}
    """
    sql = model_sql(node(raw, unique_key="id"))
    assert sql.window_columns == ("running_cents", "is_first")
    changed = keyed(surplus_left=1, surplus_right=1, keys_changed=1, changed_columns={"running_cents": 1})
    assert hint_for(changed, "convergence", CONVERGENCE, sql) == WINDOW_OVER_BATCH.format(columns="running_cents")
    # a column no window computes (a dedupe's winner): not the window's doing
    other = keyed(surplus_left=1, surplus_right=1, keys_changed=1, changed_columns={"amount": 1})
    assert hint_for(other, "convergence", CONVERGENCE, sql) == UPDATES_MISSED
    # only in a model with an is_incremental() filter
    table = model_sql(node(raw.replace("is_incremental()", "false")))
    assert not table.window_over_batch
    assert hint_for(changed, "convergence", CONVERGENCE, table) == UPDATES_MISSED


def test_a_wall_clock_filter_is_named_not_blamed_on_late_data() -> None:
    raw = """
    select * from {{ ref('x') }}
    {% if is_incremental() %}
    where
        event_time >= current_date - interval '3 days'
    {% endif %}
    """
    sql = model_sql(node(raw, unique_key="id"))
    assert sql.wall_clock_filter == ("current_date",)
    removed = keyed(surplus_left=2, keys_removed=2)
    assert hint_for(removed, "convergence", CONVERGENCE, sql) == WALL_CLOCK.format(functions="current_date")
    # a build-time value in the select list is not a filter
    stamped = model_sql(node("select id, current_timestamp as loaded_at from {{ ref('x') }} where id > 0"))
    assert stamped.wall_clock_filter == ()
    assert hint_for(removed, "convergence", CONVERGENCE, stamped) == DROPPED_LATE


def test_microbatch_names_its_lookback() -> None:
    sql = model_sql(node("select * from {{ ref('x') }}", incremental_strategy="microbatch", lookback=2))
    removed = keyed(surplus_left=3, keys_removed=3)
    hint = hint_for(removed, "convergence", CONVERGENCE, sql)
    assert hint == MICROBATCH_LOOKBACK.format(lookback=2) and "lookback 2" in hint
    default = model_sql(node("select 1", incremental_strategy="microbatch"))
    assert default.lookback == 1 and "lookback 1" in hint_for(removed, "convergence", CONVERGENCE, default)


def test_a_key_declared_to_repeat_is_never_blamed_on_the_grain() -> None:
    meta = {"rerun_safe": {"unique_key_repeats": True}}
    sql = model_sql(node("select * from {{ ref('x') }}", unique_key="day", meta=meta))
    assert sql.unique_key_repeats
    partition = TableDiff(table="main.m", key=("day",), surplus_left=2, duplicate_keys_left=2, duplicate_keys_right=2)
    assert hint_for(partition, "convergence", CONVERGENCE, sql) == KEY_REPEATS_PARTITION
    assert hint_for(partition, "convergence", CONVERGENCE, ModelSql(unique_key=True)) == DUPLICATE_KEY


def test_an_updated_key_appended_without_unique_key_is_named() -> None:
    appended = keyed(surplus_right=3, keys_changed=3, duplicate_keys_right=3)
    no_key = model_sql(node("select * from {{ ref('x') }}", incremental_strategy="append"))
    assert not no_key.unique_key
    assert hint_for(appended, "convergence", CONVERGENCE, no_key) == NO_UNIQUE_KEY
    assert hint_for(appended, "convergence", CONVERGENCE, ModelSql(unique_key=True)) == DUPLICATE_KEY


def test_a_merge_key_with_a_null_column_is_named() -> None:
    doubled = TableDiff(
        table="main.m",
        key=("id", "code"),
        surplus_right=8,
        duplicated_groups=8,
        duplicate_keys_right=8,
        null_key_duplicates_right=8,
    )
    assert hint_for(doubled, "idempotency", RERUN, ModelSql(unique_key=True)) == NULLABLE_KEY.format(keys=8)
    doubled.null_key_duplicates_right = 0
    assert hint_for(doubled, "idempotency", RERUN, ModelSql(unique_key=True)) == APPEND_DUPLICATES


def test_determinism_always_names_row_order_unless_the_sql_stamps_the_build() -> None:
    diff = TableDiff(table="main.m", surplus_left=1, surplus_right=1)
    assert hint_for(diff, "determinism", "reversed", ModelSql()) == ROW_ORDER
    assert "tie in an ORDER BY" in ROW_ORDER and "any_value" in ROW_ORDER and "limit" in ROW_ORDER
    stamped = keyed(surplus_left=1, surplus_right=1, keys_changed=1, changed_columns={"at": 1})
    assert hint_for(stamped, "determinism", "reversed", ModelSql(build_time=("now()",))).startswith("volatile")


def test_no_rule_no_guess() -> None:
    odd = TableDiff(table="main.m", surplus_left=1, surplus_right=1)
    assert hint_for(odd, "idempotency", RERUN, ModelSql()).startswith("no known cause")


def test_a_changed_value_found_in_the_input_is_no_build_stamp(tmp_path) -> None:
    from harness.hints import in_delivery_files

    delivery = tmp_path / "2026-11-01_a.csv"
    delivery.write_text("id,amount\n1,4550\n")
    in_input = in_delivery_files([delivery])
    assert in_input("4550") and not in_input("2026-12-07 04:24:50.476449+00")
    import duckdb

    parquet = tmp_path / "2026-11-02_a.parquet"
    duckdb.sql(f"copy (select 2 as id, 'x7720y' as note) to '{parquet}' (format parquet)")
    assert in_delivery_files([parquet])("7720") and not in_delivery_files([parquet])("4550")
    stamped = ModelSql(build_time=("now()",))
    from_input = keyed(**COLUMNS_ONLY, changed_values={"balance_cents": ("4550",)})
    hint = hint_for(from_input, "idempotency", RERUN, stamped, in_input)
    assert "volatile_columns" not in hint and hint.startswith("no known cause")
    stamp = keyed(**COLUMNS_ONLY, changed_values={"balance_cents": ("2026-12-07 04:24:50.476449+00",)})
    assert hint_for(stamp, "idempotency", RERUN, stamped, in_input).startswith("volatile")
