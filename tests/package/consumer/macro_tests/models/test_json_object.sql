with

cases as (
    select * from {{ ref('data_json_object') }}
),

decoded as (
    select
        cases.case_name,
        {{ decode_tokens('cases.label') }} as label,
        cases.amount,
        cases.is_final
    from cases
),

final as (
    select
        decoded.case_name,
        {{ rerun_safe.json_object({'label': 'decoded.label', 'amount': 'decoded.amount', 'is_final': 'decoded.is_final'}) }} as payload,
        {{ rerun_safe.json_object({}) }} as empty_payload
    from decoded
)

select * from final
