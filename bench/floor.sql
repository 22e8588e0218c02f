-- The floor: the incremental work for ONE batch of delivery files, written by hand for DuckDB,
-- outside dbt, as one transaction on a copy of the warehouse taken before dbt's incremental run.
-- It reads the batch's CSV files, validates and types them exactly like stg_landing__events,
-- appends them to the staged rows, merges them into the copies of the events they touch,
-- re-classifies those events (lateness, applicability incl. recorded corrections, conflicts,
-- current version), writes the copies back (delete+insert on event_id), then merges the
-- affected order items into fct_order_items and replaces the affected revenue_date partitions
-- of fct_daily_revenue. It does NOT maintain fct_revenue_ledger, late_events,
-- quarantined_events or the run log (see docs/benchmarks.md).
--
-- It uses what the fastest hand-written DuckDB SQL for this work would: the touched events'
-- copies are found by a probe of the narrow 128-bit event_key column alone and fetched by rowid
-- (a join or IN on the wide table reads every column of every row group), the touched items'
-- copies likewise by item_key, and order items are replaced by key (delete + insert: DuckDB's
-- MERGE is several times slower). The keys are the project's (md5_number of the '|'-joined text).
--
-- Placeholders filled by bench/floor.py: __LANDED__ (one read_csv per batch file, union all),
-- __RUN_SEQ__ (the run number stamped on new rows), __LATE_S__ (allowed lateness in seconds).
-- Statements are separated by lines holding only ";;".

create temp table b_landed as
__LANDED__
;;
create temp table b_staged as
with trimmed as (
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
        _overflow, _file_id, _file_name as source_file, _record_number + 1 as source_line
    from b_landed
),
typed as (
    select
        *,
        case when regexp_full_match(amount_cents, '-?[0-9]+') then try_cast(amount_cents as bigint) end as a_v,
        case when regexp_full_match(version, '-?[0-9]+') then try_cast(version as bigint) end as v_v,
        case when regexp_full_match(event_time, '[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}Z| [0-9]{2}:[0-9]{2}:[0-9]{2})')
            then try_strptime(replace(replace(event_time, 'T', ' '), 'Z', ''), '%Y-%m-%d %H:%M:%S') end as et_v,
        case when regexp_full_match(ingested_at, '[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2}Z| [0-9]{2}:[0-9]{2}:[0-9]{2})')
            then try_strptime(replace(replace(ingested_at, 'T', ' '), 'Z', ''), '%Y-%m-%d %H:%M:%S') end as ing_v
    from trimmed
),
validated as (
    select
        *,
        case
            when _overflow is not null then 'malformed_row'
            when event_id is null then 'missing_event_id'
            when company_id is null then 'missing_company_id'
            when order_item_id is null then 'missing_order_item_id'
            when event_type is null or event_type not in ('sale', 'refund') then 'unknown_event_type'
            when a_v is null then 'invalid_amount'
            when a_v < 0 then 'negative_amount'
            when currency is null or not regexp_full_match(currency, '[A-Z]{3}') then 'invalid_currency'
            when et_v is null then 'invalid_event_time'
            when ing_v is null then 'invalid_ingested_at'
            when v_v is null or v_v < 1 then 'invalid_version'
        end as invalid_reason
    from typed
)
select
    md5(coalesce(cast(_file_id as varchar), '<null>') || '|' || coalesce(cast(source_line as varchar), '<null>')) as _row_id,
    event_id, event_type, company_id, order_id, order_item_id,
    case when invalid_reason is null then md5_number(coalesce(cast(event_id as varchar), '<null>')) end as event_key,
    case when invalid_reason is null then a_v end as amount_cents,
    currency,
    case when invalid_reason is null then et_v end as event_time,
    case when invalid_reason is null then ing_v end as ingested_at,
    case when invalid_reason is null then cast(v_v as integer) end as version,
    case when invalid_reason is null then md5(
        coalesce(cast(event_type as varchar), '<null>') || '|' || coalesce(cast(company_id as varchar), '<null>')
        || '|' || coalesce(cast(order_id as varchar), '<null>') || '|' || coalesce(cast(order_item_id as varchar), '<null>')
        || '|' || coalesce(cast(a_v as varchar), '<null>') || '|' || coalesce(cast(currency as varchar), '<null>')
        || '|' || coalesce(cast(et_v as varchar), '<null>') || '|' || coalesce(cast(v_v as varchar), '<null>')
    ) end as payload_hash,
    invalid_reason,
    amount_cents as raw_amount_cents, event_time as raw_event_time,
    ingested_at as raw_ingested_at, version as raw_version,
    source_file, source_line, _file_id,
    cast(__RUN_SEQ__ as bigint) as _loaded_run_seq
