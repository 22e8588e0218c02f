{% macro landing_path() %}
    {%- set value = var('landing_path') -%}
    {%- set accepted = 'a folder path (text, without control characters)' -%}
    {%- if value is not string or value.strip() == '' or modules.re.search('[\\x00-\\x1f\\x7f]', value) -%}
        {{- rerun_safe.config_error('landing_path', accepted, value) -}}
    {%- endif -%}
    {{- return(value.rstrip('/') if value.rstrip('/') != '' else '/') -}}
{% endmacro %}
