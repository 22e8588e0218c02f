{#- on-run-end: write what the run committed into the warehouse file, once, at the end. DuckDB
    checkpoints on its own when its write-ahead log passes checkpoint_threshold, inside
    whichever COMMIT crosses it (a model's, at random), and again when the last connection
    closes; with the profile's threshold above one run's log, the run's one checkpoint is this
    statement, and a successful run leaves a file that holds everything without its .wal.
    Postgres and Spark manage their own storage: nothing. -#}
{% macro checkpoint_warehouse() %}{{ return(adapter.dispatch('checkpoint_warehouse', 'rerun_safe')()) }}{% endmacro %}
{% macro default__checkpoint_warehouse() %}{% endmacro %}
{% macro duckdb__checkpoint_warehouse() %}
    {%- if rerun_safe.writing_command() -%}
        {%- do run_query('checkpoint') -%}
    {%- endif -%}
{% endmacro %}