from validated
;;
-- staged rows are kept (the row store the next full refresh reads)
insert into main.stg_landing__events by name select * from b_staged
;;
create temp table b_events as
select distinct event_id, event_key from b_staged where invalid_reason is null
;;
-- the existing copies of the touched events
create temp table b_old as
select c.* from main.int_event_copies_classified as c
where c.rowid in (
    select p.rowid from main.int_event_copies_classified as p
    where p.event_key in (select b_events.event_key from b_events)
)
;;
-- the batch's rows folded into copies: count and earliest row
create temp table b_new as
select
    event_id, version, payload_hash,
    count(*) as n_rows,
    min(_loaded_run_seq) as first_seen,
    arg_min(
        {'event_type': event_type, 'company_id': company_id, 'order_id': order_id,
         'order_item_id': order_item_id, 'amount_cents': amount_cents, 'currency': currency,
         'event_time': event_time, 'ingested_at': ingested_at, 'source_file': source_file,
         'source_line': source_line},
        (ingested_at, source_file, source_line)
    ) as rep
from b_staged
where invalid_reason is null
group by event_id, version, payload_hash
;;
-- old copy + batch rows -> merged copy (row_count adds up, the earliest row represents it)
create temp table b_merged as
select
    coalesce(o.event_id, n.event_id) as event_id,
    coalesce(o.version, n.version) as version,
    coalesce(o.payload_hash, n.payload_hash) as payload_hash,
    coalesce(o.event_type, n.rep.event_type) as event_type,
    coalesce(o.company_id, n.rep.company_id) as company_id,
    coalesce(o.order_id, n.rep.order_id) as order_id,
    coalesce(o.order_item_id, n.rep.order_item_id) as order_item_id,
    coalesce(o.amount_cents, n.rep.amount_cents) as amount_cents,
    coalesce(o.currency, n.rep.currency) as currency,
    coalesce(o.event_time, n.rep.event_time) as event_time,
    coalesce(o.row_count, 0) + coalesce(n.n_rows, 0) as row_count,
    least(o.first_seen_run_seq, n.first_seen) as first_seen_run_seq,
    case
        when o.event_id is null then n.rep.ingested_at
        when n.event_id is null then o.ingested_at
        when (n.rep.ingested_at, n.rep.source_file, n.rep.source_line) < (o.ingested_at, o.source_file, o.source_line)
            then n.rep.ingested_at
        else o.ingested_at
    end as ingested_at,
    case
        when o.event_id is null then n.rep.source_file
        when n.event_id is null then o.source_file
        when (n.rep.ingested_at, n.rep.source_file, n.rep.source_line) < (o.ingested_at, o.source_file, o.source_line)
            then n.rep.source_file
        else o.source_file
    end as source_file,
    case
        when o.event_id is null then n.rep.source_line
        when n.event_id is null then o.source_line
        when (n.rep.ingested_at, n.rep.source_file, n.rep.source_line) < (o.ingested_at, o.source_file, o.source_line)
            then n.rep.source_line
        else o.source_line
    end as source_line,
    o._content_hash as old_content_hash,
    o._changed_run_seq as old_changed_run_seq
from b_old as o
full outer join b_new as n
    on o.event_id = n.event_id and o.version = n.version and o.payload_hash = n.payload_hash
