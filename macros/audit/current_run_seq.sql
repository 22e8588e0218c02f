{#- This invocation's run sequence number (run_seq_or_none) as SQL. Rendered as a literal when the run row exists, so that filters like
    `_loaded_run_seq = <n>` prune by zone maps (a scalar subquery would not). Without a run
    row it renders an expression that fails if executed: stamping rows with null would hide
    them from every downstream model. -#}
{% macro current_run_seq() %}
    {%- set run_seq = rerun_safe.run_seq_or_none() -%}
    {%- if run_seq is not none -%}
        {{- return("cast(" ~ run_seq ~ " as bigint)") -}}
    {%- endif -%}
    {{- return(
        "coalesce((select run_seq from " ~ rerun_safe.runs_relation() ~ " where invocation_id = '" ~ invocation_id ~ "'), "
        ~ rerun_safe.raise_error("rerun_safe: this invocation has no run row; build with dbt run or dbt build") ~ ")"
    ) -}}
{% endmacro %}
