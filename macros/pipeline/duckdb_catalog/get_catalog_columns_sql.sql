{#- dbt-duckdb's duckdb__get_catalog_columns_sql (dbt docs generate), the database name quoted
    (README.md here). -#}
{% macro duckdb__get_catalog_columns_sql(information_schema) -%}
    select *
    from (
        select
            c.database_name as table_database,
            c.schema_name as table_schema,
            c.table_name as table_name,
            c.column_name as column_name,
            c.column_index as column_index,
            c.data_type as column_type,
            c.comment as column_comment
        from duckdb_columns() c
        where upper(c.database_name) = upper({{ rerun_safe.string_literal(information_schema.database) }})
    ) catalog_columns
{%- endmacro %}
