{#- A constraint as the last line of defence behind the warehouse lease: a staged row is unique
    per delivery and record (`_row_id`). A project-level post-hook of stg_landing__events, set
    in dbt_project.yml (project-level post-hooks run after the strategy's write and before the
    model's own post-hooks), beside assert_deliveries_loaded_once. docs/architecture.md,
    "Concurrency", has the measurements.

    A unique index on `_row_id` where the adapter has cheap ones (Postgres). -#}
{% macro ensure_unique_staged_rows() %}{{ return(adapter.dispatch('ensure_unique_staged_rows', 'rerun_safe')()) }}{% endmacro %}
{% macro default__ensure_unique_staged_rows() %}
    {#- DuckDB: one writer process per file, and the lease, already serialise every build; a
        unique ART index or a per-run probe of every staged _row_id costs time proportional to
        history (measured in docs/architecture.md). assert_deliveries_loaded_once covers the
        way duplicates arise (a delivery loaded twice) at the cost of the batch. Nothing
        rendered: dbt skips an empty hook. -#}
{% endmacro %}
{% macro postgres__ensure_unique_staged_rows() %}
    {#- Rendered inside the model's transaction, after a full refresh's swap, so the query sees
        the table just written. dbt renames the replaced table to __dbt_backup with its index
        and drops it after COMMIT: a new index gets a name of its own. -#}
    {%- set unique_index_count -%}
        select count(*)
        from pg_indexes
        where
            schemaname = '{{ this.schema }}'
            and tablename = '{{ this.identifier }}'
            and indexdef like 'CREATE UNIQUE INDEX % (_row_id)'
    {%- endset -%}
    {%- set found = run_query(unique_index_count) if execute else none -%}
    {%- if found is none or found.rows[0][0] | int > 0 -%}
        select 1 as unique_index_present
    {%- else -%}
        {%- set duplicated_row_ids -%}
            select count(*)
            from (
                select staged._row_id
                from {{ this }} as staged
                group by staged._row_id
                having count(*) > 1
            ) as duplicated
        {%- endset -%}
        {%- set duplicated = run_query(duplicated_row_ids).rows[0][0] | int -%}
        {%- if duplicated > 0 -%}
            {{- exceptions.raise_compiler_error(
                "rerun_safe: the warehouse is inconsistent: " ~ this.identifier ~ " holds " ~ duplicated
                ~ " _row_id values more than once (a delivery staged twice, e.g. by two runs at once before the "
                ~ "warehouse lease). Repair: " ~ rerun_safe.staging_repair_command()
            ) -}}
        {%- endif -%}
        create unique index {{ this.identifier }}_row_id_uq_{{ local_md5(invocation_id)[:10] }} on {{ this }} (_row_id)
    {%- endif -%}
{% endmacro %}
