{% macro release_lease_of(holder) %}
    {%- set found = run_query(rerun_safe.update_rows_sql(
        rerun_safe.lease_relation(),
        [['holder_invocation_id', 'cast(null as ' ~ rerun_safe.text_type() ~ ')'], ['released_at', rerun_safe.utc_now()]],
        "holder_invocation_id = '" ~ holder | replace("'", "''") ~ "'",
    )) -%}
    {%- do rerun_safe.commit_hook_writes() -%}
{% endmacro %}
