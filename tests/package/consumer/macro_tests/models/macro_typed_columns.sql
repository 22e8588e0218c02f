{#- A table whose columns are typed by the package's type macros, next to a surrogate key
    and utc_now() themselves; test_column_types reads their types from the information schema. -#}
{{ config(materialized='table') }}

with

final as (
    select
        cast('a' as {{ rerun_safe.text_type() }}) as text_typed,
        {{ rerun_safe.surrogate_key(["'a'"]) }} as surrogate_key_value,
        cast(null as {{ rerun_safe.surrogate_key_type() }}) as surrogate_key_typed,
        {{ rerun_safe.utc_now() }} as utc_now_value
)

select * from final
