{#- The current orders, by the package's replace_keys strategy (delete + insert on the key). -#}
{{ config(incremental_strategy='replace_keys', unique_key='order_id') }}

select orders.*
from {{ ref('stg_order_events') }} as orders
{%- if is_incremental() %}
where orders.updated_at > (select max(current_rows.updated_at) from {{ this }} as current_rows)
{%- endif %}
