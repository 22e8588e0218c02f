{#- True when the whole of `expression` matches the regular expression `pattern`. -#}
{% macro matches_pattern(expression, pattern) %}{{ return(adapter.dispatch('matches_pattern', 'rerun_safe')(expression, pattern)) }}{% endmacro %}
{% macro default__matches_pattern(expression, pattern) %}
    {{- return("(" ~ expression ~ ") ~ '^(" ~ pattern ~ ")$'") -}}
{% endmacro %}
{% macro duckdb__matches_pattern(expression, pattern) %}
    {{- return("regexp_full_match(" ~ expression ~ ", '" ~ pattern ~ "')") -}}
{% endmacro %}
{% macro spark__matches_pattern(expression, pattern) %}
    {{- return("(" ~ expression ~ ") rlike '^(" ~ pattern ~ ")$'") -}}
{% endmacro %}
