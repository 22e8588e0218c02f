{#- The adapter's own 'merge' strategy: the package's materialization must hand it over
    unchanged (tests/package/test_consumer.py compares it with the adapter's result). -#}
{{ config(incremental_strategy='merge', unique_key='order_id') }}

select orders.*
from {{ ref('stg_order_events') }} as orders
{%- if is_incremental() %}
where orders.updated_at > (select max(current_rows.updated_at) from {{ this }} as current_rows)
{%- endif %}
