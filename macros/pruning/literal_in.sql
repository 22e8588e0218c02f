{#- `column in (v1, v2, ...)` for the distinct non-null values of the first column `values_sql`
    returns, cast to `type`; `false` when there are none. -#}
{% macro literal_in(column, values_sql, type='date') %}
    {%- if not execute -%}
        {{- return('true') -}}
    {%- endif -%}
    {%- set values = rerun_safe.distinct_query_values(values_sql) -%}
    {%- if values | length == 0 -%}
        {{- return('false') -}}
    {%- endif -%}
    {%- set literals = [] -%}
    {%- for value in values -%}
        {%- do literals.append("cast(" ~ rerun_safe.string_literal(value) ~ " as " ~ type ~ ")") -%}
    {%- endfor -%}
    {{- return(column ~ ' in (' ~ literals | join(', ') ~ ')') -}}
{% endmacro %}
