{#- One row per order item with at least one contributing event. Incremental: every item that
    any copy of a changed event touches is recomputed from its contributing events and
    replaced on item_key (strategy replace_keys: delete the affected items, insert those with
    an event left, in one transaction), item_key being the 128-bit hash of (company_id,
    order_item_id): the composite key, at a fraction of the cost of probing two text columns.
    An item left with no contributing event (its event moved away, or became a conflict) comes
    out with event_count = 0: its old row is deleted and partition_keep_rows keeps the marker
    out. The contributing copies are found by a probe of the item_key column alone
    (narrow_probe_filter); the other columns are read for the matches only. replace_keys gives
    the same rows as a merge on item_key, and on DuckDB 2.0 runs about 5x faster than its MERGE
    statement (2.0 s vs 0.43 s for 193k items into 6.2M).

    On Spark only (no DELETE: keyed rows are replaced by rewriting whole partitions), the table
    has one more column, first_event_date (the day of the item's first contributing event),
    and is partitioned by it, so a run rewrites the days of the items it touches, not the whole
    table. An item's first event day changes when an earlier event arrives or its first event
    moves away, so the days its old row lies on are rewritten too
    (partition_of_key_may_change). -#}
{{
    config(
        incremental_strategy='replace_keys',
        unique_key='item_key',
        partition_keep_rows='event_count > 0',
        partition_by=rerun_safe.spark_only_partition_by('first_event_date'),
        partition_of_key_may_change=true,
        post_hook=[
            "{{ rerun_safe.log_model_run(rerun_safe.money_metrics({'items': 'select count(*) from ' ~ this})) }}",
            "{{ rerun_safe.assert_net_matches_current_copies(ref('int_event_copies_classified')) }}",
        ],
    )
}}

with

changed_copies as (
    {{ rerun_safe.written_since_last_commit_sql(ref('int_event_copies_classified')) }}
),

affected_items as (
    select distinct
        changed_copies.item_key,
        changed_copies.company_id,
        changed_copies.order_item_id
    from changed_copies
),

contributing as (
    {%- set copies = ref('int_event_copies_classified') %}
    {%- set current = "copies.copy_status = 'current'" %}
    {%- set current_copies_of_affected_items = current if not is_incremental() else rerun_safe.narrow_probe_filter(
        copies, 'copies',
        "copies.copy_status = 'current' and copies.item_key in (select changed.item_key from "
        ~ copies ~ ' as changed where ' ~ rerun_safe.written_since_last_commit_filter('changed') ~ ')',
    ) %}
    select copies.*
    from {{ copies }} as copies
    where {{ current_copies_of_affected_items }}
),

totals as (
    select
        contributing.company_id,
        contributing.order_item_id,
        {{ rerun_safe.gross_and_refunded('contributing') }},
        count(*) as event_count,
        min(contributing.event_time) as first_event_time,
        max(contributing.event_time) as last_event_time
    from contributing
    group by contributing.company_id, contributing.order_item_id
),

latest_event as (
    {{ rerun_safe.first_by_key(
        'contributing',
        ['company_id', 'order_item_id'],
        ['event_time desc', 'event_id desc'],
        ['order_id', 'currency'],
    ) }}
),

{# item_key last: the contract's columns come first. #}
final as (
    select  -- noqa: ST06
        affected_items.company_id,
        affected_items.order_item_id,
        latest_event.order_id,
        latest_event.currency,
        totals.first_event_time,
        totals.last_event_time,
        coalesce(totals.gross_cents, 0) as gross_cents,
        coalesce(totals.refunded_cents, 0) as refunded_cents,
        coalesce(totals.gross_cents, 0) - coalesce(totals.refunded_cents, 0) as net_cents,
        coalesce(totals.event_count, 0) as event_count,
        {{ rerun_safe.spark_only_partition_column('cast(totals.first_event_time as date)', 'first_event_date') }}
        affected_items.item_key
    from affected_items
    left join totals
        on
            affected_items.company_id = totals.company_id
            and affected_items.order_item_id = totals.order_item_id
    left join latest_event
        on
            affected_items.company_id = latest_event.company_id
            and affected_items.order_item_id = latest_event.order_item_id
    {%- if not is_incremental() %}
    where totals.event_count > 0
    {%- endif %}
)

select * from final
