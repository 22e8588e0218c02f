{#- The vars the audit family reads (begin_run validates them before its first write). -#}
{% macro validate_run_vars() %}
    {%- do rerun_safe.lock_timeout_seconds() -%}
    {%- do rerun_safe.lease_stale_seconds() -%}
    {%- set fail_model = var('rerun_safe_fail_model', none) -%}
    {%- if fail_model is not none and fail_model is not string -%}
        {{- rerun_safe.config_error('rerun_safe_fail_model', 'a model name', fail_model) -}}
    {%- endif -%}
    {%- do rerun_safe.run_clock_override() -%}
{% endmacro %}
