{#- The sequence number start_run gave this invocation, as a scalar subquery. A build that
    skipped on-run-start (dbt compile, dbt show) has none, and stamping rows with null would
    hide them from every downstream model: fail loudly instead. -#}
{% macro current_run_seq() %}
    {{- return(
        "coalesce((select run_seq from " ~ rerun_safe.runs_relation()
        ~ " where invocation_id = '" ~ invocation_id ~ "'), "
        ~ rerun_safe.raise_error("rerun_safe: this invocation has no run row; build with dbt run or dbt build") ~ ")"
    ) -}}
{% endmacro %}
