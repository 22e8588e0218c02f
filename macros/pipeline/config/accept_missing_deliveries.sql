{% macro accept_missing_deliveries() %}
    {{- return(rerun_safe.flag_var('accept_missing_deliveries')) -}}
{% endmacro %}
