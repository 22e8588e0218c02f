{#- The SQL type of surrogate_key() (an empty relation of a model's shape needs it). -#}
{% macro surrogate_key_type() %}{{ return(adapter.dispatch('surrogate_key_type', 'rerun_safe')()) }}{% endmacro %}
{% macro default__surrogate_key_type() %}{{ return(rerun_safe.text_type()) }}{% endmacro %}
{% macro duckdb__surrogate_key_type() %}{{ return('uhugeint') }}{% endmacro %}
{% macro postgres__surrogate_key_type() %}{{ return('uuid') }}{% endmacro %}
