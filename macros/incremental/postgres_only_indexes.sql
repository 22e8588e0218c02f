{#- B-tree indexes that exist on Postgres only. A Postgres table is a heap: without an index,
    every key probe and every `stamp > <last run>` filter of an incremental run reads the whole
    history (a sequential scan), where DuckDB skips row groups by their zone maps and Spark reads
    only the partitions named. With one, the probe reads the matching rows (docs/engines.md,
    "Indexes and statistics on PostgreSQL"; bench/postgres.py --explain shows the plans).

    In a model's config: `indexes=rerun_safe.postgres_only_indexes([{'columns': ['event_key']}])`:
    dbt-postgres creates them when it creates the table (a first build, --full-refresh) and
    Postgres keeps them up to date. Elsewhere the list is empty: dbt-duckdb would create them as
    ART indexes (it reads the same config), which DuckDB maintains on every insert and delete at a
    cost that grows with the table and which its planner uses for point lookups only; Spark has
    no indexes. A table built before its model listed an index gets it from
    ensure_postgres_indexes (a post-hook, once). -#}
{% macro postgres_only_indexes(indexes) %}
    {{- return(adapter.dispatch('postgres_only_indexes', 'rerun_safe')(indexes)) -}}
{% endmacro %}

{% macro default__postgres_only_indexes(indexes) %}
    {{- return([]) -}}
{% endmacro %}

{% macro postgres__postgres_only_indexes(indexes) %}
    {{- return(indexes) -}}
{% endmacro %}
