{#- The upgrade's one transaction: an explicit BEGIN ... COMMIT on the operation's connection,
    on DuckDB and on Postgres too (measured: there every run_query of a run-operation commits on
    its own, each its own transaction id, so without BEGIN a failed step would leave the steps
    before it). Spark has no transactions: each step is one statement and the version row is
    written last, so an upgrade stopped midway runs again. -#}
{% macro _begin_upgrade_transaction() %}{{ return(adapter.dispatch('_begin_upgrade_transaction', 'rerun_safe')()) }}{% endmacro %}
{% macro default___begin_upgrade_transaction() %}
    {%- do run_query('begin transaction') -%}
{% endmacro %}
{% macro spark___begin_upgrade_transaction() %}{% endmacro %}
