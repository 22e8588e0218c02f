-- A staged row (one delivery file, one record: _row_id) is staged once. When it is not, the
-- warehouse is inconsistent (a delivery staged twice, e.g. by two runs at once before the
-- warehouse lease): the test fails with what is wrong and the command that repairs it
-- (docs/architecture.md, "Concurrency"). Replaces a plain `unique` test, whose failure
-- would name neither.
with

duplicated as (
    select
        staged._row_id,
        count(*) as times_staged
    from {{ ref('stg_landing__events') }} as staged
    group by staged._row_id
    having count(*) > 1
)

-- The error is raised in the filter: dbt counts the rows a test returns, and a column it
-- does not read would never be evaluated.
select
    duplicated._row_id,
    duplicated.times_staged
from duplicated
where
    case
        when duplicated.times_staged > 1
            then {{ rerun_safe.raise_error(
                'rerun_safe: the warehouse is inconsistent: stg_landing__events holds a _row_id more than once '
                ~ '(a delivery staged twice). Repair: ' ~ rerun_safe.staging_repair_command()
            ) }}
    end is not null
