{#- The command that rebuilds staging from the landing folder, and everything downstream of it,
    keeping the correction log and the ledger history (both full_refresh=false). Named by the
    messages of the staging uniqueness checks. -#}
{% macro staging_repair_command() %}
    {{- return("dbt build --full-refresh --select stg_landing__deliveries+ (with the scheduled build's --vars and --target)") -}}
{% endmacro %}
