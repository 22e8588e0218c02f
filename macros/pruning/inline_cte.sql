{#- The hint that keeps an import CTE inlined. DuckDB (and Postgres) materialize a CTE that is
    referenced more than once: for `staged as (select * from <30M-row table>)` that means
    copying every column of every row before any filter applies (measured: 3.4 s and 2.7 GB
    for 2.7M staged rows), instead of scanning only the rows and columns each reference needs.
    Usage: `staged as {{ rerun_safe.inline_cte() }} (select * from ...)`. -#}
{% macro inline_cte() %}{{ return(adapter.dispatch('inline_cte', 'rerun_safe')()) }}{% endmacro %}
{% macro default__inline_cte() %}{{ return('') }}{% endmacro %}
{% macro duckdb__inline_cte() %}{{ return('not materialized') }}{% endmacro %}
{% macro postgres__inline_cte() %}{{ return('not materialized') }}{% endmacro %}
