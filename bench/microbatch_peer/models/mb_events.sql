{#- Valid landed rows, one per (event_id, version, payload) and ingestion day: a microbatch
    model on ingested_at. A batch reads only the delivery files that can hold rows ingested in
    it (files dated in the batch or up to max_delivery_lag_days later), validates them like
    rerun_safe's staging (invalid rows are simply dropped: the peer has no quarantine) and
    keeps rows ingested inside the batch window, since microbatch replaces exactly that window.
    A copy re-sent in another batch stays a second row here; mb_daily_revenue collapses it. -#}
{{ config(event_time='ingested_at', begin=var('begin')) }}
{%- set ts_shape = '[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}Z| [0-9]{2}:[0-9]{2}:[0-9]{2})' -%}
{%- set files = [] -%}
{%- if execute and model.batch -%}
    {%- set first = model.batch.event_time_start.strftime('%Y-%m-%d') -%}
    {%- set stop = (model.batch.event_time_end + modules.datetime.timedelta(days=var('max_delivery_lag_days'))).strftime('%Y-%m-%d') -%}
    {%- for row in run_query("select file from glob('" ~ var('landing_path') ~ "/*.csv') order by file").rows -%}
        {%- set day = row[0].split('/')[-1][:10] -%}
        {%- if day >= first and day < stop -%}{%- do files.append(row[0]) -%}{%- endif -%}
    {%- endfor -%}
{%- endif %}

with

landed as (
    {%- if files %}
    select *
    from read_csv(
        [{%- for f in files %}'{{ f }}'{{ ', ' if not loop.last }}{% endfor -%}],
        header = true, auto_detect = false, delim = ',', quote = '"', escape = '"',
        strict_mode = false, null_padding = true,
        columns = {
            'event_id': 'varchar', 'event_type': 'varchar', 'company_id': 'varchar',
            'order_id': 'varchar', 'order_item_id': 'varchar', 'amount_cents': 'varchar',
            'currency': 'varchar', 'event_time': 'varchar', 'ingested_at': 'varchar',
            'version': 'varchar', '_overflow': 'varchar'
        }
    )
    {%- else %}
    select
        null::varchar as event_id, null::varchar as event_type, null::varchar as company_id,
        null::varchar as order_id, null::varchar as order_item_id, null::varchar as amount_cents,
        null::varchar as currency, null::varchar as event_time, null::varchar as ingested_at,
        null::varchar as version, null::varchar as _overflow
    where false
    {%- endif %}
),

trimmed as (
    select
        nullif(trim(event_id, ' ' || chr(9) || chr(13) || chr(10)), '') as event_id,
        nullif(trim(event_type, ' ' || chr(9) || chr(13) || chr(10)), '') as event_type,
        nullif(trim(company_id, ' ' || chr(9) || chr(13) || chr(10)), '') as company_id,
        nullif(trim(order_id, ' ' || chr(9) || chr(13) || chr(10)), '') as order_id,
        nullif(trim(order_item_id, ' ' || chr(9) || chr(13) || chr(10)), '') as order_item_id,
        nullif(trim(amount_cents, ' ' || chr(9) || chr(13) || chr(10)), '') as amount_cents,
        nullif(trim(currency, ' ' || chr(9) || chr(13) || chr(10)), '') as currency,
        nullif(trim(event_time, ' ' || chr(9) || chr(13) || chr(10)), '') as event_time,
        nullif(trim(ingested_at, ' ' || chr(9) || chr(13) || chr(10)), '') as ingested_at,
        nullif(trim(version, ' ' || chr(9) || chr(13) || chr(10)), '') as version,
        _overflow
    from landed
),

typed as (
    select
        event_id, event_type, company_id, order_id, order_item_id, currency, _overflow,
        case when regexp_full_match(amount_cents, '-?[0-9]+') then try_cast(amount_cents as bigint) end as amount_cents,
        case when regexp_full_match(version, '-?[0-9]+') then try_cast(version as bigint) end as version,
        case when regexp_full_match(event_time, '{{ ts_shape }}')
            then try_strptime(replace(replace(event_time, 'T', ' '), 'Z', ''), '%Y-%m-%d %H:%M:%S') end as event_time,
        case when regexp_full_match(ingested_at, '{{ ts_shape }}')
            then try_strptime(replace(replace(ingested_at, 'T', ' '), 'Z', ''), '%Y-%m-%d %H:%M:%S') end as ingested_at
    from trimmed
),

valid as (
    select *
    from typed
    where
        _overflow is null and event_id is not null and company_id is not null
        and order_item_id is not null and event_type in ('sale', 'refund')
        and amount_cents >= 0 and regexp_full_match(currency, '[A-Z]{3}')
        and event_time is not null and ingested_at is not null and version >= 1
        {%- if model.batch %}
        and ingested_at >= '{{ model.batch.event_time_start }}'
        and ingested_at < '{{ model.batch.event_time_end }}'
        {%- endif %}
)

select
    event_id, cast(version as integer) as version,
    md5(concat_ws('|', event_type, company_id, coalesce(order_id, '<null>'), order_item_id,
        amount_cents, currency, event_time, version)) as payload_hash,
    event_type, company_id, order_id, order_item_id, amount_cents, currency, event_time,
    min(ingested_at) as ingested_at,
    count(*) as row_count
from valid
group by all
