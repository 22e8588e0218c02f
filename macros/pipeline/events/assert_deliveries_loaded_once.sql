{#- A constraint as the last line of defence behind the warehouse lease: a delivery is loaded
    once. A project-level post-hook of stg_landing__events, set in dbt_project.yml, beside
    ensure_unique_staged_rows: a duplicate fails the staging model's transaction before COMMIT.
    docs/architecture.md, "Concurrency", has the measurements.

    Before COMMIT: no delivery file of this run's new rows was already loaded since staging was
    last rebuilt, and the loaded-files list names no delivery twice. As one balance: the list's
    rows since the rebuild = the distinct files among them that this run did not stage (a file
    listed twice makes the left side larger, a file of this run already listed the right side
    smaller). Reads the new rows (zone maps on the literal run number) and the small list
    only. `not exists`, never `not in (subquery)`: Postgres 15 plans NOT IN as a subplan that
    rescans this run's rows for every listed file once they outgrow hash_mem (3,000 files and
    a 1M-row batch: 140 s against 0.18 s), and NOT IN is false for every file once a NULL
    is among the staged ids. In `lookback` mode rows are merged on `_row_id` instead, and files are re-read by
    design: nothing to check here. -#}
{% macro assert_deliveries_loaded_once() %}
    {%- if var('source_window') != 'files' -%}
        select 1 as lookback_mode
    {%- else -%}
        {%- set files = rerun_safe.loaded_files_relation() -%}
        {#- A rebuild (as log_model_run decides it) stages every file afresh: only the list is checked. -#}
        {%- set rebuild = flags.FULL_REFRESH or not rerun_safe.relation_exists(this) -%}
        {%- set listed_since_rebuild -%}
            run_seq >= (
                select coalesce(max(rebuilt.run_seq), 0)
                from {{ rerun_safe.run_log_relation() }} as rebuilt
                where rebuilt.model = '{{ this.identifier }}' and rebuilt.is_full_refresh
            )
        {%- endset -%}
        {%- set listed_and_not_staged_now -%}
            {{ listed_since_rebuild }}
            {%- if not rebuild %}
            and not exists (
                select 1
                from {{ this }} as staged
                where
                    staged._loaded_run_seq = {{ rerun_safe.current_run_seq() }}
                    and staged._file_id = balanced.file_id
            )
            {%- endif %}
        {%- endset -%}
        {{ rerun_safe.assert_balance(
            left=(files, 'count(*)', listed_since_rebuild),
            right=(files, 'count(distinct file_id)', listed_and_not_staged_now),
            message="a delivery file would be staged twice (it is already in rerun_safe_loaded_files since the last rebuild of "
                ~ this.identifier ~ "); nothing of this run is committed. If the warehouse already holds it twice, repair: "
                ~ rerun_safe.staging_repair_command(),
        ) }}
    {%- endif -%}
{% endmacro %}
