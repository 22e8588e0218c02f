{#- The delivery files staging has loaded, kept in the small audit table
    rerun_safe_loaded_files (file_id, run_seq) so that listing the new files does not scan the
    file id of every staged row (measured: 1.5 s at 13M staged rows, growing with history).

    record_loaded_files() is a post-hook of the staging model: it runs inside the model's
    transaction, so the list commits with the rows or not at all. Entries older than the last
    rebuild of staging (--full-refresh restamps every row) are ignored. When the list does not
    cover the table (the first build, a rebuild, a warehouse from before this table existed),
    the hook records every file of the table and the listing falls back to the table itself. -#}

{#- True when rerun_safe_loaded_files lists every file loaded into `target` since its last
    rebuild (run `rebuild`, from last_rebuild_seq). -#}
{% macro loaded_files_in_sync(target, rebuild) %}
    {%- if not execute or load_relation(rerun_safe.loaded_files_relation()) is none -%}
        {{- return(false) -}}
    {%- endif -%}
    {%- set found = run_query(
        "select count(*) from " ~ rerun_safe.loaded_files_relation() ~ " where run_seq >= " ~ rebuild
    ) -%}
    {{- return(found.rows[0][0] | int > 0) -}}
{% endmacro %}

{% macro loaded_file_ids_sql(target) %}
    {%- set rebuild = rerun_safe.last_rebuild_seq(target.identifier) if execute else 0 -%}
    {%- if rerun_safe.loaded_files_in_sync(target, rebuild) -%}
        select files.file_id from {{ rerun_safe.loaded_files_relation() }} as files
        where files.run_seq >= {{ rebuild }}
    {%- else -%}
        select distinct loaded._file_id from {{ target }} as loaded
    {%- endif -%}
{% endmacro %}

{% macro record_loaded_files() %}
    insert into {{ rerun_safe.loaded_files_relation() }}
    select distinct loaded._file_id, loaded._loaded_run_seq
    from {{ this }} as loaded
    {%- if rerun_safe.loaded_files_in_sync(this, rerun_safe.last_rebuild_seq(this.identifier) if execute else 0) %}
    where loaded._loaded_run_seq = {{ rerun_safe.current_run_seq() }}
    {%- endif %}
{% endmacro %}
