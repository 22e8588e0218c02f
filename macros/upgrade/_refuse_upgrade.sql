{#- Stop the upgrade before it changed anything: end its transaction, free the registry lock,
    fail with `message`. -#}
{% macro _refuse_upgrade(message) %}
    {%- do rerun_safe._rollback_upgrade_transaction() -%}
    {%- do rerun_safe.unlock_run_registry() -%}
    {{- exceptions.raise_compiler_error(message) -}}
{% endmacro %}

{% macro _rollback_upgrade_transaction() %}{{ return(adapter.dispatch('_rollback_upgrade_transaction', 'rerun_safe')()) }}{% endmacro %}
{% macro default___rollback_upgrade_transaction() %}
    {%- do run_query('rollback') -%}
{% endmacro %}
{% macro spark___rollback_upgrade_transaction() %}{% endmacro %}
