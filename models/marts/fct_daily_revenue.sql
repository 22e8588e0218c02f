{#- Revenue by (company_id, revenue_date, currency), replaced by whole revenue_date partitions.
    A run replaces every day that any copy of a changed event touches: the day a moved event
    left, the day it moved to, the days a correction applied late rows to. A day left with no
    contributing event comes out as one marker row (event_count = 0) that only empties the
    partition (partition_keep_rows). -#}
{{
    config(
        incremental_strategy='insert_overwrite',
        partition_by='revenue_date',
        indexes=rerun_safe.postgres_only_indexes([
            {'columns': ['revenue_date']},
        ]),
        partition_keep_rows='event_count > 0',
        post_hook=[
            "{{ rerun_safe.log_model_run(all_rows=rerun_safe.money_metrics({'days': ('count distinct', 'revenue_date')})) }}",
            "{{ rerun_safe.assert_net_matches_current_copies(ref('int_event_copies_classified')) }}",
        ],
    )
}}

with

copies as {{ rerun_safe.inline_cte() }} (
    select * from {{ ref('int_event_copies_classified') }}
),

changed_copies as (
    {{ rerun_safe.written_since_last_commit_sql(ref('int_event_copies_classified')) }}
),

affected_days as (
    select distinct changed_copies.revenue_date
    from changed_copies
),

contributing as (
    {#- The affected days, as literals: the read skips the other days' row groups. #}
    {%- set on_affected_days = 'true' if not is_incremental() else rerun_safe.literal_in(
        'copies.revenue_date', rerun_safe.days_written_since_last_commit_sql(),
    ) %}
    select copies.*
    from copies
    where
        copies.copy_status = 'current'
        and {{ on_affected_days }}
),

totals as (
    select
        contributing.company_id,
        contributing.revenue_date,
        contributing.currency,
        {{ rerun_safe.gross_and_refunded('contributing') }},
        count(*) as event_count
    from contributing
    group by contributing.company_id, contributing.revenue_date, contributing.currency
),

emptied_days as (
    select
        cast(null as {{ rerun_safe.text_type() }}) as company_id,
        affected_days.revenue_date,
        cast(null as {{ rerun_safe.text_type() }}) as currency,
        cast(0 as bigint) as gross_cents,
        cast(0 as bigint) as refunded_cents,
        cast(0 as bigint) as event_count
    from affected_days
    where affected_days.revenue_date not in (select totals.revenue_date from totals)
),

final as (
    select
        day_rows.company_id,
        day_rows.revenue_date,
        day_rows.currency,
        day_rows.gross_cents,
        day_rows.refunded_cents,
        day_rows.event_count,
        day_rows.gross_cents - day_rows.refunded_cents as net_cents
    from (
        select * from totals
        union all
        select * from emptied_days
    ) as day_rows
    {%- if not is_incremental() %}
    where day_rows.event_count > 0
    {%- endif %}
)

select * from final
