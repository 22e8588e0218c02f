{#- The requested correction as [from, to] (inclusive dates), or none. -#}
{% macro correction_range() %}
    {%- set correct_from = rerun_safe.date_var('correct_from') -%}
    {%- set correct_to = rerun_safe.date_var('correct_to') -%}
    {%- if (correct_from is none) != (correct_to is none) -%}
        {{- exceptions.raise_compiler_error(
            "rerun_safe: var correct_from and var correct_to go together (inclusive UTC dates, YYYY-MM-DD); got only "
            ~ ('correct_from' if correct_to is none else 'correct_to')
        ) -}}
    {%- endif -%}
    {%- if correct_from is none -%}{{ return(none) }}{%- endif -%}
    {%- if correct_from > correct_to -%}
        {{- exceptions.raise_compiler_error(
            "rerun_safe: var correct_from (" ~ correct_from ~ ") is after var correct_to (" ~ correct_to ~ ")"
        ) -}}
    {%- endif -%}
    {{- return([correct_from, correct_to]) -}}
{% endmacro %}
