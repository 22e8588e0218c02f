{#- on-run-end: give the lease back (a no-op for a run that never held it). -#}
{% macro release_lease() %}
    {%- if rerun_safe.writing_command() and rerun_safe.audit_table_exists('rerun_safe_lease') -%}
        {%- do rerun_safe.release_lease_of(invocation_id) -%}
    {%- endif -%}
{% endmacro %}
