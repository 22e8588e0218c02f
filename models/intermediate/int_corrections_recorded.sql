{#- The correction log. `--vars '{correct_from: ..., correct_to: ...}'` records the range and the
    mark (the greatest valid ingested_at staged so far, this run's files included). From then
    on, late copies in that range ingested at or before the mark are applicable, in every later
    run and every full refresh: full_refresh=false keeps the log through --full-refresh. The id
    hashes range and mark, so repeating the command on the same data records nothing new. -#}
{{
    config(
        incremental_strategy='merge',
        unique_key='correction_id',
        full_refresh=false,
        meta={'rerun_safe': {'volatile_columns': ['recorded_run_seq']}},
        post_hook=[
            "{{ rerun_safe.log_model_run({
                'corrections_recorded': 'select count(*) from ' ~ this ~ ' where recorded_run_seq = ' ~ rerun_safe.current_run_seq(),
                'corrections_total': 'select count(*) from ' ~ this,
            }) }}",
        ],
    )
}}
{%- set correct_from = var('correct_from') -%}
{%- set correct_to = var('correct_to') -%}
{%- if (correct_from is none) != (correct_to is none) -%}
    {{ exceptions.raise_compiler_error(
        "rerun_safe: a correction needs both correct_from and correct_to (inclusive UTC dates, YYYY-MM-DD)"
    ) }}
{%- endif -%}
{%- set date_shape = '[0-9]{4}-[0-9]{2}-[0-9]{2}' -%}
{%- if correct_from is not none and modules.re.fullmatch(date_shape, correct_from | string) is none -%}
    {{ exceptions.raise_compiler_error("rerun_safe: correct_from must be a date like 2026-11-01, got " ~ correct_from) }}
{%- endif -%}
{%- if correct_to is not none and modules.re.fullmatch(date_shape, correct_to | string) is none -%}
    {{ exceptions.raise_compiler_error("rerun_safe: correct_to must be a date like 2026-11-03, got " ~ correct_to) }}
{%- endif -%}
{%- if correct_from is not none and (correct_from | string) > (correct_to | string) -%}
    {{ exceptions.raise_compiler_error("rerun_safe: correct_from (" ~ correct_from ~ ") is after correct_to (" ~ correct_to ~ ")") }}
{%- endif %}

with

staged as {{ rerun_safe.inline_cte() }} (
    select * from {{ ref('stg_landing__events') }}
),

requested as (
    select
        cast({{ "'" ~ correct_from ~ "'" if correct_from is not none else 'null' }} as date) as correct_from,
        cast({{ "'" ~ correct_to ~ "'" if correct_to is not none else 'null' }} as date) as correct_to,
        (
            select max(staged.ingested_at) from staged
            where staged.invalid_reason is null
        ) as mark
),

recorded as (
    select
        {{ rerun_safe.stable_hash(['requested.correct_from', 'requested.correct_to', 'requested.mark']) }}
            as correction_id,
        requested.correct_from,
        requested.correct_to,
        requested.mark,
        {{ rerun_safe.current_run_seq() }} as recorded_run_seq
    from requested
    where
        requested.correct_from is not null
        and requested.mark is not null
),

final as (
    select recorded.*
    from recorded
    {%- if is_incremental() %}
    where recorded.correction_id not in (select known.correction_id from {{ this }} as known)
    {%- endif %}
)

select * from final
