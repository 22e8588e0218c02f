with

cases as (
    select * from {{ ref('data_trim_blank') }}
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
        {{ encode_tokens(rerun_safe.trim_blank('decoded.input_text')) }} as trimmed
    from decoded
)

select * from final
