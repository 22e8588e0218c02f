{% macro list_landing(folder) %}
    {{- return(adapter.dispatch('list_landing', 'rerun_safe')(folder)) -}}
{% endmacro %}

{% macro default__list_landing(folder) %}
    {{- exceptions.raise_compiler_error("rerun_safe: no landing reader for adapter " ~ adapter.type()) -}}
{% endmacro %}

{% macro duckdb__list_landing(folder) %}
    {#- why: DuckDB's glob never lists a name with a backslash and cannot tell a symlink from a
        file; the rerun_safe_duckdb plugin (profiles.yml) lists with os.scandir. -#}
    select unnest(listed.entry)
    from (select unnest(rerun_safe_list_landing({{ rerun_safe.string_literal(folder) }})) as entry) as listed
{% endmacro %}

{% macro postgres__list_landing(folder) %}
    {#- why: the server lists the folder itself (pg_ls_dir, pg_stat_file: superuser or
        pg_read_server_files), so listing and reading see the same files. pg_stat_file follows
        symlinks and has no inode: kind is `file` or `other` (a folder); times are whole seconds.
        Relative paths would resolve against the server's data directory: refused.
        pg_ls_dir returns a name that is not UTF-8 as is, which fails any later statement that
        converts it: such a name is kind `invalid_name` and shown with each byte outside
        printable ASCII as \xNN, as the DuckDB plugin shows it (its bytes: the name with its
        backslashes doubled, decoded as bytea's escape format; checked by the PL/pgSQL helper
        of prepare_landing_reader, a pre-hook of the deliveries model). -#}
    {%- if not folder.startswith('/') -%}
        {{ exceptions.raise_compiler_error(
            "rerun_safe: var landing_path must be an absolute path on Postgres (the server reads the folder); got " ~ folder
        ) }}
    {%- endif -%}
    {%- set prefix = folder if folder.endswith('/') else folder ~ '/' -%}
    select
        named.file_name,
        {{ rerun_safe.string_literal(prefix) }} || named.file_name as path,
        stat.size,
        cast(floor(extract(epoch from stat.modification) * 1000000) as bigint) * 1000 as mtime_ns,
        cast(floor(extract(epoch from stat.change) * 1000000) as bigint) * 1000 as ctime_ns,
        cast(null as bigint) as inode,
        case when not named.valid then 'invalid_name' when stat.isdir then 'other' else 'file' end as kind
    from pg_ls_dir({{ rerun_safe.string_literal(folder) }}, false, false) as entries (file_name)
    cross join lateral pg_stat_file({{ rerun_safe.string_literal(prefix) }} || entries.file_name, true) as stat
    cross join lateral (
        select decode(replace(entries.file_name, '\', '\\'), 'escape') as bytes
    ) as raw
    cross join lateral (
        select
            {{ adapter.quote(target.schema) }}.rerun_safe_utf8_or_null(raw.bytes) is not null as valid,
            coalesce({{ adapter.quote(target.schema) }}.rerun_safe_utf8_or_null(raw.bytes), (
                select string_agg(
                    case
                        when get_byte(raw.bytes, byte_at) between 32 and 126 then chr(get_byte(raw.bytes, byte_at))
                        else '\x' || lpad(to_hex(get_byte(raw.bytes, byte_at)), 2, '0')
                    end,
                    '' order by byte_at
                )
                from generate_series(0, length(raw.bytes) - 1) as positions (byte_at)
            )) as file_name
    ) as named
    where
        lower(named.file_name) like '%.csv'
        and named.file_name not like '.%'
        and stat.size is not null
{% endmacro %}

{#- Spark: the files of the landing folder as Spark's `binaryFile` source lists them (Hadoop's
    local file system, not recursive into sub-folders' partitions). The listing does not read
    the files' bytes (content is not selected). Differences, as on Postgres: symlinks are
    followed (kind is always `file`), there is no inode, and no ctime: ctime_ns is null, so no
    inspection is ever reused and every listed file is hashed again on every run (exact,
    at the cost of reading the landing folder; see docs/engines.md, "Spark"). Hadoop
    also hides names starting with `_` (like `.`): such a file is not a delivery on Spark.
    mtime has millisecond precision. -#}
{% macro spark__list_landing(folder) %}
    select
        listed.file_name,
        listed.path,
        listed.size,
        listed.mtime_ns,
        cast(null as bigint) as ctime_ns,
        cast(null as bigint) as inode,
        'file' as kind
    from (
        select
            regexp_extract(files.path, '[^/]*$', 0) as file_name,
            files.path,
            files.length as size,
            unix_micros(files.modificationTime) * 1000 as mtime_ns
        from binaryFile.{{ rerun_safe.spark_literal_path(folder) }} as files
    ) as listed
    where
        lower(listed.file_name) like '%.csv'
        and listed.file_name not like '.%'
{% endmacro %}
