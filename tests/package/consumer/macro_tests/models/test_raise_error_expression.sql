{#- Must fail, with a message that names the row at fault. -#}
{{ config(materialized='table') }}

with

cases as (
    select * from {{ ref('data_raise_error') }}
),

final as (
    select
        cases.case_name,
        case
            when cases.amount < 0 then {{ rerun_safe.raise_error_expression("'macro test: negative amount in row ' || cases.case_name") }}
            else cases.amount
        end as amount
    from cases
)

select * from final
