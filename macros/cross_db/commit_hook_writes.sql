{#- Commit what an on-run-start / on-run-end hook wrote with run_query. dbt-duckdb commits
    those statements itself. dbt-postgres runs them (auto_begin=false) in psycopg2's implicit
    transaction, which dbt does not track, so adapter.commit() refuses ("no transaction open")
    and the rows would never commit: send COMMIT on the connection instead. -#}
{% macro commit_hook_writes() %}{{ return(adapter.dispatch('commit_hook_writes', 'rerun_safe')()) }}{% endmacro %}
{% macro default__commit_hook_writes() %}{% endmacro %}
{% macro postgres__commit_hook_writes() %}
    {%- do run_query('commit') -%}
{% endmacro %}
