{#- One row per delivery ever seen in the landing folder: its identity (name + content MD5),
    its verdict (accepted, or rejected whole with a reason and the first error) and when it
    was first and last seen. Staging loads the accepted deliveries present in this run;
    rejected ones stay visible here and are tried again when their content changes (a new
    identity). full_refresh=false: this is the record of what landed, which a rebuild of
    the models must not forget (it is how a full refresh knows a loaded file was archived).

    A file is read and hashed only when it is new or its stat changed: a listed file whose
    name, size, modification and change times and inode equal a recorded inspection reuses
    that verdict. The change time (ctime) cannot be set by cp -p or rsync -t, so any rewrite
    of the content changes it; an inspection that started less than 2 s after the recorded
    ctime is not trusted (a write in the same clock tick could hide), as git does for its
    index. -#}
{{
    config(
        incremental_strategy='replace_keys',
        unique_key='file_id',
        indexes=rerun_safe.postgres_only_indexes([
            {'columns': ['file_id']},
        ]),
        full_refresh=false,
        meta={'rerun_safe': {
            'volatile_columns': ['first_seen_run_seq', 'last_seen_run_seq', 'path', 'mtime_ns', 'ctime_ns', 'inode', 'inspected_at_ns'],
            'records_deliveries': true,
            'reads_file_layout': true,
        }},
        pre_hook=["{{ rerun_safe.prepare_landing_reader() }}"],
        post_hook=[
            "{{ rerun_safe.log_model_run(
                this_run={
                    'last_seen_run_seq': {'files_listed': ('count', '*')},
                    'first_seen_run_seq': {
                        'files_new': ('count', '*'),
                        'files_rejected': ('count', '*', \"status = 'rejected'\"),
                    },
                },
                all_rows={'files_rejected_total': ('count', '*', \"status = 'rejected'\")},
            ) }}",
        ],
    )
}}
-- depends_on: {{ source('landing', 'deliveries') }}

with

listed as (
    {{ rerun_safe.list_landing(rerun_safe.landing_path()) }}
),

{%- if is_incremental() %}

known as (
    select * from {{ this }}
),

reused as (
    {#- the latest trusted inspection whose stat equals the listed file's -#}
    select
        listed.file_name,
        listed.path,
        listed.size,
        listed.mtime_ns,
        listed.ctime_ns,
        listed.inode,
        listed.kind,
        known.content_md5,
        known.reason,
        known.first_error,
        known.header_columns,
        known.records,
        known.inspected_at_ns
    from listed
    inner join known
        on
            listed.file_name = known.file_name
            and listed.size = known.size
            and listed.mtime_ns = known.mtime_ns
            and listed.ctime_ns = known.ctime_ns
            and listed.kind = known.kind
            and coalesce(listed.inode, -1) = coalesce(known.inode, -1)
            and known.inspected_at_ns > known.ctime_ns + 2000000000
),

to_inspect as (
    select listed.*
    from listed
    where not exists (
        select 1 from reused
        where reused.file_name = listed.file_name
    )
),

{%- else %}

to_inspect as (
    select listed.* from listed
),

{%- endif %}

inspected as (
    {{ rerun_safe.inspect_deliveries('to_inspect') }}
),

judged as (
    select * from inspected
    {%- if is_incremental() %}
    union all
    select * from reused
    {%- endif %}
),

identified as (
    select
        judged.*,
        md5(judged.file_name || ':' || coalesce(judged.content_md5, judged.kind)) as file_id
    from judged
),

final as (
    select
        identified.file_id,
        identified.file_name,
        identified.path,
        case when identified.reason is null then 'accepted' else 'rejected' end as status,
        identified.reason,
        identified.first_error,
        identified.header_columns,
        identified.records,
        identified.size,
        identified.content_md5,
        identified.mtime_ns,
        identified.ctime_ns,
        identified.inode,
        identified.kind,
        identified.inspected_at_ns,
        {%- if is_incremental() %}
        coalesce(
            (
                select min(known.first_seen_run_seq) from known
                where known.file_id = identified.file_id
            ),
            {{ rerun_safe.current_run_seq() }}
        ) as first_seen_run_seq,
        {%- else %}
        {{ rerun_safe.current_run_seq() }} as first_seen_run_seq,
        {%- endif %}
        {{ rerun_safe.current_run_seq() }} as last_seen_run_seq
    from identified
)

select * from final
