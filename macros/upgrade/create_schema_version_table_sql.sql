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
