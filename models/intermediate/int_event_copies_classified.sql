{#- One row per copy: the valid landed rows with the same (event_id, version, payload). Each copy
    is classified by the contract's one rule (docs/semantics.md): late or not, applicable or
    not, conflicting, superseded or current. Every business table reads `copy_status =
    'current'`, so they all reconcile.

    Incremental: an event is recomputed whole, from all its staged rows, when new rows of it
    were staged or a new correction covers one of its late copies since this model's last
    committed run; delete+insert on event_key (a 128-bit hash of event_id, see
    macros/portable/surrogate_key.sql) then replaces all its copies at once. A row keeps
    its _changed_run_seq when its content did not change, so a replay changes nothing. -#}
{{
    config(
        incremental_strategy='delete+insert',
        unique_key='event_key',
        meta={'rerun_safe': {'volatile_columns': ['_changed_run_seq', 'first_seen_run_seq'], 'records_deliveries': true}},
        post_hook=[
            "{{ rerun_safe.log_model_run({
                'events_changed': 'select count(distinct event_id) from ' ~ this ~ ' where _changed_run_seq = ' ~ rerun_safe.current_run_seq(),
                'copies_changed': 'select count(*) from ' ~ this ~ ' where _changed_run_seq = ' ~ rerun_safe.current_run_seq(),
                'valid_rows': 'select coalesce(sum(row_count), 0) from ' ~ this,
                'duplicates': 'select coalesce(sum(row_count - 1), 0) from ' ~ this,
                'conflicting': 'select count(*) from ' ~ this ~ ' where copy_status = \\'conflicting\\'',
                'late_waiting': 'select count(*) from ' ~ this ~ ' where copy_status = \\'late_waiting\\'',
                'superseded': 'select count(*) from ' ~ this ~ ' where copy_status = \\'superseded\\'',
                'current': 'select count(*) from ' ~ this ~ ' where copy_status = \\'current\\'',
            }) }}",
            "{{ rerun_safe.assert_balance(
                '(select count(*) from ' ~ ref('stg_landing__events') ~ ' where invalid_reason is null) = (select coalesce(sum(row_count), 0) from ' ~ this ~ ')',
                'valid staged rows != rows in copies (a landed row was lost or counted twice)'
            ) }}",
        ],
    )
}}

with

staged as {{ rerun_safe.inline_cte() }} (
    select * from {{ ref('stg_landing__events') }}
    where invalid_reason is null
),

corrections as {{ rerun_safe.inline_cte() }} (
    select * from {{ ref('int_corrections_recorded') }}
),

rows_in_scope as (
    select staged.*
    from staged
    {%- if is_incremental() %}
    where
        staged.event_key in (
            select new_rows.event_key
            from staged as new_rows
            where new_rows._loaded_run_seq > {{ rerun_safe.last_committed_seq() }}
            union
            select known.event_key
            from {{ this }} as known
            inner join corrections
                on
                    known.revenue_date between corrections.correct_from and corrections.correct_to
                    and known.ingested_at <= corrections.mark
            where
                corrections.recorded_run_seq > {{ rerun_safe.last_committed_seq() }}
                and known.copy_status = 'late_waiting'
        )
    {%- endif %}
),

rows_counted as (
    select
        rows_in_scope.*,
        count(*) over (
            partition by rows_in_scope.event_id, rows_in_scope.version, rows_in_scope.payload_hash
        ) as row_count,
        min(rows_in_scope._loaded_run_seq) over (
            partition by rows_in_scope.event_id, rows_in_scope.version, rows_in_scope.payload_hash
        ) as first_seen_run_seq
    from rows_in_scope
),

