with

cases as (
    select * from {{ ref('data_matches_pattern') }}
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
        {{ rerun_safe.matches_pattern('decoded.input_text', '[a-z]+[0-9]*') }} as is_word,
        {#- the whole value must match the whole alternation, not one branch at one end -#}
        {{ rerun_safe.matches_pattern('decoded.input_text', 'a|bc') }} as is_a_or_bc
    from decoded
)

select * from final
