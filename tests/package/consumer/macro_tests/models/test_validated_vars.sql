{#- The var accessors on values they accept: each returns the value in its one shape. The vars
    macro_test_flag and macro_test_date are set by the build (--vars); the whole numbers come
    from `default` (no such var is set). Only when the model runs: dbt renders every model while
    it parses the project, this one too when the macro tests are disabled and the vars unset. -#}
{%- set values = [
    ['whole_number_from_text', rerun_safe.whole_number_var('macro_test_unset', 1, 10, default='7')],
    ['whole_number_with_blanks', rerun_safe.whole_number_var('macro_test_unset', 1, 10, default=' 7 ')],
    ['whole_number_leading_zeros', rerun_safe.whole_number_var('macro_test_unset', 1, 10, default='0010')],
    ['whole_number_from_a_float', rerun_safe.whole_number_var('macro_test_unset', 1, 10, default=7.0)],
    ['whole_number_at_the_low_bound', rerun_safe.whole_number_var('macro_test_unset', 1, 10, default=1)],
    ['flag_in_capitals', rerun_safe.flag_var('macro_test_flag')],
    ['leap_day', rerun_safe.date_var('macro_test_date')],
    ['timestamp_t_and_z', rerun_safe._timestamp_value('macro_test_instant', '2026-11-01T10:15:00Z')],
    ['timestamp_space', rerun_safe._timestamp_value('macro_test_instant', '2026-11-01 10:15:00')],
    ['timestamp_none', rerun_safe._timestamp_value('macro_test_instant', none)],
] if execute else [] %}

with

final as (
    {%- for case_name, value in values %}
    select
        {{ rerun_safe.string_literal(case_name) }} as case_name,
        {{ 'null' if value is none else rerun_safe.string_literal(value) }} as returned
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- else %}
    select
        null as case_name,
        null as returned
    {%- endfor %}
)

select
    cast(final.case_name as {{ rerun_safe.text_type() }}) as case_name,
    cast(final.returned as {{ rerun_safe.text_type() }}) as returned
from final
