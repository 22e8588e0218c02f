{#- literal_ranges() renders the (start, end) rows a query returns as `between` literals
    (ends included); between_any() does the same for pairs known in Jinja, and is false for none. -#}
{%- set ranges_sql -%}
    select ranges.range_start, ranges.range_end
    from {{ ref('data_literal_ranges') }} as ranges
    where ranges.range_start is not null
{%- endset %}

with

cases as (
    select * from {{ ref('data_literal_ranges') }}
),

final as (
    select
        cases.case_name,
        {{ rerun_safe.literal_ranges('cases.at', ranges_sql) }} as in_a_range,
        {{ rerun_safe.between_any('cases.at', [['2026-11-01 00:00:00', '2026-11-01 23:59:59']], 'timestamp') }} as on_november_first,
        {{ rerun_safe.between_any('cases.at', [], 'timestamp') }} as in_no_range
    from cases
)

select * from final
