{#- Every record of `files`, all columns as text, with its file and record ordinal. One scan
    per file, not parallel, so the ordinal is the record's position in its file; a record with
    more fields than the header fills `_overflow` (quarantined as malformed_row), one with
    fewer is padded with nulls. No file gives an empty relation of the same shape. -#}
{% macro landing_columns() %}
    {{- return(['event_id', 'event_type', 'company_id', 'order_id', 'order_item_id', 'amount_cents', 'currency', 'event_time', 'ingested_at', 'version']) -}}
{% endmacro %}

{% macro scan_landing_files(files) %}
    {{- return(adapter.dispatch('scan_landing_files', 'rerun_safe')(files)) -}}
{% endmacro %}

{% macro duckdb__scan_landing_files(files) %}
    {%- set columns = rerun_safe.landing_columns() + ['_overflow'] -%}
    {%- set column_types = [] -%}
    {%- for c in columns -%}{%- do column_types.append("'" ~ c ~ "': 'varchar'") -%}{%- endfor -%}
    {%- if files | length == 0 %}
    select
        {%- for c in columns %}
        cast(null as varchar) as {{ c }},
        {%- endfor %}
        cast(null as varchar) as _file_id,
        cast(null as varchar) as _file_name,
        cast(null as bigint) as _record_number
    where false
    {%- else -%}
    {%- for f in files %}
    select
        scanned.*,
        '{{ f.file_id }}' as _file_id,
        '{{ f.file_name | replace("'", "''") }}' as _file_name,
        row_number() over () as _record_number
    from read_csv(
        '{{ f.path | replace("'", "''") }}',
        header = true, auto_detect = false, delim = ',', quote = '"', escape = '"',
        strict_mode = false, null_padding = true, parallel = false,
        columns = { {{- column_types | join(', ') -}} }
    ) as scanned
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
    {%- endif %}
{% endmacro %}

{% macro postgres__scan_landing_files(files) %}
    {#- why: Postgres cannot read a file in a SELECT through COPY, but it can with
        pg_read_binary_file (superuser or pg_read_server_files; the server must run on the
        machine that holds the landing folder). Reading the file inside the model's own SELECT,
        rather than COPYing it into a raw table from Jinja at compile time, keeps the same shape
        as DuckDB's read_csv: no side effect when the model is only compiled, no second copy
        of the data to keep in step, and the read is part of the statement that writes the
        staged rows, so it commits or rolls back with them. Cost: a file is held in memory
        as one text value (at most 1 GB per file); bigger deliveries would need a COPY-based
        reader.
        The file is decoded as UTF-8 (an invalid byte fails the run, as on DuckDB) and split
        into records and fields CSV-aware (postgres__csv_records: `"` quote, `""` escape, line
        breaks inside quotes kept, LF, CRLF or CR between records); empty fields are null, as
        DuckDB reads them.
        Blank lines are skipped and not counted, the first record is the header, and
        _overflow is the 11th field, exactly like duckdb__ above. Differences are listed in
        docs/architecture.md (Other engines). -#}
    {%- set columns = rerun_safe.landing_columns() + ['_overflow'] -%}
    {%- if files | length == 0 %}
    select
        {%- for c in columns %}
        cast(null as text) as {{ c }},
        {%- endfor %}
        cast(null as text) as _file_id,
        cast(null as text) as _file_name,
        cast(null as bigint) as _record_number
    where false
    {%- else -%}
    {%- for f in files %}
    select
        {%- for c in columns %}
        nullif({{ rerun_safe.postgres__csv_field('parsed.fields[' ~ loop.index ~ ']') }}, '') as {{ c }},
        {%- endfor %}
        cast('{{ f.file_id }}' as text) as _file_id,
        cast('{{ f.file_name | replace("'", "''") }}' as text) as _file_name,
        parsed.record_number as _record_number
    from ({{ rerun_safe.postgres__csv_records(f.path) }}) as parsed
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
    {%- endif %}
{% endmacro %}

{#- The data records of one CSV file on the Postgres server: (record_number, fields text[]),
    record_number 1 for the first record after the header, each field as written (quoted
    fields keep their quotes: see postgres__csv_field). Set-based, no regular expression (they
    cost ~50 us a line in Postgres): split the file on `"`; every odd piece is outside quotes,
    so its commas separate fields and its line breaks (LF, CRLF, CR) separate records. Those
    are replaced by two private-use characters, U+E000 and U+E001, the pieces are joined back
    and split on them. A `""` escape is an empty piece outside quotes, so it survives. -#}
{% macro postgres__csv_records(path) %}
    select
        numbered.record_number,
        string_to_array(numbered.record, chr(57344)) as fields
    from (
        select
            records.record,
            row_number() over (order by records.position) - 1 as record_number
        from (
            select
                string_agg(
                    case
                        when pieces.position % 2 = 1
                            then replace(replace(replace(replace(
                                pieces.piece, ',', chr(57344)),
                                chr(13) || chr(10), chr(57345)), chr(13), chr(57345)), chr(10), chr(57345))
                        else pieces.piece
                    end,
                    '"' order by pieces.position
                ) as marked
            from (
                select convert_from(pg_read_binary_file('{{ path | replace("'", "''") }}'), 'UTF8') as content
            ) as file
            cross join lateral string_to_table(
                case when left(file.content, 1) = chr(65279) then substr(file.content, 2) else file.content end,
                '"'
            ) with ordinality as pieces (piece, position)
        ) as file_marked
        cross join lateral string_to_table(file_marked.marked, chr(57345)) with ordinality as records (record, position)
        where records.record != ''
    ) as numbered
    where numbered.record_number > 0
{% endmacro %}

{#- One field as written -> its value: `"a,""b"""` -> `a,"b"`; unquoted text as is. -#}
{% macro postgres__csv_field(raw) -%}
    case
        when length({{ raw }}) >= 2 and left({{ raw }}, 1) = '"' and right({{ raw }}, 1) = '"'
            then replace(substr({{ raw }}, 2, length({{ raw }}) - 2), '""', '"')
        else {{ raw }}
    end
{%- endmacro %}
