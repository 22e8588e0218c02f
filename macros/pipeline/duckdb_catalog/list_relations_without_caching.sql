{#- dbt-duckdb's duckdb__list_relations_without_caching, the names quoted (README.md here). -#}
{% macro duckdb__list_relations_without_caching(schema_relation) %}
  {% call statement('list_relations_without_caching', fetch_result=True) -%}
    select
      {{ rerun_safe.string_literal(schema_relation.database) }} as database,
      table_name as name,
      table_schema as schema,
      case table_type
        when 'BASE TABLE' then 'table'
        when 'VIEW' then 'view'
        when 'LOCAL TEMPORARY' then 'table'
        end as type
    from system.information_schema.tables
    where lower(table_schema) = lower({{ rerun_safe.string_literal(schema_relation.schema) }})
    and lower(table_catalog) = lower({{ rerun_safe.string_literal(schema_relation.database) }})
  {% endcall %}
  {{ return(load_result('list_relations_without_caching').table) }}
{% endmacro %}
