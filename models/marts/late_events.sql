{#- The correction queue: one row per late copy (lateness beyond allowed_lateness_hours), with
    its lateness and the run that first saw it. `waiting` rows change no business table;
    a correction that covers one marks it `applied` (applied_by_correction_id) and the business
    tables take it in the same run.

    Incremental: the late rows of every event whose copies were rewritten are replaced whole
    (replace_keys on event_key, limited to the days of its copies, which is where its old late
    rows lie). Every rewritten copy comes in; only the late ones are kept
    (partition_keep_rows), so a copy that stopped being late (an earlier duplicate of it
    landed) leaves the queue. -#}
{{
    config(
        incremental_strategy='replace_keys',
        unique_key='event_key',
        indexes=rerun_safe.postgres_only_indexes([
            {'columns': ['event_key']},
        ]),
        partition_by='revenue_date',
        partition_keep_rows='status is not null',
        meta={'rerun_safe': {'volatile_columns': ['first_seen_run_seq'], 'unique_key_repeats': true, 'layout_order': ['revenue_date', 'event_key']}},
        post_hook=[
            "{{ rerun_safe.log_model_run(
                all_rows={
                    'waiting': ('count', '*', \"status = 'waiting'\"),
                    'applied': ('count', '*', \"status = 'applied'\"),
                },
            ) }}",
        ],
    )
}}

with

changed_copies as (
    {{ rerun_safe.written_since_last_commit_sql(ref('int_event_copies_classified')) }}
),

late_copies as (
    select changed_copies.*
    from changed_copies
    {%- if not is_incremental() %}
    where changed_copies.is_late
    {%- endif %}
),

final as (
    select
        late_copies.copy_id as late_event_id,
        late_copies.event_id,
        late_copies.event_key,
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
        case
            when not late_copies.is_late then null
            when late_copies.is_applicable then 'applied'
            else 'waiting'
        end as status
    from late_copies
)

select * from final
{#- Written in day order, so that the delete of replace_keys skips the other days. #}
order by revenue_date, event_key
