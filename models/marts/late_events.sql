{#- The correction queue: one row per late copy (lateness beyond allowed_lateness_hours), with
    its lateness and the run that first saw it. `waiting` rows change no business table;
    a correction that covers one marks it `applied` (applied_by_correction_id) and the business
    tables take it in the same run. -#}
{{
    config(
        incremental_strategy='merge',
        unique_key='late_event_id',
        meta={'rerun_safe': {'volatile_columns': ['first_seen_run_seq']}},
        post_hook=[
            "{{ rerun_safe.log_model_run({
                'waiting': 'select count(*) from ' ~ this ~ ' where status = \\'waiting\\'',
                'applied': 'select count(*) from ' ~ this ~ ' where status = \\'applied\\'',
            }) }}",
        ],
    )
}}

with

changed_copies as (
    {{ rerun_safe.changed_copies_sql(ref('int_event_copies_classified')) }}
),

late_copies as (
    select changed_copies.*
    from changed_copies
    where changed_copies.is_late
),

final as (
    select
        late_copies.copy_id as late_event_id,
        late_copies.event_id,
        late_copies.version,
        late_copies.event_type,
        late_copies.company_id,
        late_copies.order_id,
        late_copies.order_item_id,
        late_copies.amount_cents,
        late_copies.currency,
        late_copies.event_time,
        late_copies.ingested_at,
        late_copies.revenue_date,
        late_copies.lateness_seconds,
        cast(round(late_copies.lateness_seconds / 3600.0, 2) as decimal(12, 2)) as lateness_hours,
        late_copies.applied_by_correction_id,
        late_copies.first_seen_run_seq,
        late_copies.source_file,
        late_copies.source_line,
        case when late_copies.is_applicable then 'applied' else 'waiting' end as status
    from late_copies
)

select * from final
