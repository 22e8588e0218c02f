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

{#- The schema version this code builds and reads. A change to what a stored table holds (a
    column, a key, a table) raises it by one and adds the step that migrates a warehouse of the
    previous version to schema_migrations() (rerun_safe_upgrade.sql). -#}
{% macro code_schema_version() %}{{ return(1) }}{% endmacro %}

{% macro schema_version_relation() %}
    {{- return(api.Relation.create(database=rerun_safe.target_database(), schema=target.schema, identifier='rerun_safe_schema_version')) -}}
{% endmacro %}

{#- The version table's DDL (create if not exists): a first build and migration 1 both run it. -#}
{% macro create_schema_version_table_sql() %}
    {{- return(rerun_safe.create_audit_table(rerun_safe.schema_version_relation(), [
        ['schema_version', 'bigint', true],
        ['from_version', 'bigint', false],
        ['recorded_at', 'timestamp', true],
        ['invocation_id', 'text', true],
        ['command', 'text', true],
    ])) -}}
{% endmacro %}

{#- The row that records `version`, reached from `from_version` (none: a first build). -#}
{% macro schema_version_row_sql(version, from_version) %}
    {%- set relation = rerun_safe.schema_version_relation() -%}
    {%- set sql -%}
        insert into {{ relation }} (schema_version, from_version, recorded_at, invocation_id, command)
        select
            cast({{ version | int }} as bigint),
            cast({{ 'null' if from_version is none else from_version | int }} as bigint),
            {{ rerun_safe.utc_now() }},
            '{{ invocation_id }}',
            {{ rerun_safe.string_literal(flags.WHICH) }}
        where not exists (select 1 from {{ relation }} as recorded where recorded.schema_version >= {{ version | int }})
    {%- endset -%}
    {{- return(sql) -}}
{% endmacro %}
