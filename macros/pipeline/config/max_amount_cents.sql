{% macro max_amount_cents() %}
    {{- return(rerun_safe.whole_number_var('max_amount_cents', 1, rerun_safe.max_amount_cents_ceiling())) -}}
{% endmacro %}

{#- The largest amount_cents a row may carry (larger: quarantined as amount_out_of_range).
    Every sum the models store is a signed 64-bit integer (an item's gross and refunded cents in
    fct_order_items, a company-day's in fct_daily_revenue), so the var's accepted maximum is
    derived from the most rows one such sum may hold: 9,223,372 rows (max_rows_per_sum) of
    10^12 cents fit below 2^63 - 1; a larger var would let rows in that make every later build
    fail with an overflow naming no event. The default is that maximum. -#}
{% macro max_rows_per_sum() %}
    {{- return(9223372) -}}
{% endmacro %}

{% macro max_amount_cents_ceiling() %}
    {%- set int64_max = 9223372036854775807 -%}
    {#- the largest power of ten whose max_rows_per_sum() multiples fit: 10^12 -#}
    {%- set ceiling = namespace(value=1) -%}
    {%- for _ in range(18) -%}
        {%- if ceiling.value * 10 * rerun_safe.max_rows_per_sum() <= int64_max -%}
            {%- set ceiling.value = ceiling.value * 10 -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return(ceiling.value) -}}
{% endmacro %}
