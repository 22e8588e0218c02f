{% macro lookback_hours() %}
    {{- return(rerun_safe.whole_number_var('lookback_hours', 0, 87600)) -}}
{% endmacro %}
