{#- Must fail: assert_balance() whose sides differ (all amounts against the positive ones). -#}
{{
    config(
        materialized='table',
        post_hook=["{{ rerun_safe.assert_balance(
            left=(this, 'coalesce(sum(amount), 0)'),
            right=(this, 'coalesce(sum(amount), 0)', 'amount > 0'),
            message='macro test: assert_balance found the sides apart',
        ) }}"],
    )
}}
select checked.amount from {{ ref('data_check_now') }} as checked
