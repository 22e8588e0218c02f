{#- How long a lease holder may show no sign of life before its lease is taken over. -#}
{% macro lease_stale_seconds() %}
    {{- return(rerun_safe.whole_number_var(
        'rerun_safe_lease_stale_seconds', 0, 604800, rerun_safe.default_lease_stale_seconds()
    )) -}}
{% endmacro %}
