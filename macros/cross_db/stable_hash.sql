{#- A deterministic text hash of several expressions (nulls distinguished from ''), for ids
    that must be the same in every run and every warehouse: posting ids, payload identity. -#}
{% macro stable_hash(expressions) %}{{ return(adapter.dispatch('stable_hash', 'rerun_safe')(expressions)) }}{% endmacro %}
{% macro default__stable_hash(expressions) %}
    {#- dbt's cross-database md5 of text (the same hex digest on every engine) -#}
    {{- return(dbt.hash(rerun_safe.hash_input(expressions))) -}}
{% endmacro %}
