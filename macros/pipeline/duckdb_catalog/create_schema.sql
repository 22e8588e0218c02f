{#- dbt-duckdb's duckdb__create_schema, the database name quoted (README.md here). -#}
{% macro duckdb__create_schema(relation) -%}
  {%- call statement('create_schema') -%}
    {% set sql %}
        select type from duckdb_databases()
        where lower(database_name) = lower({{ rerun_safe.string_literal(relation.database) }})
        and type != 'duckdb'
    {% endset %}
    {% set results = run_query(sql) %}
    {% if results | length == 0 %}
        create schema if not exists {{ relation.without_identifier() }}
    {% else %}
        {% set attached_type = results.columns[0].values()[0] %}
        {% if attached_type == 'sqlite' and relation.schema != 'main' %}
            {{ exceptions.raise_compiler_error("Schema must be 'main' when writing to sqlite instead got " ~ relation.schema) }}
        {% elif attached_type not in ['sqlite', 'mysql'] %}
            create schema if not exists {{ relation.without_identifier() }}
        {% endif %}
    {% endif %}
  {%- endcall -%}
{% endmacro %}
