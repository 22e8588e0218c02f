{#- The row the on-run-start hook wrote with run_query and committed with
    commit_hook_writes() (macros/macro_tests/hook_writes.sql). This model runs on another
    connection than the hook: it sees the table only if the hook's writes were committed. -#}
with

hook_rows as (
    select * from {{ target.schema }}.macro_test_hook_writes
),

final as (
    select hook_rows.written_by
    from hook_rows
)

select * from final
