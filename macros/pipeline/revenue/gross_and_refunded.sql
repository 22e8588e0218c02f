{#- The contract's money split, shared by every table that aggregates contributions: a sale
    adds its amount to gross, a refund to refunded (net = gross - refunded). Integer cents. -#}
{% macro gross_and_refunded(relation) %}
    cast(sum(case when {{ relation }}.event_type = 'sale' then {{ relation }}.amount_cents else 0 end) as bigint)
        as gross_cents,
    cast(sum(case when {{ relation }}.event_type = 'refund' then {{ relation }}.amount_cents else 0 end) as bigint)
        as refunded_cents
{%- endmacro %}
