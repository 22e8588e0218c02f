{#- seconds_between(): whole seconds, negative backwards, across a leap day and the epoch. -#}
select
    cases.case_name,
    {{ rerun_safe.seconds_between('cases.started_at', 'cases.finished_at') }} as seconds
from {{ ref('data_seconds_between') }} as cases
