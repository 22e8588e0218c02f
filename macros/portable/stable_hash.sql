{#- A deterministic text hash of several expressions (nulls distinguished from ''), for ids
    that must be the same in every run and every warehouse: posting ids, payload identity. -#}
{% macro stable_hash(expressions) %}{{ return(adapter.dispatch('stable_hash', 'rerun_safe')(expressions)) }}{% endmacro %}
{% macro default__stable_hash(expressions) %}
    {%- set parts = [] -%}
    {%- for e in expressions -%}
        {%- do parts.append("coalesce(cast(" ~ e ~ " as varchar), '<null>')") -%}
    {%- endfor -%}
    {{- return("md5(" ~ parts | join(" || '|' || ") ~ ")") -}}
{% endmacro %}
