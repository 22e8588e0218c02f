{#- The type of text the engine produces by itself (md5(), ||, literals), for a typed null that
    must union with such values. On Postgres md5() is `text` and `varchar` is another type, so an
    incremental model whose first run cast a null as varchar fails on_schema_change later. -#}
{% macro text_type() %}{{ return(adapter.dispatch('text_type', 'rerun_safe')()) }}{% endmacro %}
{% macro default__text_type() %}{{ return('varchar') }}{% endmacro %}
{% macro postgres__text_type() %}{{ return('text') }}{% endmacro %}
