{#- Incremental strategy `replace_keys` (this package's materialization_incremental.sql runs it): delete+insert
    on `unique_key`. With config `partition_by` (one column; `partition_type` as in
    insert_overwrite), the delete is restricted to the partitions present in the new rows,
    rendered as literals so the delete skips row groups by zone maps instead of probing the
    whole table by key.

    Exact only for models whose new rows, for each key, cover every partition the key's old
    rows lie on. int_event_copies_classified is one: a copy is never dropped, and its identity
    (event_id, version, payload) fixes its revenue_date, so every old copy of a touched event
    comes back, on the same day, among the new rows.

    Optional config `partition_keep_rows`, as in insert_overwrite: new rows failing it only
    mark their key and day for deletion and are not inserted.

    Config `partition_of_key_may_change=true` lifts that condition: the delete is by key alone
    here (on Spark, the partitions of the keys' old rows are rewritten too). -#}
{% macro replace_keys_sql(arg_dict) %}
    {{- return(adapter.dispatch('replace_keys_sql', 'rerun_safe')(arg_dict)) -}}
{% endmacro %}

{% macro default__replace_keys_sql(arg_dict) %}
    {%- set partition_column = none if config.get('partition_of_key_may_change', false) else rerun_safe.partition_column() -%}
    {{- return(rerun_safe.delete_and_insert_sql(arg_dict, config.require('unique_key'), partition_column)) -}}
{% endmacro %}
