{#- A model's progress: the highest run sequence number it committed. The run-log row that
    records it is written by the model's own post-hook, inside the model's transaction, so the
    progress can never run ahead of (or fall behind) the data. -#}
{% macro last_committed_seq(model_name=none) %}
    {%- set name = model_name or this.identifier -%}
    {{- return(
        "(select coalesce(max(run_seq), 0) from " ~ rerun_safe.run_log_relation()
        ~ " where model = '" ~ name ~ "')"
    ) -}}
{% endmacro %}
