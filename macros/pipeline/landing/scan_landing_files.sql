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

{#- A path for DuckDB's readers, which expand `*`, `?` and `[...]`: each such character is
    wrapped in brackets so it matches only itself. DuckDB's glob cannot match a backslash, but
    reads an existing file by its exact name first: a path with a backslash is passed as is. -#}
{% macro duckdb_literal_path(path) %}
    {%- if '\\' in path -%}{{ return(path) }}{%- endif -%}
    {%- set escaped = modules.re.sub('([*?\\[])', '[\\1]', path) -%}
    {{- return(escaped) -}}
{% endmacro %}

{#- why: no portable SQL reads a file from a SELECT (DuckDB's read_csv, Postgres's
    pg_read_binary_file and Spark's binaryFile are each their engine's own), so another adapter
    stops when the model compiles, before any write, naming the adapters the reader supports. -#}
{% macro default__scan_landing_file(f, header) %}
    {{- exceptions.raise_compiler_error(
        "rerun_safe: no landing reader for adapter " ~ adapter.type()
        ~ " (scan_landing_file reads deliveries on duckdb, postgres and spark only)"
    ) -}}
{% endmacro %}

{#- One file on DuckDB: read_csv with the columns declared in the file's own header order. -#}
{% macro duckdb__scan_landing_file(f, header) %}
    select
        {%- for c in rerun_safe.landing_columns() + ['_overflow'] %}
        scanned.{{ c }},
        {%- endfor %}
        {{ rerun_safe.string_literal(f.file_id) }} as _file_id,
        {{ rerun_safe.string_literal(f.file_name) }} as _file_name,
        row_number() over () as _record_number
    from read_csv(
        {{ rerun_safe.string_literal(rerun_safe.duckdb_literal_path(f.path)) }},
        {{ rerun_safe.duckdb_csv_options(header) }}
    ) as scanned
{% endmacro %}

{#- read_csv's options after the path, the same for the per-file and the multi-file scan (so
    both give the same rows): `columns` are the file's own header names in file order, all text,
    then _overflow (the field after the last one). -#}
{% macro duckdb_csv_options(header) -%}
    header = true, auto_detect = false, delim = ',', quote = '"', escape = '"',
        strict_mode = false, null_padding = true, parallel = false, max_line_size = 2097152,
        columns = {
            {%- for c in header + ['_overflow'] %}'{{ c }}': 'varchar'{{ ', ' if not loop.last }}{% endfor -%}
    }
{%- endmacro %}

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

{% macro postgres__scan_landing_file(f, header) %}
    {#- why: Postgres cannot read a file in a SELECT through COPY, but it can with
        pg_read_binary_file (superuser or pg_read_server_files; the server must run on the
        machine that holds the landing folder). Reading the file inside the model's own SELECT
        keeps the same shape as DuckDB's read_csv: no side effect when the model is only
        compiled, and the read is part of the statement that writes the staged rows, so it
        commits or rolls back with them. Cost: a file is held in memory as one text value (at
        most 1 GB per file).
        Split CSV-aware by postgres__csv_records_of; empty fields are null, as DuckDB reads
        them; blank lines are skipped and not counted; the first record is the header, whose
        names give each column's position; _overflow is the field after the last one. -#}
    select
        {{ rerun_safe.csv_columns_by_header(header, 'parsed.fields[{}]') }},
        cast({{ rerun_safe.string_literal(f.file_id) }} as text) as _file_id,
        cast({{ rerun_safe.string_literal(f.file_name) }} as text) as _file_name,
        parsed.record_number as _record_number
    from ({{ rerun_safe.postgres__csv_records_of(
        rerun_safe.postgres_delivery_text(
            rerun_safe.string_literal(f.path), rerun_safe.string_literal(f.file_name), rerun_safe.string_literal(f.file_id)
        )
    ) }}) as parsed
{% endmacro %}

{#- Postgres: the text of a delivery (SQL expressions of its path, name and id), read once, and
    only when those bytes are the delivery: their MD5 with the name gives its id. Bytes that
    changed since the inspection give null, so no record, and the file is deferred by
    mark_changed_deliveries (not recorded as loaded in any case): the rows staged under an
    identity are always read from the bytes of that identity, and changed bytes are never
    decoded (a byte that is not UTF-8 cannot fail the statement). `offset 0` keeps the read a
    subquery of its own, evaluated once. -#}
{% macro postgres_delivery_text(path, file_name, file_id) -%}
    (
        select case when md5({{ file_name }} || ':' || md5(raw.bytes)) = {{ file_id }} then convert_from(raw.bytes, 'UTF8') end
        from (select pg_read_binary_file({{ path }}) as bytes offset 0) as raw
    )
{%- endmacro %}

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

{#- The contract columns of a file split in SQL, in contract order, each taken from its position
    in the file's own header (`field_at` formats a 1-based position into the SQL of that field),
    empty fields as null, and _overflow: the field after the last one. -#}
{% macro csv_columns_by_header(header, field_at) -%}
    {%- for c in rerun_safe.landing_columns() %}
        nullif({{ rerun_safe.csv_field(field_at.format(header.index(c) + 1)) }}, '') as {{ c }},
    {%- endfor %}
        nullif({{ rerun_safe.csv_field(field_at.format(header | length + 1)) }}, '') as _overflow
{%- endmacro %}

{#- Spark: each accepted file read whole (the `binaryFile` source, under its escaped literal
    path), split into records and fields in SQL exactly as on Postgres (spark_csv_records),
    and the records numbered by their position in the file: no reader that splits a file
    across tasks, so the ordinal is exact. Empty fields are null, as DuckDB reads them; blank
    lines are skipped and not counted; the header's names give each column's position;
    _overflow is the field after the last one. -#}
{% macro spark__scan_landing_file(f, header) %}
    select
        {{ rerun_safe.csv_columns_by_header(header, 'element_at(parsed.fields, {})') }},
        {{ rerun_safe.string_literal(f.file_id) }} as _file_id,
        {{ rerun_safe.string_literal(f.file_name) }} as _file_name,
        cast(parsed.record_number as bigint) as _record_number
    from (
        select numbered.record_number, split(numbered.record, '\uE000', -1) as fields
        from (
            select posexplode({{ rerun_safe.spark_csv_records(
                "case when left(cast(file.content as string), 1) = '\\uFEFF' then substr(cast(file.content as string), 2)"
                ~ " else cast(file.content as string) end"
            ) }}) as (record_number, record)
            from binaryFile.{{ rerun_safe.spark_literal_path(f.path) }} as file
        ) as numbered
        where numbered.record_number > 0
    ) as parsed
{% endmacro %}
