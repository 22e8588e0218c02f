{#- The delivery files in the landing folder that `target` has not loaded yet, as a list of
    dicts (path, file_name, file_id), sorted by name. A delivery is identified by name, size
    and modification time: a file rewritten in place is a new delivery; an old one is never
    read twice. Progress is the list of loaded file ids (loaded_file_ids_sql), written by
    the staging model inside its own transaction, so it commits with the rows. Empty and header-only files load no rows, so they
    are listed again on every run and cost one empty scan each. -#}
{% macro landing_files_to_load(landing_glob, target, only_new) %}
    {{- return(adapter.dispatch('landing_files_to_load', 'rerun_safe')(landing_glob, target, only_new)) -}}
{% endmacro %}

{% macro duckdb__landing_files_to_load(landing_glob, target, only_new) %}
    {%- if not execute -%}{{ return([]) }}{%- endif -%}
    {%- set sql -%}
        with landed as (
            select
                filename as path,
                parse_filename(filename) as file_name,
                md5(parse_filename(filename) || ':' || cast(size as varchar) || ':' || cast(epoch_ms(last_modified) as varchar)) as file_id
            from read_blob('{{ landing_glob }}')
        )
        select landed.path, landed.file_name, landed.file_id
        from landed
        {%- if only_new %}
        where landed.file_id not in ({{ rerun_safe.loaded_file_ids_sql(target) }})
        {%- endif %}
        order by landed.file_name, landed.file_id
    {%- endset -%}
    {%- set files = [] -%}
    {%- for row in run_query(sql).rows -%}
        {%- do files.append({'path': row[0], 'file_name': row[1], 'file_id': row[2]}) -%}
    {%- endfor -%}
    {{- return(files) -}}
{% endmacro %}

{% macro postgres__landing_files_to_load(landing_glob, target, only_new) %}
    {#- why: Postgres lists the folder on the server with pg_ls_dir / pg_stat_file (superuser
        or pg_read_server_files), so the listing and the reading (scan_landing_files) see the
        same files through the same OS user, with no client-side state. pg_stat_file gives the
        size and the modification time in whole seconds, which is what DuckDB's read_blob gives
        here too (epoch_ms ends in 000), so the file id, md5(name:size:mtime in epoch ms), is the
        same string on both engines and a warehouse can be compared row for row.
        The server resolves relative paths against its data directory, not the dbt project:
        landing_path must be absolute (and readable by the server's OS user). -#}
    {%- if not execute -%}{{ return([]) }}{%- endif -%}
    {%- set parts = landing_glob.rsplit('/', 1) -%}
    {%- set folder = parts[0] if parts | length == 2 else '.' -%}
    {%- set pattern = parts[-1] -%}
    {%- if not folder.startswith('/') -%}
        {{ exceptions.raise_compiler_error(
            "rerun_safe: on Postgres the landing_path var must be an absolute path that the database server can read (got "
            ~ folder ~ ")"
        ) }}
    {%- endif -%}
    {#- The file-name glob (`*`, `?`) as an anchored regular expression. -#}
    {%- set name_regex = '^' ~ modules.re.escape(pattern) | replace('\\*', '.*') | replace('\\?', '.') ~ '$' -%}
    {%- set folder_literal = folder | replace("'", "''") -%}
    {%- set sql -%}
        with landed as (
            select
                '{{ folder_literal }}/' || listed.file_name as path,
                listed.file_name,
                md5(listed.file_name || ':' || cast(stat.size as varchar) || ':'
                    || cast(cast(floor(extract(epoch from stat.modification) * 1000) as bigint) as varchar)) as file_id
            from pg_ls_dir('{{ folder_literal }}', true, false) as listed (file_name)
            cross join lateral pg_stat_file('{{ folder_literal }}/' || listed.file_name, true) as stat
            where
                listed.file_name ~ '{{ name_regex | replace("'", "''") }}'
                and stat.size is not null
                and not stat.isdir
        )
        select landed.path, landed.file_name, landed.file_id
        from landed
        {%- if only_new %}
        where landed.file_id not in ({{ rerun_safe.loaded_file_ids_sql(target) }})
        {%- endif %}
        order by landed.file_name collate "C", landed.file_id
    {%- endset -%}
    {%- set files = [] -%}
    {%- for row in run_query(sql).rows -%}
        {%- do files.append({'path': row[0], 'file_name': row[1], 'file_id': row[2]}) -%}
    {%- endfor -%}
    {{- return(files) -}}
{% endmacro %}
