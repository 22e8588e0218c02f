{#- string_literal() takes a compile-time value: the cases are read from the seed with
    run_query (so the seed is built first: ref below) and each is rendered as a literal. The
    literal must hold the value exactly, so the result is compared with the input seed. -#}
{%- set cases_sql -%}
    select
        cases.case_name,
        {{ decode_tokens('cases.input_text') }} as input_text
    from {{ ref('data_string_literal') }} as cases
    order by cases.case_name
{%- endset -%}
{%- set cases = run_query(cases_sql).rows if execute else [] %}

with

literals as (
    {%- for case in cases %}
    select
        {{ rerun_safe.string_literal(case[0]) }} as case_name,
        {{ rerun_safe.string_literal(case[1]) }} as literal_value
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- else %}
    select
        cast(null as {{ rerun_safe.text_type() }}) as case_name,
        cast(null as {{ rerun_safe.text_type() }}) as literal_value
    where 1 = 0
    {%- endfor %}
),

final as (
    select
        cast(literals.case_name as {{ rerun_safe.text_type() }}) as case_name,
        {{ encode_tokens('cast(literals.literal_value as ' ~ rerun_safe.text_type() ~ ')') }} as input_text
    from literals
)

select * from final
