{#- raise_error with the message computed by the SQL text expression `expression` (so it can
    name the row at fault). -#}
{% macro raise_error_expression(expression) %}{{ return(adapter.dispatch('raise_error_expression', 'rerun_safe')(expression)) }}{% endmacro %}
{% macro default__raise_error_expression(expression) %}
    {{- return("cast(" ~ expression ~ " as integer)") -}}
{% endmacro %}
{% macro duckdb__raise_error_expression(expression) %}
    {{- return("error(" ~ expression ~ ")") -}}
{% endmacro %}
{% macro postgres__raise_error_expression(expression) %}
    {{- return("cast((" ~ expression ~ ") || substr(cast(random() as varchar), 1, 0) as integer)") -}}
{% endmacro %}
{% macro spark__raise_error_expression(expression) %}
    {{- return("raise_error(" ~ expression ~ ")") -}}
{% endmacro %}
