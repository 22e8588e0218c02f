{#- dbt creates the target schema before on-run-start, before any lease can be taken. Two first
    builds on an empty Postgres database would race on `create schema if not exists` (a unique
    violation in pg_namespace): serialise it with a transaction-level advisory lock. -#}
{% macro postgres__create_schema(relation) -%}
    {%- if relation.database -%}
        {{ adapter.verify_database(relation.database) }}
    {%- endif -%}
    {%- call statement('create_schema') -%}
        select pg_advisory_xact_lock(hashtext('rerun_safe:create_schema'));
        create schema if not exists {{ relation.without_identifier().include(database=False) }}
    {%- endcall -%}
{%- endmacro %}
