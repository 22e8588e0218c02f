{#- Must fail: check_now() as a post-hook whose check finds a negative amount. -#}
{{
    config(
        materialized='table',
        post_hook=["{{ rerun_safe.check_now('select ' ~ rerun_safe.raise_error('macro test: check_now found a negative amount') ~ ' from ' ~ this ~ ' where amount < 0') }}"],
    )
}}

with

cases as (
    select * from {{ ref('data_check_now') }}
),

final as (
    select
        cases.case_name,
        cases.amount
    from cases
)

select * from final
