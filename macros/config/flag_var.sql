{#- A flag var: true or false only (a typo such as 'yes' is refused, not read as false). -#}
{% macro flag_var(name) %}
    {%- set value = var(name) -%}
    {%- if value is sameas true or value is sameas false -%}{{ return(value) }}{%- endif -%}
    {%- if value is string and value.lower() in ['true', 'false'] -%}{{ return(value.lower() == 'true') }}{%- endif -%}
    {{- rerun_safe.config_error(name, 'true or false', value) -}}
{% endmacro %}
