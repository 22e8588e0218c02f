{#- One row per order item with at least one contributing event. Incremental: every item that
    any copy of a changed event touches is recomputed from its contributing events and merged
    on (company_id, order_item_id); an item left with no contributing event (its event moved
    away, or became a conflict) comes out with event_count = 0 and the merge deletes it. -#}
{{
    config(
        incremental_strategy='merge',
        unique_key=['company_id', 'order_item_id'],
        merge_clauses={
            'when_matched': [
                {'condition': 'DBT_INTERNAL_SOURCE.event_count = 0', 'action': 'delete'},
                {'action': 'update', 'mode': 'by_name'},
            ],
            'when_not_matched': [
                {'condition': 'DBT_INTERNAL_SOURCE.event_count > 0', 'action': 'insert', 'mode': 'by_name'},
            ],
        },
        post_hook=[
            "{{ rerun_safe.log_model_run(rerun_safe.money_metrics({'items': 'select count(*) from ' ~ this})) }}",
            "{{ rerun_safe.assert_net_matches_current_copies(ref('int_event_copies_classified')) }}",
        ],
    )
}}

with

copies as {{ rerun_safe.inline_cte() }} (
    select * from {{ ref('int_event_copies_classified') }}
),

changed_copies as (
    {{ rerun_safe.changed_copies_sql(ref('int_event_copies_classified')) }}
),

affected_items as (
    select distinct
        changed_copies.item_key,
        changed_copies.company_id,
        changed_copies.order_item_id
    from changed_copies
),

contributing as (
    select copies.*
    from copies
    where
        copies.copy_status = 'current'
        {%- if is_incremental() %}
        {#- The days the affected items' current copies lie on: a probe of three narrow
            columns, so that the read of every column below skips the other days. #}
        and {{ rerun_safe.literal_in(
            'copies.revenue_date',
            'select distinct item_copies.revenue_date from ' ~ ref('int_event_copies_classified') ~ ' as item_copies'
            ~ " where item_copies.copy_status = 'current' and item_copies.item_key in (select changed.item_key from "
            ~ ref('int_event_copies_classified') ~ ' as changed where ' ~ rerun_safe.changed_copies_filter('changed') ~ ')',
        ) }}
        and copies.item_key in (select affected_items.item_key from affected_items)
        {%- endif %}
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
    {{ rerun_safe.dedupe_by_key(
        'contributing',
        ['company_id', 'order_item_id'],
        ['event_time desc', 'event_id desc'],
    ) }}
),

final as (
    select
        affected_items.company_id,
        affected_items.order_item_id,
        latest_event.order_id,
        latest_event.currency,
        totals.first_event_time,
        totals.last_event_time,
        coalesce(totals.gross_cents, 0) as gross_cents,
        coalesce(totals.refunded_cents, 0) as refunded_cents,
        coalesce(totals.gross_cents, 0) - coalesce(totals.refunded_cents, 0) as net_cents,
        coalesce(totals.event_count, 0) as event_count
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
