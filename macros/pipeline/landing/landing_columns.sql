{#- Every record of `files` (dicts: path, file_name, file_id, header = the file's column names
    in file order, all contract columns), all columns as text in contract order, with its file
    and record ordinal. Columns are matched by the header's names, never by position. One scan
    per file, not parallel, so the ordinal is the record's position in its file; a record with
    more fields than the header fills `_overflow` (quarantined as malformed_row), one with
    fewer is padded with nulls. No file gives an empty relation of the same shape. Only files
    whose inspection accepted them reach here (stg_landing__deliveries). -#}
{% macro landing_columns() %}
    {{- return(['event_id', 'event_type', 'company_id', 'order_id', 'order_item_id', 'amount_cents', 'currency', 'event_time', 'ingested_at', 'version']) -}}
{% endmacro %}
