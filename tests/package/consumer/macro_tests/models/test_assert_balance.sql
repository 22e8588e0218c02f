{#- assert_balance() as a post-hook whose sides agree (the table's total = its input's): the model builds. -#}
{{
    config(
        materialized='table',
        post_hook=["{{ rerun_safe.assert_balance(
            left=(this, 'coalesce(sum(amount), 0)'),
            right=(ref('data_check_now'), 'coalesce(sum(amount), 0)'),
            message='macro test: assert_balance sides that agree failed',
        ) }}"],
    )
}}
select balanced.case_name, balanced.amount from {{ ref('data_check_now') }} as balanced
