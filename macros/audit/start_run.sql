{#- on-run-start: make sure the audit tables exist and register this invocation with the next
    run sequence number. Models stamp the rows they change with that number, and each model's
    progress is the highest number it committed (see log_model_run), so progress survives
    crashes and --full-refresh of upstream models alike. The run's row is written whole, with
    `waited_seconds` (the SQL of how long begin_run waited for the lease), by one INSERT: no
    update rewrites the registry that other runs' models may be reading (on Spark an update
    replaces the partition's files). -#}
{% macro start_run(waited_seconds=none) %}
    {%- if execute -%}
        {%- do adapter.create_schema(api.Relation.create(database=rerun_safe.target_database(), schema=target.schema)) -%}
        {%- set runs = rerun_safe.runs_relation() -%}
        {#- Spark partitions the run registry by run_seq: its rows are updated (finish_run) by
            rewriting one run's partition (update_rows_sql) -#}
        {%- set create_runs = rerun_safe.create_audit_table(runs, [
            ['run_seq', 'bigint', true],
            ['invocation_id', 'text', true],
            ['command', 'text', false],
            ['started_at', 'timestamp', false],
            ['finished_at', 'timestamp', false],
            ['status', 'text', true],
        ], partition_by='run_seq') -%}
        {%- set create_run_log = rerun_safe.create_audit_table(rerun_safe.run_log_relation(), [
            ['run_seq', 'bigint', true],
            ['invocation_id', 'text', true],
            ['model', 'text', true],
            ['is_full_refresh', 'boolean', true],
            ['logged_at', 'timestamp', false],
            ['metrics', 'text', false],
        ]) -%}
        {%- set register_run -%}
            insert into {{ runs }} (run_seq, invocation_id, command, started_at, finished_at, status, waited_seconds)
            select coalesce(max(run_seq), 0) + 1, '{{ invocation_id }}', {{ rerun_safe.string_literal(flags.WHICH) }},
                {{ rerun_safe.run_clock() }}, null, 'started',
                {{ 'cast(null as bigint)' if waited_seconds is none else waited_seconds }}
            from {{ runs }}
            where not exists (select 1 from {{ runs }} where invocation_id = '{{ invocation_id }}')
        {%- endset -%}
        {%- do run_query(create_runs) -%}
        {%- do run_query(create_run_log) -%}
        {%- do rerun_safe._add_run_columns() -%}
        {%- do run_query(register_run) -%}
        {%- do rerun_safe.commit_hook_writes() -%}
    {%- endif -%}
{% endmacro %}