;;
-- classify the touched events again: lateness, corrections, conflicts, current version
create temp table b_copies as
with lateness as (
    select
        *,
        cast(event_time as date) as revenue_date,
        (epoch(ingested_at) - epoch(event_time))::bigint as lateness_seconds
    from b_merged
),
covering as (
    select l.event_id, l.version, l.payload_hash,
        arg_min(c.correction_id, (c.recorded_run_seq, c.correction_id)) as correction_id
    from lateness as l
    inner join main.int_corrections_recorded as c
        on l.revenue_date between c.correct_from and c.correct_to and l.ingested_at <= c.mark
    group by all
),
applicability as (
    select
        l.*,
        l.lateness_seconds > __LATE_S__ as is_late,
        case when l.lateness_seconds > __LATE_S__ then cv.correction_id end as applied_by_correction_id
    from lateness as l
    left join covering as cv using (event_id, version, payload_hash)
),
ranked as (
    select
        *,
        (not is_late or applied_by_correction_id is not null) as is_applicable,
        max(case when (not is_late or applied_by_correction_id is not null) then version end)
            over (partition by event_id) as current_version,
        sum(case when (not is_late or applied_by_correction_id is not null) then 1 else 0 end)
            over (partition by event_id, version) as applicable_copies
    from applicability
),
classified as (
    select
        *,
        case
            when is_applicable and applicable_copies > 1 then 'conflicting'
            when not is_applicable then 'late_waiting'
            when version < current_version then 'superseded'
            else 'current'
        end as copy_status
    from ranked
),
hashed as (
    select
        *,
        md5(coalesce(cast(copy_status as varchar), '<null>') || '|' || coalesce(cast(applied_by_correction_id as varchar), '<null>')
            || '|' || coalesce(cast(row_count as varchar), '<null>') || '|' || coalesce(cast(ingested_at as varchar), '<null>')
            || '|' || coalesce(cast(source_file as varchar), '<null>') || '|' || coalesce(cast(source_line as varchar), '<null>'))
            as _content_hash
    from classified
)
select
    md5(coalesce(cast(event_id as varchar), '<null>') || '|' || coalesce(cast(version as varchar), '<null>')
        || '|' || coalesce(cast(payload_hash as varchar), '<null>')) as copy_id,
    md5_number(coalesce(cast(event_id as varchar), '<null>')) as event_key,
    md5_number(coalesce(cast(company_id as varchar), '<null>') || '|' || coalesce(cast(order_item_id as varchar), '<null>'))
        as item_key,
    cast(__RUN_SEQ__ as bigint) as _written_run_seq,
    event_id, version, payload_hash, event_type, company_id, order_id, order_item_id, amount_cents,
    currency, event_time, ingested_at, revenue_date,
    case when event_type = 'refund' then -amount_cents else amount_cents end as signed_amount_cents,
    lateness_seconds, is_late, is_applicable, applied_by_correction_id, copy_status, row_count,
    source_file, source_line, first_seen_run_seq, _content_hash,
    case when old_content_hash = _content_hash then old_changed_run_seq else __RUN_SEQ__ end as _changed_run_seq
from hashed
;;
delete from main.int_event_copies_classified where event_key in (select b_events.event_key from b_events)
;;
insert into main.int_event_copies_classified by name select * from b_copies
;;
-- every item and day any copy (old or new) of a touched event belongs to
create temp table b_items as
select distinct item_key, company_id, order_item_id from b_old
union
select distinct item_key, company_id, order_item_id from b_copies
;;
create temp table b_days as
select distinct revenue_date from b_old
union
select distinct revenue_date from b_copies
;;
create temp table b_item_rows as
with contributing as (
    select c.*
    from main.int_event_copies_classified as c
    where c.rowid in (
        select p.rowid from main.int_event_copies_classified as p
        where p.copy_status = 'current' and p.item_key in (select b_items.item_key from b_items)
    )
)
select
    i.item_key, i.company_id, i.order_item_id,
    t.order_id, t.currency, t.first_event_time, t.last_event_time,
    coalesce(t.gross_cents, 0) as gross_cents,
    coalesce(t.refunded_cents, 0) as refunded_cents,
    coalesce(t.gross_cents, 0) - coalesce(t.refunded_cents, 0) as net_cents,
    coalesce(t.event_count, 0) as event_count
from b_items as i
left join (
    select
        company_id, order_item_id,
        arg_max(order_id, (event_time, event_id)) as order_id,
        arg_max(currency, (event_time, event_id)) as currency,
        min(event_time) as first_event_time,
        max(event_time) as last_event_time,
        cast(sum(case when event_type = 'sale' then amount_cents else 0 end) as bigint) as gross_cents,
        cast(sum(case when event_type = 'refund' then amount_cents else 0 end) as bigint) as refunded_cents,
        count(*) as event_count
    from contributing
    group by company_id, order_item_id
) as t using (company_id, order_item_id)
;;
delete from main.fct_order_items where item_key in (select b_item_rows.item_key from b_item_rows)
;;
insert into main.fct_order_items by name
select * from b_item_rows where event_count > 0
;;
delete from main.fct_daily_revenue where revenue_date in (select revenue_date from b_days)
;;
insert into main.fct_daily_revenue by name
select
    c.company_id, c.revenue_date, c.currency,
    cast(sum(case when c.event_type = 'sale' then c.amount_cents else 0 end) as bigint) as gross_cents,
    cast(sum(case when c.event_type = 'refund' then c.amount_cents else 0 end) as bigint) as refunded_cents,
    count(*) as event_count,
    cast(sum(case when c.event_type = 'sale' then c.amount_cents else -c.amount_cents end) as bigint) as net_cents
from main.int_event_copies_classified as c
where c.copy_status = 'current' and c.revenue_date in (select revenue_date from b_days)
group by c.company_id, c.revenue_date, c.currency
