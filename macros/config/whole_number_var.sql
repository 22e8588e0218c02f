{#- A whole number between low and high from an int or a string of digits (not a bool, not 7.5).
    `default` is for vars the project does not declare in dbt_project.yml. -#}
{% macro whole_number_var(name, low, high, default=none) %}
    {%- set value = var(name, default) -%}
    {%- set parsed = rerun_safe._whole_number(value, low, high) -%}
    {%- if parsed is none -%}
        {{- rerun_safe.config_error(name, 'a whole number from ' ~ low ~ ' to ' ~ high, value) -}}
    {%- endif -%}
    {{- return(parsed) -}}
{% endmacro %}


{#- `value` as a whole number between low and high (an int, or a string of digits; not a bool,
    not 7.5), or none: the parse behind whole_number_var and the run-operations' arguments. -#}
{% macro _whole_number(value, low, high) %}
    {%- if value is sameas true or value is sameas false or value is none -%}
        {{- return(none) -}}
    {%- elif value is number and value == (value | int) -%}
        {%- set parsed = value | int -%}
    {%- elif value is string and modules.re.fullmatch('[0-9]{1,18}', value.strip()) -%}
        {%- set parsed = value.strip() | int -%}
    {%- else -%}
        {{- return(none) -}}
    {%- endif -%}
    {{- return(parsed if low <= parsed <= high else none) -}}
{% endmacro %}
