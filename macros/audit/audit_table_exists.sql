{#- Whether an audit table exists, asked of the database: dbt's relation cache does not know
    the tables hooks create with run_query in the same invocation. -#}
{% macro audit_table_exists(name) %}{{ return(adapter.dispatch('audit_table_exists', 'rerun_safe')(name)) }}{% endmacro %}
{% macro spark__audit_table_exists(name) %}
    {#- why: Spark has no information_schema; SHOW TABLES asks its catalog -#}
    {%- set found = run_query("show tables in " ~ target.schema ~ " like " ~ rerun_safe.string_literal(name)) -%}
    {{- return(found.rows | length > 0) -}}
{% endmacro %}
{% macro default__audit_table_exists(name) %}
    {%- set found = run_query(
        "select count(*) from information_schema.tables where table_schema = '"
        ~ target.schema | replace("'", "''") ~ "' and table_name = '" ~ name ~ "'"
    ) -%}
    {{- return(found.rows[0][0] | int > 0) -}}
{% endmacro %}
