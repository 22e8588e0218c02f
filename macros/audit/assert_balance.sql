{#- Post-hook (inside the model's transaction): fail the statement, and so roll back the
    model's data and its progress row together, when `condition` is false. -#}
{% macro assert_balance(condition, message) %}
    {%- set check -%}
    select case when not ({{ condition }}) then {{ rerun_safe.raise_error('rerun_safe balance check failed: ' ~ message) }} end as balance_check
    {%- endset -%}
    {{ rerun_safe.check_now(check) }}
{% endmacro %}
