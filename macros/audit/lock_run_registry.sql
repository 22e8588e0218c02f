{#- Serialise what runs take in on-run-start (the lease, the audit tables' DDL, the run number)
    across sessions. A session lock: start_run commits in between, and the hook's connection
    lives for the whole of on-run-start (it is closed, so the lock freed, even on error). -#}
{% macro lock_run_registry() %}{{ return(adapter.dispatch('lock_run_registry', 'rerun_safe')()) }}{% endmacro %}
{% macro default__lock_run_registry() %}{% endmacro %}
{% macro postgres__lock_run_registry() %}
    {%- do run_query("select pg_advisory_lock(" ~ rerun_safe.registry_lock_key() ~ ")") -%}
{% endmacro %}
