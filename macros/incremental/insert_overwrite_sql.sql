{#- Incremental strategy `insert_overwrite`: atomically replace every partition present in the
    new rows, as Spark, Databricks and BigQuery do natively. On DuckDB and Postgres it runs in
    this package's incremental materialization (materialization_incremental.sql), inside the model's
    transaction: delete the target rows of the new rows' partitions, insert the new rows.

    Config (the same keys as dbt-spark's native strategy):
    - `partition_by`: the partition column (one column: a name, or a list of one name).
    - `partition_type` (default `date`): the type the partition values are cast to. The
      partitions are rendered as literals, so the delete skips other row groups by zone maps.
    - `partition_keep_rows` (this package only): a predicate on the new rows. Rows failing it
      only mark their partition for replacement and are not inserted (nor kept by a first or
      full build): a model uses it to empty a partition whose last contribution moved away,
      since partition overwrite alone leaves a partition with no new rows in place. -#}
{% macro insert_overwrite_sql(arg_dict) %}
    {{- return(adapter.dispatch('insert_overwrite_sql', 'rerun_safe')(arg_dict)) -}}
{% endmacro %}

{% macro default__insert_overwrite_sql(arg_dict) %}
    {{- return(rerun_safe.delete_and_insert_sql(arg_dict, none, rerun_safe.partition_column(required=true))) -}}
{% endmacro %}
