{#- One advisory lock key per schema (the warehouse), so that separate warehouses on one
    server never wait for each other. -#}
{% macro registry_lock_key() %}
    {{- return("hashtext('rerun_safe:" ~ target.schema | replace("'", "''") ~ "')") -}}
{% endmacro %}
