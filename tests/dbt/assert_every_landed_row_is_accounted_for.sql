-- Every landed row is in exactly one place (docs/semantics.md, "the balance"): valid staged
-- rows are all in some copy; quarantine holds exactly the invalid rows plus every row of a
-- conflicting version. Returns a row when either identity breaks.
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

conflicting_versions as (
    select distinct
        copies.event_id,
        copies.version
    from copies
    where copies.copy_status = 'conflicting'
),

staged_figures as (
    select
        count(*) as landed,
        count(staged.invalid_reason) as invalid,
        count(conflicting_versions.event_id) as conflicting
    from staged
    left join conflicting_versions
        on
            staged.event_id = conflicting_versions.event_id
            and staged.version = conflicting_versions.version
            and staged.invalid_reason is null
),

copy_figures as (
    select coalesce(sum(copies.row_count), 0) as rows_in_copies
    from copies
),

quarantine_figures as (
    select count(*) as quarantined
    from quarantine
),

final as (
    select
        staged_figures.landed,
        staged_figures.invalid,
        staged_figures.conflicting,
        copy_figures.rows_in_copies,
        quarantine_figures.quarantined
    from staged_figures
    cross join copy_figures
    cross join quarantine_figures
)

select *
from final
where
    landed != invalid + rows_in_copies
    or quarantined != invalid + conflicting
