{#- Wait until no model of the holder is in flight (each keeps the row share-locked), so that
    the holder's sign of life is read after its latest commit. -#}
{% macro lock_lease_row() %}{{ return(adapter.dispatch('lock_lease_row', 'rerun_safe')()) }}{% endmacro %}
{% macro default__lock_lease_row() %}{% endmacro %}
{% macro postgres__lock_lease_row() %}
    {%- do run_query("select lease_name from " ~ rerun_safe.lease_relation() ~ " for update") -%}
{% endmacro %}
