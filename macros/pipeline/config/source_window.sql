{% macro source_window() %}
    {%- set value = var('source_window') -%}
    {%- if value not in ['files', 'lookback'] -%}
        {{- rerun_safe.config_error('source_window', "'files' or 'lookback'", value) -}}
    {%- endif -%}
    {{- return(value) -}}
{% endmacro %}
