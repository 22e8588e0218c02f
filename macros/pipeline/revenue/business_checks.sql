{#- Shared by the business tables' post-hooks (inside each model's transaction). -#}

{#- Run-log metrics: the table's money totals, plus `extra` (name -> SQL scalar). -#}
{% macro money_metrics(extra={}) %}
    {%- set metrics = dict(extra) -%}
    {%- for column in ['gross_cents', 'refunded_cents', 'net_cents'] -%}
        {%- do metrics.update({column: 'select coalesce(sum(' ~ column ~ '), 0) from ' ~ this}) -%}
    {%- endfor -%}
    {{- return(metrics) -}}
{% endmacro %}

{#- Before COMMIT: the table's net equals the signed amounts of the current copies, so the
    business tables always reconcile with the one rule they are built from. -#}
{% macro assert_net_matches_current_copies(copies) %}
    {{- return(rerun_safe.assert_balance(
        '(select coalesce(sum(net_cents), 0) from ' ~ this ~ ') = (select coalesce(sum(signed_amount_cents), 0) from '
        ~ copies ~ " where copy_status = 'current')",
        this.identifier ~ ' net_cents != signed amounts of current copies'
    )) -}}
{% endmacro %}
