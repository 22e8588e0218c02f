{#- Must fail: a row takes the branch, and the build reports the message (the quote
    included). tests/package/test_macro_integration.py asserts it from run_results.json. -#}
{{ config(materialized='table') }}
select case when cases.amount < 0 then {{ rerun_safe.raise_error("macro test: an amount is negative, it's refused") }} end as refused
from {{ ref('data_raise_error') }} as cases
