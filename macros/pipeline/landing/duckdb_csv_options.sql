{#- read_csv's options after the path, the same for the per-file and the multi-file scan (so
    both give the same rows): `columns` are the file's own header names in file order, all text,
    then _overflow (the field after the last one). -#}
{% macro duckdb_csv_options(header) -%}
    header = true, auto_detect = false, delim = ',', quote = '"', escape = '"',
        strict_mode = false, null_padding = true, parallel = false, max_line_size = 2097152,
        columns = {
            {%- for c in header + ['_overflow'] %}'{{ c }}': 'varchar'{{ ', ' if not loop.last }}{% endfor -%}
    }
{%- endmacro %}
