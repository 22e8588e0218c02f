{#- One row per order item with at least one contributing event. Incremental: every item that
    any copy of a changed event touches is recomputed from its contributing events and
    replaced on item_key (strategy replace_keys: delete the affected items, insert those with
    an event left, in one transaction), item_key being the 128-bit hash of (company_id,
    order_item_id): the composite key, at a fraction of the cost of probing two text columns.
    An item left with no contributing event (its event moved away, or became a conflict) comes
    out with event_count = 0: its old row is deleted and partition_keep_rows keeps the marker
    out. Rows are grouped on item_key, so the two text key columns are never read from the
    history. The contributing copies are found by a probe of the item_key column alone
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
        indexes=rerun_safe.postgres_only_indexes([
            {'columns': ['item_key']},
        ]),
        partition_keep_rows='event_count > 0',
        partition_by=rerun_safe.spark_only_partition_by('first_event_date'),
        partition_of_key_may_change=true,
        post_hook=[
            "{{ rerun_safe.log_model_run(all_rows=rerun_safe.money_metrics({'items': ('count', '*')})) }}",
            "{{ rerun_safe.assert_net_matches_current_copies(ref('int_event_copies_classified')) }}",
        ],
    )
}}

{%- set copies = ref('int_event_copies_classified') %}
{%- set incremental = is_incremental() %}
{%- set current %}
    copies.copy_status = 'current'
{%- endset %}
{%- set unchanged_of_affected_items %}
        copies.copy_status = 'current'
        and not ({{ rerun_safe.written_since_last_commit_filter('copies') }})
        and copies.item_key in (
            select changed.item_key
            from {{ copies }} as changed
            where {{ rerun_safe.written_since_last_commit_filter('changed') }}
        )
{%- endset %}
{%- set at_latest_event_time %}
    inner join totals
        on
            copies.item_key = totals.item_key
            and copies.event_time = totals.last_event_time
{%- endset %}
{%- set unchanged_at_latest_event_time %}
        copies.copy_status = 'current'
        and not ({{ rerun_safe.written_since_last_commit_filter('copies') }})
        and copies.item_key in (select totals.item_key from totals)
        and copies.event_time in (select totals.last_event_time from totals)
{%- endset %}
with

changed_copies as (
    {{ rerun_safe.written_since_last_commit_sql(copies) }}
),

affected_items as (
    select distinct
        changed_copies.item_key,
        changed_copies.company_id,
        changed_copies.order_item_id
    from changed_copies
),

{#- Incremental: an affected item's contributing copies are its current changed copies (all
    columns at hand, in the table's newest row groups) and its current copies not written
    since the last commit, spread over the whole history. Of those old copies the narrow
    columns are read for all (totals), the wide text columns (event_id, order_id, currency)
    only for the ones that can be the latest event, those at the item's greatest event_time:
    reading text columns of rows spread over every row group costs per row group, so this
    keeps that cost to a few thousand rows (at 10M: 228k contributing copies, 28k of them
    old, 3.6k of those at their item's last event_time; the model's main query 0.80 s ->
    0.48 s, docs/decisions/2026-12-07-bench-incremental-cost.md). #}

contributing as (
    {%- if incremental %}
    select
        changed_copies.item_key,
        changed_copies.event_type,
        changed_copies.amount_cents,
        changed_copies.event_time
    from changed_copies
    where changed_copies.copy_status = 'current'
    union all
    {%- endif %}
    select
        copies.item_key,
        copies.event_type,
        copies.amount_cents,
        copies.event_time
    from {{ copies }} as copies
    where {{ rerun_safe.narrow_probe_filter(
        copies, 'copies', unchanged_of_affected_items,
    ) if incremental else current }}
),

totals as (
    select
        contributing.item_key,
        {{ rerun_safe.gross_and_refunded('contributing') }},
        count(*) as event_count,
        min(contributing.event_time) as first_event_time,
        max(contributing.event_time) as last_event_time
    from contributing
    group by contributing.item_key
),

{#- The copies that can be an item's latest contributing event: on a full build all current
    copies; incremental, the current changed copies and the unchanged ones at the item's
    greatest event_time (found by a probe on item_key and event_time, then matched exactly). #}

latest_candidates as (
    {%- if incremental %}
    select
        changed_copies.item_key,
        changed_copies.event_time,
        changed_copies.event_id,
        changed_copies.order_id,
        changed_copies.currency
    from changed_copies
    where changed_copies.copy_status = 'current'
    union all
    {%- endif %}
    select
        copies.item_key,
        copies.event_time,
        copies.event_id,
        copies.order_id,
        copies.currency
    from {{ copies }} as copies
    {{ at_latest_event_time if incremental }}
    where {{ rerun_safe.narrow_probe_filter(
        copies, 'copies', unchanged_at_latest_event_time,
    ) if incremental else current }}
),

latest_event as (
    {{ rerun_safe.first_by_key(
        'latest_candidates',
        ['item_key'],
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
        on affected_items.item_key = totals.item_key
    left join latest_event
        on affected_items.item_key = latest_event.item_key
    {%- if not incremental %}
    where totals.event_count > 0
    {%- endif %}
)

select * from final
