{#- literal_in() renders the values a query returns as literals: a day, a text (quotes and
    non-ASCII included) and an empty set (false). Nulls in the set are left out. -#}
{%- set input = ref('data_literal_in') -%}
{%- set wanted_days_sql -%}
    select wanted.day from {{ input }} as wanted where wanted.is_wanted
{%- endset -%}
{%- set wanted_labels_sql -%}
    select wanted.label from {{ input }} as wanted where wanted.is_wanted
{%- endset -%}
{%- set no_days_sql -%}
    select nothing.day from {{ input }} as nothing where 1 = 0
{%- endset %}

with

cases as (
    select * from {{ input }}
),

final as (
    select
        cases.case_name,
        {{ rerun_safe.literal_in('cases.day', wanted_days_sql) }} as day_is_wanted,
        {{ rerun_safe.literal_in('cases.label', wanted_labels_sql, type=rerun_safe.text_type()) }} as label_is_wanted,
        {{ rerun_safe.literal_in('cases.day', no_days_sql) }} as day_in_empty_set
    from cases
)

select * from final
