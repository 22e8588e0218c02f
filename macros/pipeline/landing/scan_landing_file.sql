{#- One accepted delivery as staging rows (the contract's columns, its file id and name, each
    record's ordinal), by adapter: scan_landing_files dispatches here for each file. -#}
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
