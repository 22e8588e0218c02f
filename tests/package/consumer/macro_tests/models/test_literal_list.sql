{#- literal_list() quotes text values known in Jinja (a quote and non-ASCII included); an
    empty list is false. -#}
with

cases as (
    select * from {{ ref('data_literal_list') }}
),

final as (
    select
        cases.case_name,
        {{ rerun_safe.literal_list('cases.label', ["it's", 'café', 'plain']) }} as is_listed,
        {{ rerun_safe.literal_list('cases.label', []) }} as in_empty_list
    from cases
)

select * from final
