{#- Wall-clock UTC time as a timestamp without time zone, used only in audit tables (never in
    business tables: a re-run must not change them). dbt's current_timestamp_in_utc_backcompat
    is that on Postgres; on DuckDB it casts the session-zone time, which is local time unless
    the session says UTC, so DuckDB converts explicitly. -#}
{% macro utc_now() %}{{ return(adapter.dispatch('utc_now', 'rerun_safe')()) }}{% endmacro %}
{% macro default__utc_now() %}{{ return(dbt.current_timestamp_in_utc_backcompat() | trim) }}{% endmacro %}
{% macro duckdb__utc_now() %}{{ return("cast(timezone('UTC', now()) as timestamp)") }}{% endmacro %}
{% macro spark__utc_now() %}{{ return("to_utc_timestamp(current_timestamp(), current_timezone())") }}{% endmacro %}
