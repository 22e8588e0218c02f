{#- Post-hook of the models whose rows later models of the same run select by run stamp
    (`_loaded_run_seq > <progress>`, `_written_run_seq > <progress>`): on Postgres, refresh the
    table's planner statistics before COMMIT. The stamps this run wrote are above every value
    the last ANALYZE saw, so without it the planner estimates one row for "the rows of this
    run" (autovacuum analyzes a minute later at the earliest, after the run), and plans nested
    loops over what are the whole batch's rows: quadratic in the batch (measured with
    bench/postgres.py --explain: 12-20 s of a 5k-event batch on a 15k-event history in one
    quarantined_events query, 2-3 s in fct_revenue_ledger's build). ANALYZE reads a fixed-size
    sample (300 x default_statistics_target rows), so its cost does not grow with the history
    beyond that; it may run inside the transaction. Nothing elsewhere (DuckDB and Spark plan
    these filters from zone maps and partitions). -#}
{% macro analyze_on_postgres() %}
    {{- return(adapter.dispatch('analyze_on_postgres', 'rerun_safe')()) -}}
{% endmacro %}

{% macro default__analyze_on_postgres() %}
    {{- return('') -}}
{% endmacro %}

{% macro postgres__analyze_on_postgres() %}
    {{- return('analyze ' ~ this) -}}
{% endmacro %}
