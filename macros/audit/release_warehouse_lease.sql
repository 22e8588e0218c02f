{#- By hand, for a holder that is certainly dead (a killed scheduler, a lost machine):
        dbt run-operation release_warehouse_lease --args '{invocation_id: <id from the error>}'
    Releases only if that invocation still holds the lease, and records it in the run log. -#}
{% macro release_warehouse_lease(invocation_id) %}
    {%- set holder = invocation_id | string -%}
    {%- if not modules.re.fullmatch('[0-9a-fA-F-]{1,64}', holder) -%}
        {{- exceptions.raise_compiler_error("rerun_safe: invocation_id must be a dbt invocation id, got " ~ holder[:70]) -}}
    {%- endif -%}
    {%- set lease = rerun_safe.lease_relation() -%}
    {%- if not rerun_safe.audit_table_exists('rerun_safe_lease') -%}
        {{- exceptions.raise_compiler_error("rerun_safe: no " ~ lease ~ " table: nothing to release") -}}
    {%- endif -%}
    {%- set current = run_query("select holder_invocation_id from " ~ lease).rows -%}
    {%- if current | length == 0 or current[0][0] != holder -%}
        {{- log("rerun_safe: " ~ holder ~ " does not hold the lease (holder: " ~ (current[0][0] if current else none) ~ "); nothing released", info=true) -}}
    {%- else -%}
        {%- do rerun_safe.release_lease_of(holder) -%}
        {%- do run_query(rerun_safe.update_rows_sql(
            rerun_safe.runs_relation(),
            [['status', "'failed'"], ['finished_at', rerun_safe.utc_now()]],
            "invocation_id = '" ~ holder ~ "' and status = 'started'",
        )) -%}
        {%- do rerun_safe.commit_hook_writes() -%}
        {{- log("rerun_safe: released the warehouse lease held by " ~ holder, info=true) -}}
    {%- endif -%}
{% endmacro %}
