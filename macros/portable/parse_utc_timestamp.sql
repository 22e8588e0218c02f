{#- Parse the contract's two ISO 8601 forms (`2026-11-01T10:15:00Z`, `2026-11-01 10:15:00`)
    into a UTC timestamp, or null. The shape is checked first because strptime-style parsers
    accept unpadded fields such as `1:5:0`; the parse then rejects impossible dates. -#}
{% macro parse_utc_timestamp(expression) %}{{ return(adapter.dispatch('parse_utc_timestamp', 'rerun_safe')(expression)) }}{% endmacro %}
{% macro timestamp_shape() %}{{ return('[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}Z| [0-9]{2}:[0-9]{2}:[0-9]{2})') }}{% endmacro %}
{% macro duckdb__parse_utc_timestamp(expression) %}
    {{- return(
        "case when " ~ rerun_safe.matches_pattern(expression, rerun_safe.timestamp_shape())
        ~ " then try_strptime(replace(replace(" ~ expression ~ ", 'T', ' '), 'Z', ''), '%Y-%m-%d %H:%M:%S') end"
    ) -}}
{% endmacro %}
{% macro postgres__parse_utc_timestamp(expression) %}
    {#- to_timestamp raises on month 13 instead of returning null: validate the fields first. -#}
    {{- return(
        "case when " ~ rerun_safe.matches_pattern(expression, rerun_safe.timestamp_shape())
        ~ " and pg_input_is_valid(replace(replace(" ~ expression ~ ", 'T', ' '), 'Z', ''), 'timestamp')"
        ~ " then cast(replace(replace(" ~ expression ~ ", 'T', ' '), 'Z', '') as timestamp) end"
    ) -}}
{% endmacro %}
{% macro spark__parse_utc_timestamp(expression) %}
    {{- return(
        "case when " ~ rerun_safe.matches_pattern(expression, rerun_safe.timestamp_shape())
        ~ " then try_to_timestamp(replace(replace(" ~ expression ~ ", 'T', ' '), 'Z', ''), 'yyyy-MM-dd HH:mm:ss') end"
    ) -}}
{% endmacro %}
