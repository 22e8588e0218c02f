{#- utc_now() in a session whose time zone is 14 hours ahead of UTC: it must still be UTC.
    The reference is the epoch of the current instant, which no time zone changes; the local
    time's offset shows that the session really was in that zone. A table, so the values are
    computed in this session. -#}
{{
    config(
        materialized='table',
        pre_hook=["set timezone = 'Pacific/Kiritimati'"],
        post_hook=["reset timezone"],
    )
}}

with

clocks as (
    select
        {{ rerun_safe.seconds_between("cast('1970-01-01 00:00:00' as timestamp)", rerun_safe.utc_now()) }} as utc_now_epoch,
        cast(extract(epoch from current_timestamp) as bigint) as instant_epoch,
        {{ rerun_safe.seconds_between(rerun_safe.utc_now(), 'cast(current_timestamp as timestamp)') }} as local_offset_seconds
),

final as (
    select
        abs(clocks.utc_now_epoch - clocks.instant_epoch) <= 2 as is_utc,
        clocks.local_offset_seconds
    from clocks
)

select * from final
