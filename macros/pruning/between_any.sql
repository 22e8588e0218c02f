{#- `(column between lo1 and hi1 or ...)` for (lo, hi) pairs, cast to `type`; `false` for none. -#}
{% macro between_any(column, pairs, type) %}
    {%- set ranges = [] -%}
    {%- for pair in pairs -%}
        {%- do ranges.append(
            column ~ " between cast(" ~ rerun_safe.string_literal(pair[0]) ~ " as " ~ type ~ ")"
            ~ " and cast(" ~ rerun_safe.string_literal(pair[1]) ~ " as " ~ type ~ ")"
        ) -%}
    {%- endfor -%}
    {%- if ranges | length == 0 -%}
        {{- return('false') -}}
    {%- endif -%}
    {{- return('(' ~ ranges | join(' or ') ~ ')') -}}
{% endmacro %}
