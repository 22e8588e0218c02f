{#- dbt-duckdb's duckdb__get_catalog_tables_sql (dbt docs generate), the database name quoted
    (README.md here). -#}
{% macro duckdb__get_catalog_tables_sql(information_schema) -%}
    select *
    from (
        select
            t.database_name as table_database,
            t.schema_name as table_schema,
            t.table_name as table_name,
            'BASE TABLE' as table_type,
            t.comment as table_comment
        from duckdb_tables() t
        where upper(t.database_name) = upper({{ rerun_safe.string_literal(information_schema.database) }})

        union all

        select
            v.database_name as table_database,
            v.schema_name as table_schema,
            v.view_name as table_name,
            'VIEW' as table_type,
            v.comment as table_comment
        from duckdb_views() v
        where upper(v.database_name) = upper({{ rerun_safe.string_literal(information_schema.database) }})
    ) catalog_tables
{%- endmacro %}
