{#- Must fail: check_now() as a post-hook whose check finds a negative amount. -#}
{{
    config(
        materialized='table',
        post_hook=["{{ rerun_safe.check_now('select ' ~ rerun_safe.raise_error('macro test: check_now found a negative amount') ~ ' from ' ~ this ~ ' where amount < 0') }}"],
    )
}}
select checked.amount from {{ ref('data_check_now') }} as checked
