{#- Constraints as the last line of defence behind the warehouse lease: a staged row is unique
    per delivery and record (`_row_id`), and a delivery is loaded once. A duplicate fails the
    staging model's transaction before COMMIT. Post-hooks of stg_landing__events, set in
    dbt_project.yml (project-level post-hooks run after the strategy's write and before the
    model's own post-hooks). docs/architecture.md, "Concurrency", has the measurements. -#}

{#- The command that rebuilds staging from the landing folder, and everything downstream of it,
    keeping the correction log and the ledger history (both full_refresh=false). -#}
{% macro staging_repair_command() %}
    {{- return("dbt build --full-refresh --select stg_landing__deliveries+ (with the scheduled build's --vars and --target)") -}}
{% endmacro %}

{#- A unique index on `_row_id` where the adapter has cheap ones (Postgres). -#}
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
    {%- set found = run_query(
        "select count(*) from pg_indexes where schemaname = '" ~ this.schema ~ "' and tablename = '"
        ~ this.identifier ~ "' and indexdef like 'CREATE UNIQUE INDEX % (_row_id)'"
    ) if execute else none -%}
    {%- if found is none or found.rows[0][0] | int > 0 -%}
        select 1 as unique_index_present
    {%- else -%}
        {%- set duplicated = run_query(
            "select count(*) from (select _row_id from " ~ this ~ " group by _row_id having count(*) > 1) as d"
        ).rows[0][0] | int -%}
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

{#- Before COMMIT: no delivery file of this run's new rows was already loaded since staging was
    last rebuilt, and the loaded-files list names no delivery twice. Reads the new rows (zone
    maps on the literal run number) and the small list only. In `lookback` mode rows are merged
    on `_row_id` instead, and files are re-read by design: nothing to check here. -#}
{% macro assert_deliveries_loaded_once() %}
    {%- if var('source_window') != 'files' -%}
        select 1 as lookback_mode
    {%- else -%}
        {%- set files = rerun_safe.loaded_files_relation() -%}
        {%- set generation = "(select coalesce(max(rebuilt.run_seq), 0) from " ~ rerun_safe.run_log_relation()
            ~ " as rebuilt where rebuilt.model = '" ~ this.identifier ~ "' and rebuilt.is_full_refresh)" -%}
        {#- A rebuild (as log_model_run decides it) stages every file afresh: only the list is checked. -#}
        {%- set rebuild = flags.FULL_REFRESH or not rerun_safe.relation_exists(this) -%}
        {%- set listed_twice = "not exists (select 1 from " ~ files ~ " as listed where listed.run_seq >= "
            ~ generation ~ " group by listed.file_id having count(*) > 1)" -%}
        {%- set staged_again = "not exists (select 1 from " ~ files ~ " as listed where listed.run_seq >= " ~ generation
            ~ " and listed.file_id in (select staged._file_id from " ~ this ~ " as staged where staged._loaded_run_seq = "
            ~ rerun_safe.current_run_seq() ~ "))" -%}
        {{ rerun_safe.assert_balance(
            listed_twice if rebuild else listed_twice ~ " and " ~ staged_again,
            "a delivery file would be staged twice (it is already in rerun_safe_loaded_files since the last rebuild of "
            ~ this.identifier ~ "); nothing of this run is committed. If the warehouse already holds it twice, repair: "
            ~ rerun_safe.staging_repair_command()
        ) }}
    {%- endif -%}
{% endmacro %}
