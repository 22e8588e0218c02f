{% macro allowed_lateness_hours() %}
    {{- return(rerun_safe.whole_number_var('allowed_lateness_hours', 0, 87600)) -}}
{% endmacro %}
