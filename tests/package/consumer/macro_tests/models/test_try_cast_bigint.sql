with

cases as (
    select * from {{ ref('data_try_cast_bigint') }}
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
        {{ rerun_safe.try_cast_bigint('decoded.input_text') }} as parsed
    from decoded
)

select * from final
