-- Every landed row is in exactly one place (docs/semantics.md, "the balance"): valid staged
-- rows are all in some copy; quarantine holds exactly the invalid rows plus every row of a
-- conflicting version. Returns a row per broken identity.
with

staged as (
    select * from {{ ref('stg_landing__events') }}
),

copies as (
    select * from {{ ref('int_event_copies_classified') }}
),

quarantine as (
    select * from {{ ref('quarantined_events') }}
),

conflicting_rows as (
    select count(*) as n
    from staged
    inner join (
        select distinct copies.event_id, copies.version
        from copies
        where copies.copy_status = 'conflicting'
    ) as conflicting
        on staged.event_id = conflicting.event_id and staged.version = conflicting.version
    where staged.invalid_reason is null
),

figures as (
    select
        (select count(*) from staged) as landed,
        (select count(*) from staged where staged.invalid_reason is not null) as invalid,
        (select coalesce(sum(copies.row_count), 0) from copies) as rows_in_copies,
        (select count(*) from quarantine) as quarantined,
        (select conflicting_rows.n from conflicting_rows) as conflicting
)

select *
from figures
where
    figures.landed != figures.invalid + figures.rows_in_copies
    or figures.quarantined != figures.invalid + figures.conflicting
