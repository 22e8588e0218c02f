{#- The contract columns of a file split in SQL, in contract order, each taken from its position
    in the file's own header (`field_at` formats a 1-based position into the SQL of that field),
    empty fields as null, and _overflow: the field after the last one. -#}
{% macro csv_columns_by_header(header, field_at) -%}
    {%- for c in rerun_safe.landing_columns() %}
        nullif({{ rerun_safe.csv_field(field_at.format(header.index(c) + 1)) }}, '') as {{ c }},
    {%- endfor %}
        nullif({{ rerun_safe.csv_field(field_at.format(header | length + 1)) }}, '') as _overflow
{%- endmacro %}
