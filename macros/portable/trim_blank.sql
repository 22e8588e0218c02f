{#- Trim surrounding blanks (space, tab, CR, LF) and turn an empty result into null. -#}
{% macro trim_blank(expression) %}{{ return(adapter.dispatch('trim_blank', 'rerun_safe')(expression)) }}{% endmacro %}
{% macro default__trim_blank(expression) %}
    {{- return("nullif(trim(both ' ' from " ~ expression ~ "), '')") -}}
{% endmacro %}
{% macro duckdb__trim_blank(expression) %}
    {{- return("nullif(trim(" ~ expression ~ ", ' ' || chr(9) || chr(13) || chr(10)), '')") -}}
{% endmacro %}
{% macro postgres__trim_blank(expression) %}
    {{- return("nullif(btrim(" ~ expression ~ ", ' ' || chr(9) || chr(13) || chr(10)), '')") -}}
{% endmacro %}
