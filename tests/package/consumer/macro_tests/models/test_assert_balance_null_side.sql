{#- Must fail: assert_balance() with a side that is NULL (a sum over no rows) against 0. -#}
{{
    config(
        materialized='table',
        post_hook=["{{ rerun_safe.assert_balance(
            left=(this, 'sum(amount)', 'amount > 1000000'),
            right=(this, 'count(*)', 'amount > 1000000'),
            message='macro test: assert_balance took a NULL side for 0',
        ) }}"],
    )
}}
select checked.amount from {{ ref('data_check_now') }} as checked
