{#- The latest version of every order (the EL tool appends a row per change). -#}
{{ config(materialized='view') }}

with

ranked as (
    {{ rerun_safe.dedupe_by_key(ref('raw_order_events'), ['order_id'], ['updated_at desc', 'amount_cents desc', 'customer_id']) }}
)

select
    ranked.order_id,
    ranked.customer_id,
    ranked.order_date,
    ranked.amount_cents,
    ranked.updated_at
from ranked
