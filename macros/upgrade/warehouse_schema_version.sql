{#- The warehouse's schema version (docs/architecture.md, "Schema version and upgrades").

    The version lives in the warehouse itself, in the audit table `rerun_safe_schema_version`:
    append-only, one row per version the warehouse was brought to (by its first build, or by
    `dbt run-operation rerun_safe_upgrade`), with when, by which invocation, and from which
    version. The warehouse's version is the highest row. Append-only, so Spark (no UPDATE)
    writes it as every engine does.

    A warehouse built by the code before versions existed has the run registry
    (`rerun_safe_runs`, created by every build's on-run-start) and no version table: version 0.
    A schema with neither (or an empty version table and no registry) is no warehouse yet: its
    first build records the code's version. -#}
{% macro warehouse_schema_version() %}
    {%- if rerun_safe.audit_table_exists('rerun_safe_schema_version') -%}
        {%- set found = run_query("select max(schema_version) from " ~ rerun_safe.schema_version_relation()) -%}
        {%- if found.rows[0][0] is not none -%}{{ return(found.rows[0][0] | int) }}{%- endif -%}
    {%- endif -%}
    {#- no version recorded (an empty version table: a first build stopped between creating it and
        writing its row, which hooks commit one statement at a time) -#}
    {%- if rerun_safe.audit_table_exists('rerun_safe_runs') -%}
        {{- return(0) -}}
    {%- endif -%}
    {{- return(none) -}}
{% endmacro %}
