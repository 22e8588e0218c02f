{#- How long a run waits for the warehouse lease before it gives up (0: give up at once). -#}
{% macro lock_timeout_seconds() %}
    {{- return(rerun_safe.whole_number_var('rerun_safe_lock_timeout_seconds', 0, 86400, 3600)) -}}
{% endmacro %}
