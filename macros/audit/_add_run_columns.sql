{#- The run registry's lease columns, added when missing (a warehouse from before the lease). -#}
{% macro _add_run_columns() %}{{ return(adapter.dispatch('_add_run_columns', 'rerun_safe')()) }}{% endmacro %}
{#- Spark: no warehouse from before the lease exists there; the columns are added when the
    registry is new (ALTER TABLE ... ADD COLUMNS keeps the partition column last). -#}
{% macro spark___add_run_columns() %}
    {%- set present = run_query('describe table ' ~ rerun_safe.runs_relation()).columns[0].values() | map('lower') | list -%}
    {%- if 'waited_seconds' not in present -%}
        {%- do run_query("alter table " ~ rerun_safe.runs_relation() ~ " add columns (waited_seconds bigint, refused_by string)") -%}
    {%- endif -%}
{% endmacro %}
{% macro default___add_run_columns() %}
    {#- information_schema through run_query: adapter.get_columns_in_relation would open a
        transaction in the hook that nothing commits on DuckDB. -#}
    {%- set present = run_query(
        "select lower(column_name) from information_schema.columns where table_schema = '"
        ~ target.schema | replace("'", "''") ~ "' and table_name = 'rerun_safe_runs'"
    ).columns[0].values() | list -%}
    {%- for name, type in [('waited_seconds', 'bigint'), ('refused_by', 'varchar')] -%}
        {%- if name not in present -%}
            {%- do run_query("alter table " ~ rerun_safe.runs_relation() ~ " add column " ~ name ~ " " ~ type) -%}
        {%- endif -%}
    {%- endfor -%}
{% endmacro %}
