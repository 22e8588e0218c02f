{#- raise_error() in a branch no row takes: the statement runs (Postgres must not fail on the
    constant message while planning). A table, so the statement runs in the build. -#}
{{ config(materialized='table') }}
select
    cases.case_name,
    case when cases.amount < -1000 then {{ rerun_safe.raise_error("below -1000: it's never raised") }} else cases.amount end as amount
from {{ ref('data_raise_error') }} as cases
