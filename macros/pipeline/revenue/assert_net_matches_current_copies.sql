{#- Post-hook of the business tables, before COMMIT: the table's net equals the signed amounts
    of the current copies, so the business tables always reconcile with the one rule they are
    built from. -#}
{% macro assert_net_matches_current_copies(copies) %}
    {{- return(rerun_safe.assert_balance(
        left=(this, 'coalesce(sum(net_cents), 0)'),
        right=(copies, 'coalesce(sum(signed_amount_cents), 0)', "copy_status = 'current'"),
        message=this.identifier ~ ' net_cents != signed amounts of current copies',
    )) -}}
{% endmacro %}
