{#- A calendar date YYYY-MM-DD (2026-02-30 is refused), or none. -#}
{% macro date_var(name) %}
    {%- set value = var(name) -%}
    {%- if value is none -%}{{ return(none) }}{%- endif -%}
    {%- set text = value | string -%}
    {%- set accepted = 'a calendar date YYYY-MM-DD' -%}
    {%- set shape = modules.re.fullmatch('([0-9]{4})-([0-9]{2})-([0-9]{2})', text) -%}
    {%- if shape is none -%}{{ rerun_safe.config_error(name, accepted, value) }}{%- endif -%}
    {%- set year, month, day = shape.group(1) | int, shape.group(2) | int, shape.group(3) | int -%}
    {%- set leap = (year % 4 == 0 and year % 100 != 0) or year % 400 == 0 -%}
    {%- set month_days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] -%}
    {%- if year < 1 or month < 1 or month > 12 or day < 1 or day > month_days[month - 1] -%}
        {{- rerun_safe.config_error(name, accepted, value) -}}
    {%- endif -%}
    {{- return(text) -}}
{% endmacro %}
