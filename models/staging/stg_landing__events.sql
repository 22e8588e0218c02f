{#- One row per landed record: trimmed, typed, validated. Invalid rows stay here with their
    reason (quarantined_events publishes them), so nothing landed is ever dropped.
    Incremental by delivery: each run reads the accepted deliveries (stg_landing__deliveries)
    present in the landing folder that it has not loaded completely, and inserts the records
    it has not staged yet (keyed on _row_id = delivery and record), so a delivery is never
    staged twice, whatever the source window did before (see docs/architecture.md). A delivery
    whose file changed since its inspection is not loaded (its first two post-hooks,
    macros/pipeline/landing/mark_changed_deliveries.sql). -#}
{%- set files_mode = rerun_safe.source_window() == 'files' -%}
{{
    config(
        incremental_strategy='append',
        unique_key='_row_id',
        indexes=rerun_safe.postgres_only_indexes([
            {'columns': ['_loaded_run_seq']},
            {'columns': ['_file_id']},
            {'columns': ['event_key']},
            {'columns': ['amount_cents']},
        ]),
        meta={'rerun_safe': {'volatile_columns': ['_loaded_run_seq'], 'records_deliveries': true, 'reads_file_layout': true}},
        post_hook=[
            "{{ rerun_safe.mark_changed_deliveries(ref('stg_landing__deliveries')) }}",
            "{{ rerun_safe.drop_rows_of_changed_deliveries(ref('stg_landing__deliveries')) }}",
            "{{ rerun_safe.log_model_run(
                this_run={'_loaded_run_seq': {
                    'files_loaded': ('count distinct', '_file_id'),
                    'first_file': ('min', 'source_file'),
                    'last_file': ('max', 'source_file'),
                    'rows_read': ('count', '*'),
                    'rows_invalid': ('count', '*', 'invalid_reason is not null'),
                }},
                all_rows={'rows_total': ('count', '*')},
            ) }}",
            "{{ rerun_safe.assert_deliveries_conserved(ref('stg_landing__deliveries')) }}",
            "{{ rerun_safe.record_loaded_files(ref('stg_landing__deliveries')) }}",
        ],
    )
}}
{%- set files = rerun_safe.deliveries_to_stage(ref('stg_landing__deliveries'), this) %}

with

landed as (
    {{ rerun_safe.scan_landing_files(files, one_scan=not is_incremental()) }}
),

