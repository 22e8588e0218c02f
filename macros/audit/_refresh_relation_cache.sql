{#- dbt lists the schema's relations before on-run-start. A run that took the lease after
    another run wrote (it waited, or the other finished just before) would otherwise believe the
    tables that run created do not exist, and try to create them again. -#}
{% macro _refresh_relation_cache() %}{{ return(adapter.dispatch('_refresh_relation_cache', 'rerun_safe')()) }}{% endmacro %}
{#- Spark: the Derby metastore of profiles.yml admits one process, so no other run can have
    written since dbt listed the relations. -#}
{% macro spark___refresh_relation_cache() %}{% endmacro %}
{% macro default___refresh_relation_cache() %}
    {%- set found = run_query(
        "select table_name, table_type from information_schema.tables where table_schema = '"
        ~ target.schema | replace("'", "''") ~ "'"
    ) -%}
    {%- for row in found.rows -%}
        {%- do adapter.cache_added(api.Relation.create(
            database=rerun_safe.target_database(), schema=target.schema, identifier=row[0],
            type=('view' if row[1] == 'VIEW' else 'table'))) -%}
    {%- endfor -%}
{% endmacro %}
