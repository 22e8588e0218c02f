{#- `column in ('v1', 'v2', ...)` for a list of text values known in Jinja (each quoted as a
    string literal); `false` for an empty list. -#}
{% macro literal_list(column, values) %}
    {%- if values | length == 0 -%}{{ return('false') }}{%- endif -%}
    {%- set literals = [] -%}
    {%- for value in values -%}{%- do literals.append(rerun_safe.string_literal(value)) -%}{%- endfor -%}
    {{- return(column ~ ' in (' ~ literals | join(', ') ~ ')') -}}
{% endmacro %}
