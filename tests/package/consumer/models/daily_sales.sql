{#- Sales per day, replaced by whole days (insert_overwrite on order_date): a run rewrites
    every day that an order changed since the last run touched, the day it left included. A
    day left with no order comes out as a marker row (order_count = 0) that only empties the
    partition: partition_keep_rows keeps it out of the table. -#}
{{
    config(
        incremental_strategy='insert_overwrite',
        partition_by='order_date',
        partition_keep_rows='order_count > 0',
        post_hook=[
            "{{ rerun_safe.log_model_run(all_rows={'days': ('count', '*')}) }}",
            "{{ rerun_safe.assert_balance(
                left=(this, 'coalesce(sum(total_cents), 0)'),
                right=(ref('stg_order_events'), 'coalesce(sum(amount_cents), 0)'),
                message='daily_sales adds up to the orders',
            ) }}",
        ],
    )
}}

{#- Every day an order changed to or from since this model last ran: a changed order's earlier
    versions are still in the raw table. -#}
{%- set changed_days_sql %}
    select distinct raw.order_date
    from {{ ref('raw_order_events') }} as raw
    {%- if is_incremental() %}
    where raw.order_id in (
        select changed.order_id
        from {{ ref('raw_order_events') }} as changed
        where changed.updated_at > (
            select coalesce(max(seen.orders_seen_until), cast('1900-01-01' as timestamp)) from {{ this }} as seen
        )
    )
    {%- endif %}
{%- endset %}

with

changed_days as (
    {{ changed_days_sql }}
),

totals as (
    select
        orders.order_date,
        count(*) as order_count,
        sum(orders.amount_cents) as total_cents
    from {{ ref('stg_order_events') }} as orders
    {%- if is_incremental() %}
    {#- the changed days as literals (the package's pruning helper): the scan skips the rest #}
    where {{ rerun_safe.literal_in('orders.order_date', changed_days_sql) }}
    {%- endif %}
    group by orders.order_date
),

emptied_days as (
    select
        changed_days.order_date,
        0 as order_count,
        0 as total_cents
    from changed_days
    where changed_days.order_date not in (select totals.order_date from totals)
)

select
    days.order_date,
    days.order_count,
    cast(days.total_cents as bigint) as total_cents,
    (select max(raw.updated_at) from {{ ref('raw_order_events') }} as raw) as orders_seen_until
from (
    select * from totals
    union all
    select * from emptied_days
) as days
