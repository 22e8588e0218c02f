{#- An expression that aborts the statement with `message` when evaluated. -#}
{% macro raise_error(message) %}{{ return(adapter.dispatch('raise_error', 'rerun_safe')(message)) }}{% endmacro %}
{% macro default__raise_error(message) %}
    {#- Portable fallback: a failing cast carries the message into the database's error. -#}
    {{- return("cast('" ~ message | replace("'", "''") ~ "' as integer)") -}}
{% endmacro %}
{% macro duckdb__raise_error(message) %}
    {{- return("error('" ~ message | replace("'", "''") ~ "')") -}}
{% endmacro %}
