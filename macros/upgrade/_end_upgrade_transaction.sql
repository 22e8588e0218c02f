{#- Commit the upgrade's one transaction (_begin_upgrade_transaction.sql); nothing on Spark. -#}
{% macro _end_upgrade_transaction() %}{{ return(adapter.dispatch('_end_upgrade_transaction', 'rerun_safe')()) }}{% endmacro %}
{% macro default___end_upgrade_transaction() %}
    {%- do run_query('commit') -%}
{% endmacro %}
{% macro spark___end_upgrade_transaction() %}{% endmacro %}
