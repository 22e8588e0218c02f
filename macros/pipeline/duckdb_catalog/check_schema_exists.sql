{#- dbt-duckdb's duckdb__check_schema_exists, the names quoted (README.md here). -#}
{% macro duckdb__check_schema_exists(information_schema, schema) -%}
  {% set sql -%}
        select count(*)
        from system.information_schema.schemata
        where lower(schema_name) = lower({{ rerun_safe.string_literal(schema) }})
        and lower(catalog_name) = lower({{ rerun_safe.string_literal(information_schema.database) }})
  {%- endset %}
  {{ return(run_query(sql)) }}
{% endmacro %}
