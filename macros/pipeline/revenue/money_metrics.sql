{#- Run-log metrics of a business table (log_model_run's `all_rows`): `extra` (name -> metric),
    then the table's money totals. -#}
{% macro money_metrics(extra={}) %}
    {%- set metrics = dict(extra) -%}
    {%- for column in ['gross_cents', 'refunded_cents', 'net_cents'] -%}
        {%- do metrics.update({column: ('sum', column)}) -%}
    {%- endfor -%}
    {{- return(metrics) -}}
{% endmacro %}
