{#- Wait until no model of the holder is in flight (each keeps the row share-locked), so that
    the holder's sign of life is read after its latest commit. -#}
{% macro lock_lease_row() %}{{ return(adapter.dispatch('lock_lease_row', 'rerun_safe')()) }}{% endmacro %}
{% macro default__lock_lease_row() %}{% endmacro %}
{% macro postgres__lock_lease_row() %}
    {%- do run_query("select lease_name from " ~ rerun_safe.lease_relation() ~ " for update") -%}
{% endmacro %}
{#- Spark: no row lock. Behind a Thrift server another session may have rewritten the audit
    tables since this session last listed their files, and a read of that stale listing fails
    (FAILED_READ_FILE.FILE_NOT_EXIST): list them afresh before the lease is taken and read. -#}
{% macro spark__lock_lease_row() %}
    {%- for relation in [rerun_safe.lease_relation(), rerun_safe.run_log_relation(), rerun_safe.runs_relation()] -%}
        {%- if rerun_safe.audit_table_exists(relation.identifier) -%}
            {%- do run_query('refresh table ' ~ relation) -%}
        {%- endif -%}
    {%- endfor -%}
{% endmacro %}
