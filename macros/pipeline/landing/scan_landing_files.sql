{#- one_scan: read all `files` in as few scans as the adapter can (DuckDB: one multi-file
    read_csv per distinct header), for full builds, where a scan per file costs more than the
    reading itself. The same rows, file ids and ordinals as the per-file scans. -#}
{% macro scan_landing_files(files, one_scan=false) %}
    {%- if files | length == 0 %}
    select
        {%- for c in rerun_safe.landing_columns() + ['_overflow', '_file_id', '_file_name'] %}
        cast(null as {{ dbt.type_string() }}) as {{ c }},
        {%- endfor %}
        cast(null as bigint) as _record_number
    where false
    {%- elif one_scan -%}
    {{ adapter.dispatch('scan_landing_files_at_once', 'rerun_safe')(files) }}
    {%- else -%}
    {%- for f in files %}
    {{ adapter.dispatch('scan_landing_file', 'rerun_safe')(f, rerun_safe.delivery_header(f)) }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
    {%- endif %}
{% endmacro %}

{#- The header of an accepted delivery as a list, checked again against the contract: only
    contract column names ever become identifiers in SQL. -#}
{% macro delivery_header(file) %}
    {%- set header = file.header.split(',') -%}
    {%- if header | sort != rerun_safe.landing_columns() | sort -%}
        {{- exceptions.raise_compiler_error("rerun_safe: delivery " ~ file.file_name ~ " has an unexpected header: " ~ file.header) -}}
    {%- endif -%}
    {{- return(header) -}}
{% endmacro %}

{#- The files grouped by their header text, for the scans that read every file of one header
    at once (full builds): the groups in the order their header first appears, each group's
    files in list order. -#}
{% macro landing_files_by_header(files) %}
    {%- set headers = [] -%}
    {%- for f in files if f.header not in headers %}{% do headers.append(f.header) %}{% endfor -%}
    {%- set groups = [] -%}
    {%- for header_text in headers %}{% do groups.append(files | selectattr('header', 'equalto', header_text) | list) %}{% endfor -%}
    {{- return(groups) -}}
{% endmacro %}

{#- Every other adapter (Spark): a scan per file. -#}
{% macro default__scan_landing_files_at_once(files) %}
    {{- rerun_safe.scan_landing_files(files, one_scan=false) -}}
{% endmacro %}

{#- DuckDB, full builds: one multi-file read_csv per distinct header (files with the same
    header in one list, in name order), instead of one read_csv per file. Each record keeps its
    file through read_csv's `file_index` (its position in the list, joined to the file's id and
    name) and its ordinal through insertion order: `row_number() over ()` is a streaming window,
    which DuckDB runs in one thread in the scan's order, the property the per-file scan relies
    on too; so every file's records are numbered consecutively, in file order, and a record's
    ordinal in its file is its position minus the first position of its file, plus one.
    parallel = false keeps each file in one piece. Measured at 3.7M rows (190 files): 10.1 s
    for staging instead of 17.6 s, identical rows (docs/decisions/2026-12-07-bench-full-build.md). -#}
{% macro duckdb__scan_landing_files_at_once(files) %}
    {%- for group in rerun_safe.landing_files_by_header(files) %}
    {%- set header = rerun_safe.delivery_header(group[0]) %}
    select
        {%- for c in rerun_safe.landing_columns() + ['_overflow'] %}
        scanned.{{ c }},
        {%- endfor %}
        listed.file_id as _file_id,
        listed.file_name as _file_name,
        scanned._position - min(scanned._position) over (partition by scanned.file_index) + 1 as _record_number
    from (
        select
            {%- for c in rerun_safe.landing_columns() + ['_overflow'] %}
            in_file_order.{{ c }},
            {%- endfor %}
            in_file_order.file_index,
            row_number() over () as _position
        from read_csv(
            [
                {%- for f in group %}
                {{ rerun_safe.string_literal(rerun_safe.duckdb_literal_path(f.path)) }}{{ ',' if not loop.last }}
                {%- endfor %}
            ],
            {{ rerun_safe.duckdb_csv_options(header) }}
        ) as in_file_order
    ) as scanned
    inner join (
        values
        {%- for f in group %}
        ({{ loop.index0 }}, {{ rerun_safe.string_literal(f.file_id) }}, {{ rerun_safe.string_literal(f.file_name) }}){{ ',' if not loop.last }}
        {%- endfor %}
    ) as listed (file_index, file_id, file_name)
        on scanned.file_index = listed.file_index
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{% endmacro %}

{#- Postgres, full builds: one scan per distinct header, each a lateral split of every file of
    a VALUES list of (file id, name, path), in place of a UNION ALL branch per file. The rows,
    file ids and record numbers are those of the per-file scans (the same split, run once per
    file). why: Postgres keeps the memory of every node of a statement until the statement
    ends, so each branch of the union held its file's text, its split pieces and its joined
    string to the end: the full build of a 10M-event history (654 files) grew to 15.7 GB and
    was killed (out of memory). A lateral subquery is one set of nodes, rescanned for each file,
    whose memory is freed between files: 67 files of the 1M history, 1.4M records, peak 72 MB
    instead of 804 MB (docs/benchmarks-postgres.md). -#}
{% macro postgres__scan_landing_files_at_once(files) %}
    {%- for group in rerun_safe.landing_files_by_header(files) %}
    {%- set header = rerun_safe.delivery_header(group[0]) %}
    select
        {{ rerun_safe.csv_columns_by_header(header, 'parsed.fields[{}]') }},
        listed.file_id as _file_id,
        listed.file_name as _file_name,
        parsed.record_number as _record_number
    from (
        values
        {%- for f in group %}
        (
            cast({{ rerun_safe.string_literal(f.file_id) }} as text),
            cast({{ rerun_safe.string_literal(f.file_name) }} as text),
            cast({{ rerun_safe.string_literal(f.path) }} as text)
        ){{ ',' if not loop.last }}
        {%- endfor %}
    ) as listed (file_id, file_name, path)
    cross join lateral ({{ rerun_safe.postgres__csv_records_of(
        rerun_safe.postgres_delivery_text('listed.path', 'listed.file_name', 'listed.file_id')
    ) }}) as parsed
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
{% endmacro %}
