{#- A partition column that exists on Spark only. On DuckDB and Postgres the keyed models need
    no partition to bound their write (a delete by key in one transaction), and their tables keep
    exactly the contract's columns; on Spark (parquet: no DELETE) a keyed model rewrites whole
    partitions, so without one it would rewrite the whole table on every run.

    In a model's config: `partition_by=rerun_safe.spark_only_partition_by('first_event_date')`
    (none elsewhere); on a line of its own before another column of the select:
    `{{ rerun_safe.spark_only_partition_column('cast(t.first_event_time as date)', 'first_event_date') }}`
    (renders `<expression> as <name>,` on Spark, nothing elsewhere; Spark stores a partition
    column last whatever its place in the select). -#}
{% macro spark_only_partition_by(column) %}
    {{- return(adapter.dispatch('spark_only_partition_by', 'rerun_safe')(column)) -}}
{% endmacro %}

{% macro default__spark_only_partition_by(column) %}
    {{- return(none) -}}
{% endmacro %}

{% macro spark__spark_only_partition_by(column) %}
    {{- return(column) -}}
{% endmacro %}
