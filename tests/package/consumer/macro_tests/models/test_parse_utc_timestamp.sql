with

cases as (
    select * from {{ ref('data_parse_utc_timestamp') }}
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
        {{ rerun_safe.parse_utc_timestamp('decoded.input_text') }} as parsed_at
    from decoded
)

select * from final
