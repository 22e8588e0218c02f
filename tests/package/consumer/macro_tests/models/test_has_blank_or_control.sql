with

cases as (
    select * from {{ ref('data_has_blank_or_control') }}
),

decoded as (
    select
        cases.case_name,
        {{ decode_tokens('cases.input_text') }} as input_text
    from cases
),

final as (
    select
        decoded.case_name,
        {{ rerun_safe.has_blank_or_control('decoded.input_text') }} as has_invisible
    from decoded
)

select * from final
