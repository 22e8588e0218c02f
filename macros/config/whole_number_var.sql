{#- A whole number between low and high from an int or a string of digits (not a bool, not 7.5).
    `default` is for vars the project does not declare in dbt_project.yml. -#}
{% macro whole_number_var(name, low, high, default=none) %}
    {%- set value = var(name, default) -%}
    {%- set accepted = 'a whole number from ' ~ low ~ ' to ' ~ high -%}
    {%- if value is sameas true or value is sameas false or value is none -%}
        {{- rerun_safe.config_error(name, accepted, value) -}}
    {%- elif value is number and value == (value | int) -%}
        {%- set parsed = value | int -%}
    {%- elif value is string and modules.re.fullmatch('[0-9]{1,18}', value.strip()) -%}
        {%- set parsed = value.strip() | int -%}
    {%- else -%}
        {{- rerun_safe.config_error(name, accepted, value) -}}
    {%- endif -%}
    {%- if parsed < low or parsed > high -%}
        {{- rerun_safe.config_error(name, accepted, value) -}}
    {%- endif -%}
    {{- return(parsed) -}}
{% endmacro %}
