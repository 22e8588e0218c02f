{#- One row per rejected landed row, with the reason, the file and line it came from and its
    raw values: invalid rows (reason from staging validation) and every row of a conflicting
    version (`conflicting_version`). Nothing is dropped silently; the row count of this table
    is part of the balance (docs/semantics.md).

    On Spark only (no MERGE on parquet: keyed rows are replaced by rewriting whole partitions),
    the table has one more column, loaded_run_seq (the run that staged the row; an invalid row
    may have no valid ingestion time, so it cannot be the ingestion day), and is partitioned by
    it, so a run rewrites the runs its rejected rows were staged by, not the whole table. A
    restaged row (staging rebuilt alone) comes back with a new run, so the partitions of the
    keys' old rows are rewritten too (partition_of_key_may_change). -#}
{{
    config(
        incremental_strategy='merge',
        unique_key='quarantine_id',
        indexes=rerun_safe.postgres_only_indexes([
            {'columns': ['quarantine_id']},
        ]),
        partition_by=rerun_safe.spark_only_partition_by('loaded_run_seq'),
        partition_of_key_may_change=true,
        meta={'rerun_safe': {'volatile_columns': ['quarantined_run_seq'], 'records_deliveries': true}},
        post_hook=[
            "{{ rerun_safe.log_model_run(
                this_run={'quarantined_run_seq': {'quarantined_this_run': ('count', '*')}},
                all_rows={'quarantined_total': ('count', '*')},
            ) }}",
        ],
    )
}}

with

staged as {{ rerun_safe.inline_cte() }} (
    select * from {{ ref('stg_landing__events') }}
),

copies as {{ rerun_safe.inline_cte() }} (
    select * from {{ ref('int_event_copies_classified') }}
),

invalid_rows as (
    select
        staged.*,
        staged.invalid_reason as reason
    from staged
    where
        staged.invalid_reason is not null
        and staged._loaded_run_seq > {{ rerun_safe.last_committed_seq() if is_incremental() else 0 }}
),

conflicting_versions as (
    select distinct
        copies.event_key,
        copies.version
    from copies
    where
        copies.copy_status = 'conflicting'
        and copies._changed_run_seq > {{ rerun_safe.last_committed_seq() if is_incremental() else 0 }}
),

conflicting_rows as (
    select
        candidates.*,
        'conflicting_version' as reason
    from (
        {#- The rows of a copy were ingested between its first and last ingested_at. Those
            days, as literal ranges, let the key probe skip the rest of the staged history
            (stored in landing order). All copies of a changed event were just written. #}
        {%- set since = rerun_safe.last_committed_seq() if is_incremental() else 0 %}
        {%- set copies = ref('int_event_copies_classified') %}
        {%- set conflicting_ingestion_days %}
            select distinct
                cast(cast(c.ingested_at as date) as timestamp),
                cast(cast(c.last_ingested_at as date) + 1 as timestamp)
            from {{ copies }} as c
            where
                c._written_run_seq > {{ since }}
                and exists (
                    select 1 from {{ copies }} as k
                    where
                        k._changed_run_seq > {{ since }}
                        and k.copy_status = 'conflicting'
                        and k.event_key = c.event_key
                        and k.version = c.version
                )
        {%- endset %}
        {%- set of_conflicting_events %}
            {{ 'true' if not is_incremental() else rerun_safe.literal_ranges(
                'landed_rows.ingested_at', conflicting_ingestion_days,
            ) }}
            and landed_rows.invalid_reason is null
            and landed_rows.event_key in (select conflicting_versions.event_key from conflicting_versions)
        {%- endset %}
        select landed_rows.*
        from {{ ref('stg_landing__events') }} as landed_rows
        where {{ rerun_safe.narrow_probe_filter(ref('stg_landing__events'), 'landed_rows', of_conflicting_events) }}
    ) as candidates
    inner join conflicting_versions
        on
            candidates.event_key = conflicting_versions.event_key
            and candidates.version = conflicting_versions.version
),

rejected as (
    select * from invalid_rows
    union all
    select * from conflicting_rows
),

final as (
    select
        rejected._row_id as quarantine_id,
        rejected.reason,
        reasons.description as reason_description,
        rejected.source_file,
        rejected.source_line,
        rejected.event_id,
        rejected.event_type,
        rejected.company_id,
        rejected.order_id,
        rejected.order_item_id,
        rejected.raw_amount_cents as amount_cents,
        rejected.currency,
        rejected.raw_event_time as event_time,
        rejected.raw_ingested_at as ingested_at,
        rejected.raw_version as version,
        {{ rerun_safe.spark_only_partition_column('rejected._loaded_run_seq', 'loaded_run_seq') }}
        {{ rerun_safe.current_run_seq() }} as quarantined_run_seq
    from rejected
    left join {{ ref('quarantine_reasons') }} as reasons on rejected.reason = reasons.reason
)

select * from final
