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
            "{{ rerun_safe.log_model_run(
                this_run={'recorded_run_seq': {'corrections_recorded': ('count', '*')}},
                all_rows={'corrections_total': ('count', '*')},
            ) }}",
        ],
    )
}}
{%- set correction = rerun_safe.correction_range() -%}
{%- set correct_from = correction[0] if correction else none -%}
{%- set correct_to = correction[1] if correction else none %}

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
