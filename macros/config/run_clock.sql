{#- The run's clock as SQL: the validated rerun_safe_now as a quoted timestamp literal, or now. -#}
{% macro run_clock() %}
    {%- set override = rerun_safe.run_clock_override() -%}
    {%- if override is none -%}{{ return(rerun_safe.utc_now()) }}{%- endif -%}
    {{- return("cast(" ~ rerun_safe.string_literal(override) ~ " as timestamp)") -}}
{% endmacro %}
