{#- A JSON text object from a dict of name -> SQL expression (run-log metrics). -#}
{% macro json_object(metrics) %}{{ return(adapter.dispatch('json_object', 'rerun_safe')(metrics)) }}{% endmacro %}
{% macro default__json_object(metrics) %}
    {%- set parts = [] -%}
    {%- for name, expression in metrics.items() -%}
        {%- do parts.append("'\"" ~ name ~ "\": ' || coalesce(cast((" ~ expression ~ ") as " ~ rerun_safe.text_type() ~ "), 'null')") -%}
    {%- endfor -%}
    {{- return("'{' || " ~ (parts | join(" || ', ' || ") if parts else "''") ~ " || '}'") -}}
{% endmacro %}
{% macro duckdb__json_object(metrics) %}
    {%- set parts = [] -%}
    {%- for name, expression in metrics.items() -%}
        {%- do parts.append("'" ~ name ~ "', (" ~ expression ~ ")") -%}
    {%- endfor -%}
    {{- return("cast(json_object(" ~ parts | join(', ') ~ ") as varchar)") -}}
{% endmacro %}
{% macro postgres__json_object(metrics) %}
    {%- set parts = [] -%}
    {%- for name, expression in metrics.items() -%}
        {%- do parts.append("'" ~ name ~ "', (" ~ expression ~ ")") -%}
    {%- endfor -%}
    {{- return("cast(json_build_object(" ~ parts | join(', ') ~ ") as varchar)") -}}
{% endmacro %}
