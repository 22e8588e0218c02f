{#- Must fail: a row takes the branch, and the build reports the message (the quote
    included). tests/package/test_macro_integration.py asserts it from run_results.json. -#}
{{ config(materialized='table') }}

with

cases as (
    select * from {{ ref('data_raise_error') }}
),

final as (
    select
        cases.case_name,
        case
            when cases.amount < 0 then {{ rerun_safe.raise_error("macro test: an amount is negative, it's refused") }}
            else cases.amount
        end as amount
    from cases
)

select * from final
