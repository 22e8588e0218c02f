{#- The sequence number start_run gave this invocation. Rendered as a literal when the run row
    exists, so that filters like `_loaded_run_seq = <n>` prune by zone maps (a scalar
    subquery would not). Without a run row (dbt compile, dbt show, linting) it renders an
    expression that fails if executed: stamping rows with null would hide them from every
    downstream model. -#}
{% macro current_run_seq() %}
    {%- set runs = rerun_safe.runs_relation() -%}
    {%- if execute and load_relation(runs) is not none -%}
        {%- set found = run_query("select run_seq from " ~ runs ~ " where invocation_id = '" ~ invocation_id ~ "'") -%}
        {%- if found.rows | length == 1 -%}
            {{- return("cast(" ~ found.rows[0][0] ~ " as bigint)") -}}
        {%- endif -%}
    {%- endif -%}
    {{- return(
        "coalesce((select run_seq from " ~ runs ~ " where invocation_id = '" ~ invocation_id ~ "'), "
        ~ rerun_safe.raise_error("rerun_safe: this invocation has no run row; build with dbt run or dbt build") ~ ")"
    ) -}}
{% endmacro %}
