{#- Parse the contract's two ISO 8601 forms (`2026-11-01T10:15:00Z`, `2026-11-01 10:15:00`)
    into a UTC timestamp, or null. The shape is checked first because strptime-style parsers
    accept unpadded fields such as `1:5:0`; the parse then rejects impossible dates. -#}
{% macro parse_utc_timestamp(expression) %}{{ return(adapter.dispatch('parse_utc_timestamp', 'rerun_safe')(expression)) }}{% endmacro %}
{% macro _timestamp_shape() %}{{ return('[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}Z| [0-9]{2}:[0-9]{2}:[0-9]{2})') }}{% endmacro %}
{% macro duckdb__parse_utc_timestamp(expression) %}
    {#- why the year check: DuckDB reads year 0000 as 1 BC; Postgres refuses it -#}
    {{- return(
        "case when " ~ rerun_safe.matches_pattern(expression, rerun_safe._timestamp_shape())
        ~ " and substr(" ~ expression ~ ", 1, 4) != '0000'"
        ~ " then try_strptime(replace(replace(" ~ expression ~ ", 'T', ' '), 'Z', ''), '%Y-%m-%d %H:%M:%S') end"
    ) -}}
{% endmacro %}
{#- Portable (Postgres uses it): standard SQL has no parse that returns null on a bad value. -#}
{% macro default__parse_utc_timestamp(expression) %}
    {#- A cast raises on month 13 instead of returning null and may accept 24:00:00 and 23:59:60
        (PostgreSQL does; version 15 has no pg_input_is_valid): check every field first (DuckDB's
        try_strptime rejects the same values), then cast. The nested case makes sure the field
        casts run only on text of the right shape. Year 0000 is rejected (DuckDB reads it as
        1 BC). mod(), not %: the function is the more widely supported spelling. -#}
    {%- set e = "(" ~ expression ~ ")" -%}
    {%- set y = "cast(substr(" ~ e ~ ", 1, 4) as integer)" -%}
    {%- set m = "cast(substr(" ~ e ~ ", 6, 2) as integer)" -%}
    {%- set last_day = "case when " ~ m ~ " in (4, 6, 9, 11) then 30 when " ~ m ~ " = 2 then case when ("
        ~ "mod(" ~ y ~ ", 4) = 0 and mod(" ~ y ~ ", 100) != 0) or mod(" ~ y ~ ", 400) = 0 then 29 else 28 end else 31 end" -%}
    {{- return(
        "case when " ~ rerun_safe.matches_pattern(expression, rerun_safe._timestamp_shape())
        ~ " then case when " ~ y ~ " >= 1 and " ~ m ~ " between 1 and 12"
        ~ " and cast(substr(" ~ e ~ ", 9, 2) as integer) between 1 and " ~ last_day
        ~ " and cast(substr(" ~ e ~ ", 12, 2) as integer) <= 23"
        ~ " and cast(substr(" ~ e ~ ", 15, 2) as integer) <= 59"
        ~ " and cast(substr(" ~ e ~ ", 18, 2) as integer) <= 59"
        ~ " then cast(replace(replace(" ~ expression ~ ", 'T', ' '), 'Z', '') as timestamp) end end"
    ) -}}
{% endmacro %}
{% macro spark__parse_utc_timestamp(expression) %}
    {#- why the year check: Spark, too, reads year 0000 as 1 BC -#}
    {{- return(
        "case when " ~ rerun_safe.matches_pattern(expression, rerun_safe._timestamp_shape())
        ~ " and substr(" ~ expression ~ ", 1, 4) != '0000'"
        ~ " then try_to_timestamp(replace(replace(" ~ expression ~ ", 'T', ' '), 'Z', ''), 'yyyy-MM-dd HH:mm:ss') end"
    ) -}}
{% endmacro %}
