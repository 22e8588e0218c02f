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
