{#- The SQL name of the variable-length text type: `varchar` on DuckDB and Postgres; Spark
    wants `string` (its `varchar` needs a length). -#}
{% macro text_type() %}{{ return(adapter.dispatch('text_type', 'rerun_safe')()) }}{% endmacro %}
{% macro default__text_type() %}{{ return('varchar') }}{% endmacro %}
{% macro spark__text_type() %}{{ return('string') }}{% endmacro %}
