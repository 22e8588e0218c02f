{#- Trim surrounding blanks (space, tab, CR, LF) and turn an empty result into null. -#}
{% macro trim_blank(expression) %}{{ return(adapter.dispatch('trim_blank', 'rerun_safe')(expression)) }}{% endmacro %}
{% macro default__trim_blank(expression) %}
    {{- return("nullif(trim(both ' ' from " ~ expression ~ "), '')") -}}
{% endmacro %}
{% macro duckdb__trim_blank(expression) %}
    {#- trim with a character set costs ~1 us a value (the staging model's most expensive step
        when it ran on every column); almost no value needs it, so test the two ends first. -#}
    {%- set blanks = "(' ', chr(9), chr(13), chr(10))" -%}
    {{- return(
        "nullif(case when left(" ~ expression ~ ", 1) in " ~ blanks ~ " or right(" ~ expression ~ ", 1) in " ~ blanks
        ~ " then trim(" ~ expression ~ ", ' ' || chr(9) || chr(13) || chr(10)) else " ~ expression ~ " end, '')"
    ) -}}
{% endmacro %}
{% macro postgres__trim_blank(expression) %}
    {{- return("nullif(btrim(" ~ expression ~ ", ' ' || chr(9) || chr(13) || chr(10)), '')") -}}
{% endmacro %}
