{#- Wall-clock time, used only in audit tables (never in business tables: a re-run must not
    change them). -#}
{% macro utc_now() %}{{ return(adapter.dispatch('utc_now', 'rerun_safe')()) }}{% endmacro %}
{% macro default__utc_now() %}{{ return('current_timestamp') }}{% endmacro %}
{% macro duckdb__utc_now() %}{{ return("cast(timezone('UTC', now()) as timestamp)") }}{% endmacro %}
{% macro postgres__utc_now() %}{{ return("(now() at time zone 'utc')") }}{% endmacro %}
