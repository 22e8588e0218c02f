{#- The records of a CSV text (an SQL expression) on Postgres: (record_number, fields text[]),
    record_number 0 for the header, 1 for the first data record, each field as written (quoted
    fields keep their quotes: see csv_field). Set-based, no regular expression (they
    cost ~50 us a line in Postgres): split the text on `"`; every odd piece is outside quotes,
    so its commas separate fields and its line breaks (LF, CRLF, CR) separate records. Those
    are replaced by two private-use characters, U+E000 and U+E001, the pieces are joined back
    and split on them. A `""` escape is an empty piece outside quotes, so it survives. A
    leading byte-order mark is dropped. -#}
{% macro postgres__csv_records_of(content, with_header=false) %}
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
            from (select {{ content }} as content) as file
            cross join lateral string_to_table(
                case when left(file.content, 1) = chr(65279) then substr(file.content, 2) else file.content end,
                '"'
            ) with ordinality as pieces (piece, position)
        ) as file_marked
        cross join lateral string_to_table(file_marked.marked, chr(57345)) with ordinality as records (record, position)
        where records.record != ''
    ) as numbered
    {%- if not with_header %}
    where numbered.record_number > 0
    {%- endif %}
    {#- the fields array is read once per column use (compute_once): without this, each use
        split the record again #}
    {{ rerun_safe.compute_once() }}
{% endmacro %}
