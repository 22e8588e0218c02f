with

cases as (
    select * from {{ ref('data_stable_hash') }}
),

decoded as (
    select
        cases.case_name,
        {{ decode_tokens('cases.first_value') }} as first_value,
        {{ decode_tokens('cases.second_value') }} as second_value,
        cases.amount
    from cases
),

final as (
    select
        decoded.case_name,
        {{ rerun_safe.stable_hash(['decoded.first_value']) }} as first_hash,
        {{ rerun_safe.stable_hash(['decoded.first_value', 'decoded.second_value']) }} as pair_hash,
        {{ rerun_safe.stable_hash(['decoded.amount']) }} as amount_hash
    from decoded
)

select * from final
