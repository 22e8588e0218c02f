{#- `(column between lo1 and hi1 or ...)` for the (lo, hi) rows `ranges_sql` returns, cast to
    `type`; `false` when there are none. -#}
{% macro literal_ranges(column, ranges_sql, type='timestamp') %}
    {%- if not execute -%}
        {{- return('true') -}}
    {%- endif -%}
    {{- return(rerun_safe.between_any(column, run_query(ranges_sql).rows, type)) -}}
{% endmacro %}
