{#- An expression that aborts the statement with `message` when evaluated. -#}
{% macro raise_error(message) %}{{ return(adapter.dispatch('raise_error', 'rerun_safe')(message)) }}{% endmacro %}
{% macro default__raise_error(message) %}
    {#- Portable fallback: a failing cast carries the message into the database's error. -#}
    {{- return("cast('" ~ message | replace("'", "''") ~ "' as integer)") -}}
{% endmacro %}
{% macro duckdb__raise_error(message) %}
    {{- return("error('" ~ message | replace("'", "''") ~ "')") -}}
{% endmacro %}
{% macro postgres__raise_error(message) %}
    {#- Postgres has no error() function in SQL, and it casts a constant string while parsing,
        so the default's cast would fail every statement, taken branch or not. Concatenating a
        volatile empty string delays the cast to execution: only a row that takes the branch
        fails, with the message in the error ("invalid input syntax for type integer: ..."). -#}
    {{- return("cast('" ~ message | replace("'", "''") ~ "' || substr(cast(random() as varchar), 1, 0) as integer)") -}}
{% endmacro %}

{% macro spark__raise_error(message) %}
    {{- return("raise_error(" ~ rerun_safe.string_literal(message) ~ ")") -}}
{% endmacro %}
