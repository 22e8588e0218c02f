{#- `expression` (text) as a bigint, or null when it is not an integer in bigint's range. -#}
{% macro try_cast_bigint(expression) %}{{ return(adapter.dispatch('try_cast_bigint', 'rerun_safe')(expression)) }}{% endmacro %}
{% macro default__try_cast_bigint(expression) %}
    {{- return("try_cast(" ~ expression ~ " as bigint)") -}}
{% endmacro %}
{% macro duckdb__try_cast_bigint(expression) %}
    {#- DuckDB's cast also reads '1.5' (as 2), '1e3', '0x10', '0b11' and '1_000': check the
        shape first, as on Postgres. -#}
    {{- return(
        "case when regexp_full_match(" ~ expression ~ ", '\\s*[-+]?[0-9]+\\s*') then try_cast("
        ~ expression ~ " as bigint) end"
    ) -}}
{% endmacro %}
{% macro postgres__try_cast_bigint(expression) %}
    {#- No try_cast (and no pg_input_is_valid before 16): check the shape, then the range on
        numeric, which casts any digit string; the nested case keeps the casts behind the checks. -#}
    {{- return(
        "case when (" ~ expression ~ ") ~ '^\\s*[-+]?[0-9]+\\s*$' then case when cast(" ~ expression
        ~ " as numeric) between -9223372036854775808 and 9223372036854775807 then cast(" ~ expression
        ~ " as bigint) end end"
    ) -}}
{% endmacro %}
