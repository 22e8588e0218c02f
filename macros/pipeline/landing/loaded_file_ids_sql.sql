{#- The file ids staging has loaded since its last rebuild: a delivery among them is not owed. -#}
{% macro loaded_file_ids_sql(target) %}
    {%- set rebuild = rerun_safe.last_rebuild_seq(target.identifier) if execute else 0 -%}
    select files.file_id from {{ rerun_safe.loaded_files_relation() }} as files
    where files.run_seq >= {{ rebuild }}
{% endmacro %}
