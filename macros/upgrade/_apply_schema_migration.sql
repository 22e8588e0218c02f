{#- One step by its version (dbt resolves dispatch names when it parses, so each step is named
    here literally). -#}
{% macro _apply_schema_migration(version) %}
    {%- if version == 1 -%}
        {%- do rerun_safe._schema_migration_1() -%}
    {%- else -%}
        {%- do rerun_safe._refuse_upgrade("rerun_safe: _schema_migrations() lists version " ~ version ~ ", which _apply_schema_migration() does not know") -%}
    {%- endif -%}
{% endmacro %}

{% macro _schema_migration_1() %}{{ return(adapter.dispatch('_schema_migration_1', 'rerun_safe')()) }}{% endmacro %}
{% macro default___schema_migration_1() %}
    {%- do run_query(rerun_safe.create_schema_version_table_sql()) -%}
{% endmacro %}
