{#- Project-level post-hook (dbt_project.yml): on Postgres, create each index of the model's
    config `indexes` that its table lacks (an index on the same columns, in the same order, of
    any name counts). dbt creates them only with the table, so a warehouse built before its model
    listed an index (or a full_refresh=false table, which dbt never re-creates) gets it here,
    once, inside the model's transaction: CREATE INDEX reads the table once and holds a SHARE
    lock until COMMIT (no other build writes meanwhile: the lease). Afterwards one catalog query
    per run. Nothing rendered elsewhere, or when nothing is missing. -#}
{% macro ensure_postgres_indexes() %}
    {{- return(adapter.dispatch('ensure_postgres_indexes', 'rerun_safe')()) -}}
{% endmacro %}

{% macro default__ensure_postgres_indexes() %}
    {{- return('') -}}
{% endmacro %}

{% macro postgres__ensure_postgres_indexes() %}
    {%- set wanted = config.get('indexes') or [] -%}
    {%- if not wanted or not execute -%}{{ return('') }}{%- endif -%}
    {%- set indexed_columns -%}
        select string_agg(attribute.attname, ',' order by key.position) as columns
        from pg_index as index_row
        inner join pg_class as indexed_table on index_row.indrelid = indexed_table.oid
        inner join pg_namespace as table_schema on indexed_table.relnamespace = table_schema.oid
        cross join lateral unnest(index_row.indkey) with ordinality as key (attnum, position)
        inner join pg_attribute as attribute
            on attribute.attrelid = indexed_table.oid and attribute.attnum = key.attnum
        where table_schema.nspname = {{ rerun_safe.string_literal(this.schema) }}
            and indexed_table.relname = {{ rerun_safe.string_literal(this.identifier) }}
        group by index_row.indexrelid
    {%- endset -%}
    {%- set present = run_query(indexed_columns).columns[0].values() | list -%}
    {%- set missing = [] -%}
    {%- for index in wanted if index['columns'] | join(',') not in present -%}
        {%- do missing.append(get_create_index_sql(this, index)) -%}
    {%- endfor -%}
    {{- return(missing | join(';\n')) -}}
{% endmacro %}
