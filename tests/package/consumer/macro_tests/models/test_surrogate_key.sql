with

cases as (
    select * from {{ ref('data_surrogate_key') }}
),

decoded as (
    select
        cases.case_name,
        {{ decode_tokens('cases.first_value') }} as first_value,
        {{ decode_tokens('cases.second_value') }} as second_value
    from cases
),

final as (
    select
        decoded.case_name,
        {{ rerun_safe.surrogate_key(['decoded.first_value', 'decoded.second_value']) }} as pair_key
    from decoded
)

select * from final
