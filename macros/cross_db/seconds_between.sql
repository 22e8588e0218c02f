{#- Whole seconds from timestamp `start` to timestamp `finish` (negative when finish is earlier). -#}
{% macro seconds_between(start, finish) %}{{ return(adapter.dispatch('seconds_between', 'rerun_safe')(start, finish)) }}{% endmacro %}
{% macro default__seconds_between(start, finish) %}
    {{- return("cast(extract(epoch from (" ~ finish ~ ")) - extract(epoch from (" ~ start ~ ")) as bigint)") -}}
{% endmacro %}
{% macro duckdb__seconds_between(start, finish) %}
    {{- return("(epoch(" ~ finish ~ ") - epoch(" ~ start ~ "))::bigint") -}}
{% endmacro %}
{% macro spark__seconds_between(start, finish) %}
    {{- return("(unix_timestamp(" ~ finish ~ ") - unix_timestamp(" ~ start ~ "))") -}}
{% endmacro %}
