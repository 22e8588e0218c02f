{#- Revenue by (company_id, revenue_date, currency): a microbatch model on the event's day.
    A batch recomputes its days from every version of every event that has a row on those
    days (read unfiltered with .render(), so a newer version elsewhere is seen), applying the
    contract's rules: a copy's arrival is its earliest row, a copy later than the watermark is
    not applicable, the highest applicable version wins, two applicable copies of one version
    conflict. What a batch cannot do is touch days outside its own window: a run with
    lookback 3 rewrites the last 4 days only. -#}
{{ config(event_time='revenue_ts', begin=var('begin')) }}

with

events as (
    select * from {{ ref('mb_events').render() }}
),

in_window as (
    select distinct event_id
    from events
    {%- if model.batch %}
    where
        event_time >= '{{ model.batch.event_time_start }}'
        and event_time < '{{ model.batch.event_time_end }}'
    {%- endif %}
),

copies as (
    select
        event_id, version, payload_hash, event_type, company_id, order_id, order_item_id,
        amount_cents, currency, event_time,
        min(ingested_at) as ingested_at
    from events
    semi join in_window using (event_id)
    group by all
),

applicable as (
    select *
    from copies
    where (epoch(ingested_at) - epoch(event_time)) <= {{ var('allowed_lateness_hours') | int }} * 3600
),

ranked as (
    select
        *,
        max(version) over (partition by event_id) as current_version,
        count(*) over (partition by event_id, version) as copies_of_version
    from applicable
),

current_copies as (
    select *
    from ranked
    where version = current_version and copies_of_version = 1
    {%- if model.batch %}
        and event_time >= '{{ model.batch.event_time_start }}'
        and event_time < '{{ model.batch.event_time_end }}'
    {%- endif %}
)

select
    company_id,
    cast(event_time as date) as revenue_date,
    currency,
    cast(sum(case when event_type = 'sale' then amount_cents else 0 end) as bigint) as gross_cents,
    cast(sum(case when event_type = 'refund' then amount_cents else 0 end) as bigint) as refunded_cents,
    count(*) as event_count,
    cast(sum(case when event_type = 'sale' then amount_cents else -amount_cents end) as bigint) as net_cents,
    cast(cast(event_time as date) as timestamp) as revenue_ts
from current_copies
group by company_id, cast(event_time as date), currency
