{#- The stale period of a lease when var rerun_safe_lease_stale_seconds is not set. -#}
{% macro default_lease_stale_seconds() %}{{ return(adapter.dispatch('default_lease_stale_seconds', 'rerun_safe')()) }}{% endmacro %}
{% macro default__default_lease_stale_seconds() %}{{ return(1800) }}{% endmacro %}
{#- Spark with the embedded Derby metastore of profiles.yml: one process at a time, so a lease
    held by another invocation belongs to a run that died (as on DuckDB). -#}
{% macro spark__default_lease_stale_seconds() %}{{ return(0) }}{% endmacro %}
{% macro duckdb__default_lease_stale_seconds() %}
    {#- dbt-duckdb holds the database file, and so DuckDB's one-writer file lock, from a build's
        first query to its end: a run that can read the lease is the only live process on the
        file, so a lease it finds held by another invocation belongs to a run that died. -#}
    {{- return(0) -}}
{% endmacro %}
