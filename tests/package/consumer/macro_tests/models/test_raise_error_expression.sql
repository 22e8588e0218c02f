{#- Must fail, with a message that names the row at fault. -#}
{{ config(materialized='table') }}
select
    case when cases.amount < 0 then {{ rerun_safe.raise_error_expression("'macro test: negative amount in row ' || cases.case_name") }} end as refused
from {{ ref('data_raise_error') }} as cases
