{#- dedupe_by_key(): one row per key, the FIRST by the given order (ties broken by the next
    term; `desc` honoured), whatever the rows' order in the table: each key's first row is
    seeded between two others, so a row kept by scan order is another one. -#}
{%- set input = ref('data_dedupe_by_key') %}

with

firsts as (
    {{ rerun_safe.dedupe_by_key(input, ['group_key'], ['ord', 'tiebreak']) }}
),

lasts as (
    {{ rerun_safe.dedupe_by_key(input, ['group_key'], ['ord desc', 'tiebreak']) }}
),

final as (
    select 'first' as pick, firsts.group_key, firsts.ord, firsts.tiebreak, firsts.label from firsts
    union all
    select 'last' as pick, lasts.group_key, lasts.ord, lasts.tiebreak, lasts.label from lasts
)

select * from final
