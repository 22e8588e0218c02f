{#- on-run-start (begin_run), under the registry lock, just before start_run creates the run
    registry: a warehouse's first build records the code's schema version. Before the registry,
    so that a build stopped in between leaves a versioned warehouse (a version table and no
    registry is version 1), never one that looks built before versions. A warehouse that changed
    since the check before any write (another build or an upgrade in between) is checked again. -#}
{% macro record_schema_version() %}
    {%- set found = rerun_safe.require_current_schema() -%}
    {%- if found is none -%}
        {%- do run_query(rerun_safe.create_schema_version_table_sql()) -%}
        {%- do run_query(rerun_safe.schema_version_row_sql(rerun_safe.code_schema_version(), none)) -%}
        {%- do rerun_safe.commit_hook_writes() -%}
    {%- endif -%}
{% endmacro %}
