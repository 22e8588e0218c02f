{#- A SQL string literal holding `value` exactly: the one way a var, a path or a file name
    enters SQL. Standard SQL quoting (a quote doubled) on DuckDB, Postgres
    (standard_conforming_strings, the default since 9.1, keeps backslashes literal) and Spark
    (whose literals also treat a backslash as an escape, so it is doubled there). -#}
{% macro string_literal(value) %}{{ return(adapter.dispatch('string_literal', 'rerun_safe')(value)) }}{% endmacro %}
{% macro default__string_literal(value) %}
    {{- return("'" ~ (value | string) | replace("'", "''") ~ "'") -}}
{% endmacro %}
{% macro spark__string_literal(value) %}
    {{- return("'" ~ (value | string) | replace("\\", "\\\\") | replace("'", "\\'") ~ "'") -}}
{% endmacro %}
