{#- A check to run as a hook: a SELECT that calls raise_error when the check fails. Returns the
    SQL for the hook to run. -#}
{% macro check_now(sql) %}{{ return(adapter.dispatch('check_now', 'rerun_safe')(sql)) }}{% endmacro %}
{% macro default__check_now(sql) %}{{ return(sql) }}{% endmacro %}
{% macro spark__check_now(sql) %}
    {#- why: dbt-spark's session cursor only plans a SELECT (Spark is lazy) and a hook never
        fetches its result, so raise_error would never run: the check runs here, through
        run_query, which collects it, when the hook is rendered right before it would run. -#}
    {%- if execute -%}
        {%- do run_query(sql) -%}
    {%- endif -%}
    {{- return('select 1 as checked') -}}
{% endmacro %}
