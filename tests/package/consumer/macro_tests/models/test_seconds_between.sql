with

cases as (
    select * from {{ ref('data_seconds_between') }}
),

final as (
    select
        cases.case_name,
        {{ rerun_safe.seconds_between('cases.started_at', 'cases.finished_at') }} as seconds
    from cases
)

select * from final