copies as (
    {#- The copy is represented by its earliest row: its ingested_at is the copy's arrival. -#}
    {{ rerun_safe.dedupe_by_key(
        'rows_counted',
        ['event_id', 'version', 'payload_hash'],
        ['ingested_at', 'source_file', 'source_line'],
    ) }}
),

lateness as (
    select
        copies.*,
        cast(copies.event_time as date) as revenue_date,
        {{ rerun_safe.seconds_between('copies.event_time', 'copies.ingested_at') }} as lateness_seconds
    from copies
),

covering_corrections as (
    select
        lateness.event_id,
        lateness.version,
        lateness.payload_hash,
        corrections.correction_id,
        corrections.recorded_run_seq
    from lateness
    inner join corrections
        on
            lateness.revenue_date between corrections.correct_from and corrections.correct_to
            and lateness.ingested_at <= corrections.mark
),

first_covering_correction as (
    {{ rerun_safe.dedupe_by_key(
        'covering_corrections',
        ['event_id', 'version', 'payload_hash'],
        ['recorded_run_seq', 'correction_id'],
    ) }}
),

applicability as (
    select
        lateness.*,
        lateness.lateness_seconds > {{ var('allowed_lateness_hours') | int }} * 3600 as is_late,
        case
            when lateness.lateness_seconds > {{ var('allowed_lateness_hours') | int }} * 3600
                then first_covering_correction.correction_id
        end as applied_by_correction_id
    from lateness
    left join first_covering_correction
        on
            lateness.event_id = first_covering_correction.event_id
            and lateness.version = first_covering_correction.version
            and lateness.payload_hash = first_covering_correction.payload_hash
),

versions as (
    select
        applicability.*,
        (not applicability.is_late or applicability.applied_by_correction_id is not null) as is_applicable
    from applicability
),

version_ranks as (
    select
        versions.*,
        max(case when versions.is_applicable then versions.version end)
            over (partition by versions.event_id) as current_version,
        sum(case when versions.is_applicable then 1 else 0 end)
            over (partition by versions.event_id, versions.version) as applicable_copies_of_version
    from versions
),

classified as (
    select
        {{ rerun_safe.stable_hash(['version_ranks.event_id', 'version_ranks.version', 'version_ranks.payload_hash']) }}
            as copy_id,
        version_ranks.event_id,
        version_ranks.event_key,
        version_ranks.version,
        version_ranks.payload_hash,
        version_ranks.event_type,
        version_ranks.company_id,
        version_ranks.order_id,
        version_ranks.order_item_id,
        {{ rerun_safe.surrogate_key(['version_ranks.company_id', 'version_ranks.order_item_id']) }} as item_key,
        version_ranks.amount_cents,
        version_ranks.currency,
        version_ranks.event_time,
        version_ranks.ingested_at,
        version_ranks.revenue_date,
        case
            when version_ranks.event_type = 'refund' then -version_ranks.amount_cents
            else version_ranks.amount_cents
        end as signed_amount_cents,
        version_ranks.lateness_seconds,
        version_ranks.is_late,
        version_ranks.is_applicable,
        version_ranks.applied_by_correction_id,
        case
            when version_ranks.is_applicable and version_ranks.applicable_copies_of_version > 1 then 'conflicting'
            when not version_ranks.is_applicable then 'late_waiting'
            when version_ranks.version < version_ranks.current_version then 'superseded'
            else 'current'
        end as copy_status,
        version_ranks.row_count,
        version_ranks.source_file,
        version_ranks.source_line,
        version_ranks.first_seen_run_seq
    from version_ranks
),

hashed as (
    select
        classified.*,
        {{ rerun_safe.stable_hash([
            'classified.copy_status', 'classified.applied_by_correction_id', 'classified.row_count',
            'classified.ingested_at', 'classified.source_file', 'classified.source_line',
        ]) }} as _content_hash
    from classified
),

previous as (
    {#- The copies' state before this run, to keep the stamp of a copy that did not change. -#}
    {%- if is_incremental() %}
    select
        known.copy_id,
        known._content_hash,
        known._changed_run_seq
    from {{ this }} as known
    where known.event_key in (select distinct hashed.event_key from hashed)
    {%- else %}
    select
        cast(null as varchar) as copy_id,
        cast(null as varchar) as _content_hash,
        cast(null as bigint) as _changed_run_seq
    where false
    {%- endif %}
),

final as (
    select
        hashed.*,
        case
            when previous._content_hash = hashed._content_hash then previous._changed_run_seq
            else {{ rerun_safe.current_run_seq() }}
        end as _changed_run_seq
    from hashed
    left join previous
        on hashed.copy_id = previous.copy_id
)

select * from final
