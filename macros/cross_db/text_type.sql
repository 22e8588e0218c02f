{#- The SQL name of the variable-length text type: `varchar` on DuckDB and Postgres; Spark
    wants `string` (its `varchar` needs a length). Not dbt.type_string(): that is `text` on
    Postgres, another type than the varchar these columns were created with (a typed null of
    the other type fails on_schema_change); where a column holds md5() or || output, which are
    `text` on Postgres, the models use dbt.type_string(). -#}
{% macro text_type() %}{{ return(adapter.dispatch('text_type', 'rerun_safe')()) }}{% endmacro %}
{% macro default__text_type() %}{{ return('varchar') }}{% endmacro %}
{% macro spark__text_type() %}{{ return('string') }}{% endmacro %}
