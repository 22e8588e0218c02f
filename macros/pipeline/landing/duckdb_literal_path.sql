{#- A path for DuckDB's readers, which expand `*`, `?` and `[...]`: each such character is
    wrapped in brackets so it matches only itself. DuckDB's glob cannot match a backslash, but
    reads an existing file by its exact name first: a path with a backslash is passed as is. -#}
{% macro duckdb_literal_path(path) %}
    {%- if '\\' in path -%}{{ return(path) }}{%- endif -%}
    {%- set escaped = modules.re.sub('([*?\\[])', '[\\1]', path) -%}
    {{- return(escaped) -}}
{% endmacro %}
