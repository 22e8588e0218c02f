{#- Fault injection for crash tests and the harness: with --vars '{rerun_safe_fail_model: <name>}'
    the named model fails in its last post-hook, after its data and its progress row were
    written and before COMMIT. Nothing of that model may survive; the retry must converge.
    Otherwise it renders nothing, and dbt's run_hooks skips an empty hook: no statement. -#}
{% macro inject_fault() %}
    {%- if var('rerun_safe_fail_model', none) == this.identifier -%}
        {{- rerun_safe.check_now("select " ~ rerun_safe.raise_error('rerun_safe: injected fault in ' ~ this.identifier) ~ " as injected_fault") -}}
    {%- endif -%}
{% endmacro %}
