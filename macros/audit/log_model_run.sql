{#- Post-hook (inside the model's transaction): record that this model committed this run,
    with its metrics, each a SQL scalar expression evaluated against the data just written.
    This row is the model's progress marker (last_committed_seq). -#}
{% macro log_model_run(metrics={}) %}
    insert into {{ rerun_safe.run_log_relation() }}
    select
        {{ rerun_safe.current_run_seq() }},
        '{{ invocation_id }}',
        '{{ this.identifier }}',
        {{ 'true' if (flags.FULL_REFRESH or not rerun_safe.relation_exists(this)) else 'false' }},
        {{ rerun_safe.utc_now() }},
        {{ rerun_safe.json_object(metrics) }}
{% endmacro %}
