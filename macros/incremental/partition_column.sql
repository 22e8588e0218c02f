{#- The one partition column of config `partition_by`, or none (an error when `required`). -#}
{% macro partition_column(required=false) %}
    {%- set value = config.get('partition_by') -%}
    {%- if value is not string and value is iterable and value is not mapping and value | length == 1 -%}
        {%- set value = value[0] -%}
    {%- endif -%}
    {%- if value is none and not required -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- if value is not string or not modules.re.fullmatch('[A-Za-z_][A-Za-z0-9_]*', value) -%}
        {{- exceptions.raise_compiler_error(
            "rerun_safe: model " ~ this.identifier ~ ": config partition_by must name one column; got "
            ~ (value | string | truncate(80, true, '...'))
        ) -}}
    {%- endif -%}
    {{- return(value) -}}
{% endmacro %}
