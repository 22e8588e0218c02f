{#- One row per copy: the valid landed rows with the same (event_id, version, payload). Each copy
    is classified by the contract's one rule (docs/semantics.md): late or not, applicable or
    not, conflicting, superseded or current. Every business table reads `copy_status =
    'current'`, so they all reconcile.

    Incremental, at the cost of the batch (docs/architecture.md, "Incremental cost"): the
    touched events are those with rows staged since this model last committed, plus those with
    a late copy that a new correction covers. Their old copies are already an exact summary of
    their old rows (row count, earliest row, first run), so the new state is the old copies
    folded together with the new rows; staging history is never re-read. The old copies are
    found by a probe of the key column alone (narrow_probe_filter), the other columns are read for
    the matches only. replace_keys then swaps all copies of the touched events at once, its
    delete limited to the days of the new copies (the table is written in revenue_date
    order). A row keeps its _changed_run_seq when its content did not change, so a replay
    changes nothing: the old copy's _content_hash and _changed_run_seq ride through the fold
    as previous_* columns (a copy has at most one old copy), so old_copies is read once and
    never joined back. That join, sorted with the copies, did not spill: a large batch (a
    backfill of as many events as the history) ran out of memory (docs/benchmarks.md).
    _written_run_seq marks every row written, so downstream models find all copies of the
    changed events without a key probe. -#}
{{
    config(
        incremental_strategy='replace_keys',
        unique_key='event_key',
        partition_by='revenue_date',
        indexes=rerun_safe.postgres_only_indexes([
            {'columns': ['event_key']},
            {'columns': ['_written_run_seq']},
            {'columns': ['_changed_run_seq']},
            {'columns': ['item_key']},
            {'columns': ['revenue_date']},
        ]),
        meta={'rerun_safe': {'volatile_columns': ['_changed_run_seq', '_written_run_seq', 'first_seen_run_seq'], 'records_deliveries': true, 'unique_key_repeats': true, 'layout_order': ['revenue_date', 'event_key']}},
        post_hook=[
            "{{ rerun_safe.log_model_run(
                this_run={
                    '_changed_run_seq': {
                        'events_changed': ('count distinct', 'event_id'),
                        'copies_changed': ('count', '*'),
                    },
                    '_written_run_seq': {
                        'copies_written': ('count', '*'),
                        'conflicting_written': ('count', '*', \"copy_status = 'conflicting'\"),
                        'late_waiting_written': ('count', '*', \"copy_status = 'late_waiting'\"),
                    },
                },
            ) }}",
            "{{ rerun_safe.assert_balance(
                left=(ref('stg_landing__events'), 'count(*)', 'invalid_reason is null'),
                right=(this, 'coalesce(sum(row_count), 0)'),
                message='the warehouse is inconsistent: valid staged rows != rows in copies (stg_landing__events holds a row twice, '
                    ~ 'e.g. a delivery staged by two runs at once, or copies lost one). Repair: ' ~ rerun_safe.staging_repair_command(),
            ) }}",
        ],
    )
}}
{%- set incremental = is_incremental() %}

with

staged as {{ rerun_safe.inline_cte() }} (
    select * from {{ ref('stg_landing__events') }}
    where invalid_reason is null
),

corrections as {{ rerun_safe.inline_cte() }} (
    select * from {{ ref('int_corrections_recorded') }}
),

{% if incremental %}
old_copies as (
    {%- set of_touched_events %}
        known.event_key in ({{ rerun_safe.touched_event_keys_sql() }})
    {%- endset %}
    select known.*
    from {{ this }} as known
    where {{ rerun_safe.narrow_probe_filter(this, 'known', of_touched_events) }}
),
{% endif %}

{# One line per landed row, or per old copy standing for its rows: the unit copies fold. #}
rows_in_scope as (
    {%- set copy_columns = [
        'event_id', 'event_key', 'version', 'payload_hash', 'event_type', 'company_id', 'order_id',
        'order_item_id', 'amount_cents', 'currency', 'event_time', 'ingested_at', 'source_file', 'source_line',
    ] %}
    select
        {%- for column in copy_columns %}
        staged.{{ column }},
        {%- endfor %}
        1 as row_count,
        staged._loaded_run_seq as first_seen_run_seq,
        staged.ingested_at as last_ingested_at,
        cast(null as {{ rerun_safe.text_type() }}) as previous_content_hash,
        cast(null as bigint) as previous_changed_run_seq
    from staged
    {%- if incremental %}
    where staged._loaded_run_seq > {{ rerun_safe.last_committed_seq() }}
    union all
    select
        {%- for column in copy_columns %}
        old_copies.{{ column }},
        {%- endfor %}
        old_copies.row_count,
        old_copies.first_seen_run_seq,
        old_copies.last_ingested_at,
        old_copies._content_hash as previous_content_hash,
        old_copies._changed_run_seq as previous_changed_run_seq
    from old_copies
    {%- endif %}
),

rows_counted as (
    select
        {%- for column in copy_columns %}
        rows_in_scope.{{ column }},
        {%- endfor %}
        cast(sum(rows_in_scope.row_count) over copy_rows as bigint) as row_count,
        min(rows_in_scope.first_seen_run_seq) over copy_rows as first_seen_run_seq,
        max(rows_in_scope.last_ingested_at) over copy_rows as last_ingested_at,
        max(rows_in_scope.previous_content_hash) over copy_rows as previous_content_hash,
        max(rows_in_scope.previous_changed_run_seq) over copy_rows as previous_changed_run_seq
    from rows_in_scope
    window copy_rows as (partition by rows_in_scope.event_id, rows_in_scope.version, rows_in_scope.payload_hash)
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
        lateness.lateness_seconds > {{ rerun_safe.allowed_lateness_hours() }} * 3600 as is_late,
        case
            when lateness.lateness_seconds > {{ rerun_safe.allowed_lateness_hours() }} * 3600
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
        version_ranks.first_seen_run_seq,
        version_ranks.last_ingested_at,
        version_ranks.previous_content_hash,
        version_ranks.previous_changed_run_seq
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

final as (
    {%- set classified_columns = [
        'copy_id', 'event_id', 'event_key', 'version', 'payload_hash', 'event_type', 'company_id', 'order_id',
        'order_item_id', 'item_key', 'amount_cents', 'currency', 'event_time', 'ingested_at', 'revenue_date',
        'signed_amount_cents', 'lateness_seconds', 'is_late', 'is_applicable', 'applied_by_correction_id',
        'copy_status', 'row_count', 'source_file', 'source_line', 'first_seen_run_seq', 'last_ingested_at',
    ] %}
    select
        {%- for column in classified_columns %}
        hashed.{{ column }},
        {%- endfor %}
        hashed._content_hash,
        case
            when hashed.previous_content_hash = hashed._content_hash then hashed.previous_changed_run_seq
            else {{ rerun_safe.current_run_seq() }}
        end as _changed_run_seq
    from hashed
)

select
    final.*,
    {{ rerun_safe.current_run_seq() }} as _written_run_seq
from final
{#- Written in day order, so that filters on revenue_date skip most of the table. #}
order by final.revenue_date, final.event_key
