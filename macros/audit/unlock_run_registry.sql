{% macro unlock_run_registry() %}{{ return(adapter.dispatch('unlock_run_registry', 'rerun_safe')()) }}{% endmacro %}
{% macro default__unlock_run_registry() %}{% endmacro %}
{% macro postgres__unlock_run_registry() %}
    {%- do run_query("select pg_advisory_unlock(" ~ rerun_safe.registry_lock_key() ~ ")") -%}
{% endmacro %}
