{#- The last run that rebuilt `model_name` from scratch (0 if none), from the run log. -#}
{% macro last_rebuild_seq(model_name) %}
    {%- set found = run_query(
        "select coalesce(max(run_seq), 0) from " ~ rerun_safe.run_log_relation()
        ~ " where model = '" ~ model_name ~ "' and is_full_refresh"
    ) -%}
    {{- return(found.rows[0][0] | int) -}}
{% endmacro %}
