{#- The vars the audit family reads (validate_run_vars checks their values). -#}
{% macro run_var_names() %}
    {{- return(['rerun_safe_fail_model', 'rerun_safe_lease_stale_seconds', 'rerun_safe_lock_timeout_seconds', 'rerun_safe_now']) -}}
{% endmacro %}