trimmed as (
    select
        {%- for column in rerun_safe.landing_columns() %}
        {{ rerun_safe.trim_blank('landed.' ~ column) }} as {{ column }},
        {%- endfor %}
        landed._overflow,
        landed._file_id,
        landed._file_name as source_file,
        landed._record_number + 1 as source_line
    from landed
    {#- each trimmed value is used many times by typed and validated (Postgres: compute_once) #}
    {{ rerun_safe.compute_once() }}
),

typed as (
    select
        trimmed.*,
        case
            when {{ rerun_safe.matches_pattern('trimmed.amount_cents', '-?[0-9]+') }}
                then {{ rerun_safe.try_cast_bigint('trimmed.amount_cents') }}
        end as amount_cents_value,
        case
            when {{ rerun_safe.matches_pattern('trimmed.version', '-?[0-9]+') }}
                then {{ rerun_safe.try_cast_bigint('trimmed.version') }}
        end as version_value,
        {#- year 0000 is no calendar year (DuckDB and Spark read it as 1 BC, Postgres refuses it):
            invalid on every engine #}
        case
            when substr(trimmed.event_time, 1, 4) != '0000'
                then {{ rerun_safe.parse_utc_timestamp('trimmed.event_time') }}
        end as event_time_value,
        case
            when substr(trimmed.ingested_at, 1, 4) != '0000'
                then {{ rerun_safe.parse_utc_timestamp('trimmed.ingested_at') }}
        end as ingested_at_value,
        {#- "now" for the clock bound (ingested_in_future): the started_at of the run that first
            saw the row's delivery (rerun_safe_now when that run was given it), which the
            registry and stg_landing__deliveries keep through --full-refresh, so every rebuild
            judges the row as its first run did; this run's, should that run's row be missing #}
        coalesce(
            first_seen_run.started_at,
            (
                select this_run.started_at from {{ rerun_safe.runs_relation() }} as this_run
                where this_run.run_seq = {{ rerun_safe.current_run_seq() }}
            )
        ) as clock_at
    from trimmed
    left join {{ ref('stg_landing__deliveries') }} as delivery
        on trimmed._file_id = delivery.file_id
    left join {{ rerun_safe.runs_relation() }} as first_seen_run
        on delivery.first_seen_run_seq = first_seen_run.run_seq
    {{ rerun_safe.compute_once() }}
),

validated as (
    select
        typed.*,
        case
            when typed._overflow is not null then 'malformed_row'
            when typed.event_id is null then 'missing_event_id'
            when typed.company_id is null then 'missing_company_id'
            when typed.order_item_id is null then 'missing_order_item_id'
            when
                {{ rerun_safe.has_blank_or_control('typed.event_id') }}
                or {{ rerun_safe.has_blank_or_control('typed.company_id') }}
                or {{ rerun_safe.has_blank_or_control('typed.order_id') }}
                or {{ rerun_safe.has_blank_or_control('typed.order_item_id') }}
                then 'invalid_key'
            when typed.event_type is null or typed.event_type not in ('sale', 'refund') then 'unknown_event_type'
            when typed.amount_cents_value is null then 'invalid_amount'
            when typed.amount_cents_value < 0 then 'negative_amount'
            when typed.amount_cents_value > {{ rerun_safe.max_amount_cents() }} then 'amount_out_of_range'
            when
                typed.currency is null or not {{ rerun_safe.matches_pattern('typed.currency', '[A-Z]{3}') }}
                then 'invalid_currency'
            {#- ISO 4217 (seeds/currencies.csv): the right shape, but not an active currency
                counted in minor units (a typo such as EUE, or XXX) #}
            when currencies.currency is null then 'unknown_currency'
            when typed.event_time_value is null then 'invalid_event_time'
            when typed.ingested_at_value is null then 'invalid_ingested_at'
            when
                {{ rerun_safe.seconds_between('typed.clock_at', 'typed.ingested_at_value') }}
                > {{ rerun_safe.max_ingested_ahead_hours() }} * 3600
                then 'ingested_in_future'
            when
                {{ rerun_safe.seconds_between('typed.ingested_at_value', 'typed.event_time_value') }}
                > {{ rerun_safe.max_event_time_ahead_hours() }} * 3600
                then 'event_time_after_ingestion'
            when typed.version_value is null or typed.version_value < 1 then 'invalid_version'
        end as invalid_reason
    from typed
    left join {{ ref('currencies') }} as currencies
        on typed.currency = currencies.currency
    {#- invalid_reason is used by seven columns of final #}
    {{ rerun_safe.compute_once() }}
),

not_staged as (
    {#- a record is staged once: skip those of a partly loaded delivery already staged. A
        delivery's rows can only have been staged by a run that listed it, so since its
        first_seen_run_seq (a full refresh restamps rows with a later seq): a literal, so the
        probe reads only the row groups staged since the oldest of these deliveries was first
        seen (none of the history, for new deliveries), not the file id of every staged row. #}
    select validated.*
    from validated
    {%- if is_incremental() and files %}
    where
        {{ rerun_safe.stable_hash(['validated._file_id', 'validated.source_line']) }} not in (
            select staged._row_id
            from {{ this }} as staged
            where
                staged._loaded_run_seq >= {{ files | map(attribute='first_seen_run_seq') | map('int') | min }}
                and {{ rerun_safe.literal_list('staged._file_id', files | map(attribute='file_id') | list) }}
        )
    {%- endif %}
),

in_window as (
    select not_staged.*
    from not_staged
    {%- if is_incremental() and not files_mode %}
    {#- lookback mode: only rows whose ingestion is within the overlap window of the staged
        high-water mark. Rows of a delivery outside the window wait: the delivery is not
        complete, so `files` mode loads them later. That is the weakness `files` removes. #}
    where
        not_staged.ingested_at_value is null
        or not_staged.ingested_at_value >= (
            select max(staged.ingested_at) - interval '{{ rerun_safe.lookback_hours() }} hours'
            from {{ this }} as staged
        )
    {%- endif %}
),

final as (
    select
        {{ rerun_safe.stable_hash(['in_window._file_id', 'in_window.source_line']) }} as _row_id,
        in_window.event_id,
        case
            when in_window.invalid_reason is null then {{ rerun_safe.surrogate_key(['in_window.event_id']) }}
        end as event_key,
        in_window.event_type,
        in_window.company_id,
        in_window.order_id,
        in_window.order_item_id,
        case when in_window.invalid_reason is null then in_window.amount_cents_value end as amount_cents,
        in_window.currency,
        case when in_window.invalid_reason is null then in_window.event_time_value end as event_time,
        case when in_window.invalid_reason is null then in_window.ingested_at_value end as ingested_at,
        case when in_window.invalid_reason is null then in_window.version_value end as version,
        case
            when in_window.invalid_reason is null then {{ rerun_safe.stable_hash([
                'in_window.event_type', 'in_window.company_id', 'in_window.order_id',
                'in_window.order_item_id', 'in_window.amount_cents_value', 'in_window.currency',
                'in_window.event_time_value', 'in_window.version_value',
            ]) }}
        end as payload_hash,
        in_window.invalid_reason,
        in_window.amount_cents as raw_amount_cents,
        in_window.event_time as raw_event_time,
        in_window.ingested_at as raw_ingested_at,
        in_window.version as raw_version,
        in_window.source_file,
        in_window.source_line,
        in_window._file_id,
        {{ rerun_safe.current_run_seq() }} as _loaded_run_seq
    from in_window
)

select * from final
