{#- dbt-duckdb's duckdb__list_schemas, the database name quoted (README.md here). -#}
{% macro duckdb__list_schemas(database) -%}
  {% set sql %}
    select schema_name
    from system.information_schema.schemata
    {% if database is not none %}
    where lower(catalog_name) = lower({{ rerun_safe.string_literal(database) }})
    {% endif %}
  {% endset %}
  {{ return(run_query(sql)) }}
{% endmacro %}
