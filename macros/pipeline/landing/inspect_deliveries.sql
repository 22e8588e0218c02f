{#- Each listed delivery of the relation `listed` (a CTE with list_landing's columns) read once
    and judged: its content MD5 (with its name, the delivery's identity) and its verdict.
    Adds content_md5, reason (null: the file can be loaded; else why it is rejected whole),
    first_error, header_columns (the header in file order, comma-separated, only for loadable
    files), records (data records, blank lines not counted) and inspected_at_ns. The reasons
    are listed in docs/bad-input.md. -#}
{% macro inspect_deliveries(listed) %}
    {{- return(adapter.dispatch('inspect_deliveries', 'rerun_safe')(listed)) -}}
{% endmacro %}

{% macro default__inspect_deliveries(listed) %}
    {{- exceptions.raise_compiler_error("rerun_safe: no landing reader for adapter " ~ adapter.type()) -}}
{% endmacro %}

{% macro duckdb__inspect_deliveries(listed) %}
    {#- why: the plugin's rerun_safe_inspect_delivery decodes and parses in Python, so an
        undecodable byte, an over-long line or an unterminated quote becomes a verdict, where
        DuckDB's read_csv would fail the whole build. A name that is not UTF-8 (kind
        invalid_name, see list_landing) is rejected before anything reads the file. -#}
    select
        {%- for column in rerun_safe.listing_columns() %}
        judged.{{ column }},
        {%- endfor %}
        judged.verdict.content_md5 as content_md5,
        case
            when judged.kind = 'invalid_name' then 'invalid_file_name'
            when judged.kind != 'file' then 'not_a_regular_file'
            else judged.verdict.reason
        end as reason,
        case
            when judged.kind = 'invalid_name' then {{ rerun_safe.invalid_file_name_error() }}
            when judged.kind != 'file' then 'a ' || judged.kind || ', not a regular file: never followed'
            else judged.verdict.first_error
        end as first_error,
        judged.verdict.header as header_columns,
        judged.verdict.records as records,
        coalesce(judged.verdict.inspected_at_ns, 0) as inspected_at_ns
    from (
        select
            {{ listed }}.*,
            case when {{ listed }}.kind = 'file' then rerun_safe_inspect_delivery({{ listed }}.path) end as verdict
        from {{ listed }}
    ) as judged
{% endmacro %}

{% macro postgres__inspect_deliveries(listed) %}
    {#- why: the same verdicts in SQL on the server. UTF-8 is checked by a PL/pgSQL function
        (prepare_landing_reader) because convert_from fails the statement on a bad byte. The
        CSV is split as postgres__csv_records does; a quote count that is odd, or a line break
        inside quotes, is an unterminated quote. A line has no length limit on Postgres. A blank
        first line before the header rejects the file (blank_line_before_header): DuckDB's
        reader would take it as the header, so both engines refuse it. -#}
    {%- set contract = rerun_safe.landing_columns() -%}
    select
        {%- for column in rerun_safe.listing_columns() %}
        judged.{{ column }},
        {%- endfor %}
        judged.content_md5,
        {#- each rule once: (condition, reason, first error); the first that holds decides -#}
        {%- set rules = [
            ("judged.kind = 'invalid_name'", "'invalid_file_name'", rerun_safe.invalid_file_name_error()),
            ("judged.kind != 'file'", "'not_a_regular_file'", "'not a regular file'"),
            ("judged.content is null", "'invalid_encoding'", "'not UTF-8'"),
            ("judged.content = ''", "null", "null"),
            ("right(judged.content, 1) not in (chr(10), chr(13))", "'incomplete_last_line'",
                "'the last line has no line break: the file may still be being written'"),
            ("shape.blank_before_header", "'blank_line_before_header'", "'line 1 is blank: the header must be the first line'"),
            ("shape.quotes % 2 = 1 or shape.quoted_break", "'unterminated_quote'",
                "'a quoted field runs over a line break or to the end of the file'"),
            ("shape.header_fields is null", "null", "null"),
            ("shape.known_names = 0", "'missing_header'",
                "'line 1 is not a header: no contract column among ' || left(array_to_string(shape.header_fields, ','), 200)"),
            ("shape.repeated_names > 0", "'duplicate_columns'", "'header repeats a column'"),
            ("shape.unknown_names != ''", "'unknown_columns'", "'header has unknown columns ' || shape.unknown_names"),
            ("shape.missing_names != ''", "'incomplete_header'", "'header lacks ' || shape.missing_names"),
        ] %}
        case
            {%- for condition, reason, _ in rules %}
            when {{ condition }} then {{ reason }}
            {%- endfor %}
        end as reason,
        case
            {%- for condition, _, first_error in rules %}
            when {{ condition }} then {{ first_error }}
            {%- endfor %}
        end as first_error,
        array_to_string(shape.header_fields, ',') as header_columns,
        coalesce(shape.records, 0) as records,
        cast(floor(extract(epoch from clock_timestamp()) * 1000000) as bigint) * 1000 as inspected_at_ns
    from (
        select
            {{ listed }}.*,
            md5(raw.bytes) as content_md5,
            {{ adapter.quote(target.schema) }}.rerun_safe_utf8_or_null(raw.bytes) as content
        from {{ listed }}
        cross join lateral (
            select case when {{ listed }}.kind = 'file' then pg_read_binary_file({{ listed }}.path) end as bytes
        ) as raw
        {#- the content is used a dozen times below: decoded once (compute_once) #}
        {{ rerun_safe.compute_once() }}
    ) as judged
    cross join lateral (
        select
            {# as DuckDB's reader takes it, the header is the first line (after a byte-order mark) #}
            coalesce(
                left(unmarked.content, 1) in (chr(10), chr(13)) and btrim(unmarked.content, chr(10) || chr(13)) != '', false
            ) as blank_before_header,
            (length(judged.content) - length(replace(judged.content, '"', ''))) as quotes,
            coalesce((
                select bool_or(pieces.position % 2 = 0 and (strpos(pieces.piece, chr(10)) > 0 or strpos(pieces.piece, chr(13)) > 0))
                from string_to_table(judged.content, '"') with ordinality as pieces (piece, position)
            ), false) as quoted_break,
            header.fields as header_fields,
            (select count(*) from unnest(header.fields) as h (name) where h.name in ('{{ contract | join("', '") }}')) as known_names,
            (select count(*) - count(distinct h.name) from unnest(header.fields) as h (name)) as repeated_names,
            (select coalesce(string_agg(quote_literal(h.name), ', '), '') from unnest(header.fields) as h (name)
                where h.name not in ('{{ contract | join("', '") }}')) as unknown_names,
            (select coalesce(string_agg(c.name, ', '), '') from unnest(array['{{ contract | join("', '") }}']) as c (name)
                where c.name != all(header.fields)) as missing_names,
            scanned.records
        from (
            {#- one split of the file for both: the header's fields (record 0, the only row
                max() sees) and the count of data records #}
            select
                max(records.fields) filter (where records.record_number = 0) as first_fields,
                count(*) filter (where records.record_number > 0) as records
            from ({{ rerun_safe.postgres__csv_records_of('judged.content', with_header=true) }}) as records
        ) as scanned
        cross join lateral (
            select array_agg(btrim({{ rerun_safe.csv_field('f.field') }}, ' ' || chr(9)) order by f.position) as fields
            from unnest(scanned.first_fields) with ordinality as f (field, position)
        ) as header
        cross join (
            select case when left(judged.content, 1) = chr(65279) then substr(judged.content, 2) else judged.content end as content
        ) as unmarked
    ) as shape
{% endmacro %}

{#- Spark: the same verdicts as on Postgres, in Spark SQL over each file's bytes (the
    `binaryFile` source: one row per file, its whole content; a file is at most 2 GB).
    UTF-8 is checked by is_valid_utf8 on the bytes cast to text; a physical line longer than
    1 MiB (bytes, ended by LF, CRLF or CR, as on DuckDB) is line_too_long; a blank first line
    before a header is blank_line_before_header; then the file is split as
    spark_csv_records does (an odd quote count, or a line break inside quotes, is an
    unterminated quote) and the header judged by name. The folder's bytes are read once per
    run for the files to inspect (a join on the path: the source cannot prune by name). -#}
{% macro spark__inspect_deliveries(listed) %}
    {%- set contract = "array('" ~ rerun_safe.landing_columns() | join("', '") ~ "')" -%}
    {#- as on DuckDB: the header and the record count only for a file that can be loaded -#}
    select
        {%- for column in rerun_safe.listing_columns() %}
        judged.{{ column }},
        {%- endfor %}
        judged.content_md5,
        judged.reason,
        judged.first_error,
        case when judged.reason is null then judged.header_columns end as header_columns,
        case when judged.reason is null then judged.records end as records,
        judged.inspected_at_ns
    from (
        select
            {%- for column in rerun_safe.listing_columns() %}
            shaped.{{ column }},
            {%- endfor %}
            shaped.content_md5,
            case
                when shaped.content_md5 is null then 'unreadable'
                when shaped.content is null then 'invalid_encoding'
                when shaped.content != '' and right(shaped.content, 1) not in ('\n', '\r') then 'incomplete_last_line'
                when shaped.longest_line > 1048576 then 'line_too_long'
                when shaped.content = '' then null
                when shaped.blank_before_header then 'blank_line_before_header'
                when shaped.quotes % 2 = 1 or shaped.quoted_break then 'unterminated_quote'
                when shaped.header_fields is null then null
                when shaped.known_names = 0 then 'missing_header'
                when shaped.repeated_names > 0 then 'duplicate_columns'
                when shaped.unknown_names != '' then 'unknown_columns'
                when shaped.missing_names != '' then 'incomplete_header'
            end as reason,
            case
                when shaped.content_md5 is null then 'the file could not be read (gone since the listing?)'
                when shaped.content is null then 'not UTF-8'
                when shaped.content != '' and right(shaped.content, 1) not in ('\n', '\r') then 'the last line has no line break: the file may still be being written'
                when shaped.longest_line > 1048576 then 'a line of ' || shaped.longest_line || ' bytes, over the bound of 1048576'
                when shaped.content = '' then null
                when shaped.blank_before_header then 'line 1 is blank: the header must be the first line'
                when shaped.quotes % 2 = 1 or shaped.quoted_break then 'a quoted field runs over a line break or to the end of the file'
                when shaped.header_fields is null then null
                when shaped.known_names = 0 then 'line 1 is not a header: no contract column among ' || left(array_join(shaped.header_fields, ','), 200)
                when shaped.repeated_names > 0 then 'header repeats a column'
                when shaped.unknown_names != '' then 'header has unknown columns ' || shaped.unknown_names
                when shaped.missing_names != '' then 'header lacks ' || shaped.missing_names
            end as first_error,
            array_join(shaped.header_fields, ',') as header_columns,
            coalesce(shaped.records, 0) as records,
            unix_micros(current_timestamp()) * 1000 as inspected_at_ns
        from (
            select
                split_up.*,
                size(split_up.pieces) - 1 as quotes,
                coalesce(
                    left(split_up.unmarked, 1) in ('\n', '\r') and trim(both '\r\n' from split_up.unmarked) != '', false
                ) as blank_before_header,
                exists(
                    transform(split_up.pieces, (piece, position) -> position % 2 = 1 and (instr(piece, '\n') > 0 or instr(piece, '\r') > 0)),
                    inside -> inside
                ) as quoted_break,
                size(split_up.header_fields) - size(array_distinct(split_up.header_fields)) as repeated_names,
                size(filter(split_up.header_fields, name -> array_contains({{ contract }}, name))) as known_names,
                coalesce(array_join(
                    transform(filter(split_up.header_fields, name -> not array_contains({{ contract }}, name)), name -> '\'' || replace(name, '\'', '\'\'') || '\''),
                    ', '
                ), '') as unknown_names,
                coalesce(array_join(filter({{ contract }}, name -> not array_contains(split_up.header_fields, name)), ', '), '') as missing_names,
                greatest(size(split_up.all_records) - 1, 0) as records
            from (
                select
                    texts.*,
                    split(texts.unmarked, '"', -1) as pieces,
                    {{ rerun_safe.spark_csv_records('texts.unmarked') }} as all_records,
                    case when size({{ rerun_safe.spark_csv_records('texts.unmarked') }}) > 0 then transform(
                        split({{ rerun_safe.spark_csv_records('texts.unmarked') }}[0], '\uE000', -1),
                        field -> trim(both ' \t' from {{ rerun_safe.csv_field('field') }})
                    ) end as header_fields
                from (
                    select
                        decoded.*,
                        case when left(decoded.content, 1) = '\uFEFF' then substr(decoded.content, 2) else decoded.content end as unmarked,
                        coalesce(array_max(transform(split(decoded.raw_text, '\r\n|\r|\n', -1), line -> octet_length(line))), 0) as longest_line
                    from (
                        {#- MERGE: a sort-merge join. Without the hint a small folder is joined
                            with the bytes as the broadcast side (the only side an outer join
                            keeping every listed file can broadcast), and a broadcast is collected
                            on the driver first: the driver would hold every delivery. -#}
                        select /*+ MERGE(raw) */
                            {{ listed }}.*,
                            md5(raw.content) as content_md5,
                            cast(raw.content as string) as raw_text,
                            case when is_valid_utf8(cast(raw.content as string)) then cast(raw.content as string) end as content
                        from {{ listed }}
                        left join (
                            select files.path, files.content
                            from binaryFile.{{ rerun_safe.spark_literal_path(rerun_safe.landing_path()) }} as files
                        ) as raw on {{ listed }}.path = raw.path
                    ) as decoded
                ) as texts
            ) as split_up
        ) as shaped
    ) as judged
{% endmacro %}

{#- The first error of a file whose name is not UTF-8 (list_landing shows such a name with each
    byte outside printable ASCII as \xNN), the same on every adapter. -#}
{% macro invalid_file_name_error() -%}
    'the file name is not UTF-8 (shown with each byte outside printable ASCII as \xNN): rename the file to deliver it'
{%- endmacro %}
