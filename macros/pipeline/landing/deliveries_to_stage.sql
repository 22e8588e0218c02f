{#- At compile time: the accepted deliveries staging must read now, as dicts (file_id,
    file_name, path, header), sorted by name. Only deliveries present in this run's listing
    are read. Stops with the file names and the way out when deliveries that must be read are
    gone from the landing folder: loaded ones before a full refresh (it would silently shrink
    the published history), or accepted ones never loaded completely whose name is gone too
    (a name listed with other bytes was rewritten before it was loaded: superseded, see
    mark_changed_deliveries.sql). -#}
{% macro deliveries_to_stage(deliveries, target) %}
    {#- outside a run (compile, show, lint) there is no listing of this run to read -#}
    {%- set current = rerun_safe.run_seq_or_none() -%}
    {%- if current is none -%}{{ return([]) }}{%- endif -%}
    {%- set listed_now = run_query(
        "select count(*) from " ~ rerun_safe.run_log_relation() ~ " where model = 'stg_landing__deliveries' and run_seq = " ~ current
    ).rows[0][0] -%}
    {%- if listed_now | int == 0 -%}
        {{ exceptions.raise_compiler_error(
            "rerun_safe: stg_landing__deliveries did not run in this invocation, so the deliveries present now are unknown;"
            ~ " select it too, e.g. dbt build --select stg_landing__deliveries+"
        ) }}
    {%- endif -%}
    {%- set rebuild = rerun_safe.last_rebuild_seq(target.identifier) -%}
    {%- set incremental = is_incremental() -%}
    {%- set missing_sql -%}
        {%- if incremental %}
        select delivery.file_name
        from {{ deliveries }} as delivery
        where
            delivery.status = 'accepted'
            and delivery.records > 0
            and delivery.last_seen_run_seq >= {{ rebuild }}
            and delivery.last_seen_run_seq < {{ current }}
            and delivery.file_id not in ({{ rerun_safe.loaded_file_ids_sql(target) }})
            {#- a name listed now with other bytes: rewritten before it was loaded, so superseded
                (mark_changed_deliveries records it as changed_while_read), not owed -#}
            and not exists (
                select 1 from {{ deliveries }} as present
                where present.file_name = delivery.file_name and present.last_seen_run_seq = {{ current }}
            )
        {%- else %}
        {#- a name still listed with other bytes: the file was rewritten, and its earlier
            content (a delivery of its own) is what a rebuild can no longer read #}
        select
            coalesce(delivery.file_name, loaded.file_id)
            || case
                when exists (
                    select 1 from {{ deliveries }} as present
                    where present.file_name = delivery.file_name and present.last_seen_run_seq = {{ current }}
                ) then ' (rewritten since: its earlier content)'
                else ''
            end
        from {{ rerun_safe.loaded_files_relation() }} as loaded
        left join {{ deliveries }} as delivery on loaded.file_id = delivery.file_id
        where
            loaded.run_seq >= {{ rebuild }}
            and (delivery.file_id is null or delivery.last_seen_run_seq < {{ current }})
        {%- endif %}
        order by 1
    {%- endset -%}
    {%- set missing = run_query(missing_sql).columns[0].values() | list -%}
    {%- if missing and not rerun_safe.flag_var('accept_missing_deliveries') -%}
        {{ exceptions.raise_compiler_error(
            "rerun_safe: " ~ (missing | length) ~ " deliver" ~ ('y' if missing | length == 1 else 'ies') ~ " that "
            ~ ("a full refresh would re-read " if not incremental else "must still be staged ")
            ~ "are no longer in the landing folder (var landing_path): " ~ (missing[:10] | join(', '))
            ~ (' ...' if missing | length > 10 else '')
            ~ ". Put them back, or rerun with --vars '{accept_missing_deliveries: true}' to "
            ~ ("publish without them" if not incremental else "skip them")
        ) }}
    {%- endif -%}
    {%- set files_sql -%}
        select delivery.file_id, delivery.file_name, delivery.path, delivery.header_columns, delivery.first_seen_run_seq
        from {{ deliveries }} as delivery
        where
            delivery.status = 'accepted'
            and delivery.records > 0
            and delivery.last_seen_run_seq = {{ current }}
            {%- if incremental %}
            and delivery.file_id not in ({{ rerun_safe.loaded_file_ids_sql(target) }})
            {%- endif %}
        order by delivery.file_name, delivery.file_id
    {%- endset -%}
    {%- set files = [] -%}
    {%- for row in run_query(files_sql).rows -%}
        {%- do files.append({'file_id': row[0], 'file_name': row[1], 'path': row[2], 'header': row[3], 'first_seen_run_seq': row[4]}) -%}
    {%- endfor -%}
    {{- return(files) -}}
{% endmacro %}
