{#- Post-hooks of staging, in its transaction, before the conservation check: a delivery that
    changed between its inspection (stg_landing__deliveries) and staging's read is not loaded.
    Staging reads the file by its path, so the rows it read may come from other bytes than the
    ones inspected and hashed into the delivery's identity. After the read, each delivery this
    run was to stage is compared with the file now:

    - its stat (size, modification and change times, inode, kind) differs from the one listed
      with the verdict, or the file is gone: changed. Any write after the inspection moves the
      change time, which copying tools cannot set back;
    - the stat is the same but the inspection started within 2 s of the change time (a write in
      the same clock tick could hide, the rule of stg_landing__deliveries): the file is hashed
      again, and another MD5 is a change.

    A changed delivery's verdict becomes `rejected` with reason `changed_while_read` (its rows of
    this run are then removed by drop_rows_of_changed_deliveries, and record_loaded_files skips
    it), so it is neither loaded nor owed: the next run lists the file with another stat,
    inspects it again and loads what it then holds, as a delivery of its own (the same bytes
    again are the same identity, whose verdict is replaced by the new one). The other
    deliveries of the run load.

    The same holds for a delivery accepted by an earlier run, never loaded (its run failed, or
    staging's reader failed on the changed bytes), whose name is listed now with other bytes:
    it changed before staging could read it, so it is superseded by what the file holds now
    (deliveries_to_stage does not count it as owed). A delivery gone with its name is still
    owed, and named. Spark: not checked (an empty hook, which dbt skips). -#}
{% macro mark_changed_deliveries(deliveries) %}
    {{- return(adapter.dispatch('mark_changed_deliveries', 'rerun_safe')(deliveries)) -}}
{% endmacro %}

{% macro default__mark_changed_deliveries(deliveries) %}{% endmacro %}

{% macro duckdb__mark_changed_deliveries(deliveries) %}
    {{- rerun_safe.mark_changed_deliveries_sql(deliveries, 'rerun_safe_content_md5(candidate.path)') -}}
{% endmacro %}

{% macro postgres__mark_changed_deliveries(deliveries) %}
    {{- rerun_safe.mark_changed_deliveries_sql(deliveries, 'md5(pg_read_binary_file(candidate.path))') -}}
{% endmacro %}

{#- md5_now: an SQL expression of `candidate.path`, the MD5 of the file's bytes now. -#}
{% macro mark_changed_deliveries_sql(deliveries, md5_now) %}
    update {{ deliveries }}
    set
        status = 'rejected',
        reason = 'changed_while_read',
        first_error = 'the file changed between its inspection and staging''s read: nothing of it staged; judged again in the next run',
        header_columns = null,
        records = null
    where file_id in (
        select candidate.file_id
        from {{ deliveries }} as candidate
        left join ({{ rerun_safe.list_landing(rerun_safe.landing_path()) }}) as listed
            on candidate.file_name = listed.file_name
        where
            candidate.status = 'accepted'
            and candidate.records > 0
            and (
                (
                    candidate.last_seen_run_seq < {{ rerun_safe.current_run_seq() }}
                    and candidate.file_id not in (select loaded.file_id from {{ rerun_safe.loaded_files_relation() }} as loaded)
                    and exists (
                        select 1 from {{ deliveries }} as present
                        where
                            present.file_name = candidate.file_name
                            and present.last_seen_run_seq = {{ rerun_safe.current_run_seq() }}
                    )
                )
                or (
                    candidate.last_seen_run_seq = {{ rerun_safe.current_run_seq() }}
                    and (
                        candidate.file_id in (
                            select staged._file_id from {{ this }} as staged
                            where staged._loaded_run_seq = {{ rerun_safe.current_run_seq() }}
                        )
                        or candidate.file_id not in ({{ rerun_safe.loaded_file_ids_sql(this) }})
                    )
                    and {{ rerun_safe.changed_since_inspection(md5_now) }}
                )
            )
    )
{% endmacro %}

{#- True when the file of `candidate` is not the one its verdict describes any more, by the
    stat listed now (`listed`), else, within the 2-second rule, by its MD5 now. -#}
{% macro changed_since_inspection(md5_now) %}
            case
                when listed.file_name is null then true
                when
                    listed.size != candidate.size
                    or listed.mtime_ns != candidate.mtime_ns
                    or coalesce(listed.ctime_ns, -1) != coalesce(candidate.ctime_ns, -1)
                    or coalesce(listed.inode, -1) != coalesce(candidate.inode, -1)
                    or listed.kind != candidate.kind
                    then true
                when coalesce(candidate.inspected_at_ns > candidate.ctime_ns + 2000000000, false) then false
                else coalesce({{ md5_now }} != candidate.content_md5, true)
            end
{% endmacro %}
