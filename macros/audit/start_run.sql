{#- on-run-start: make sure the audit tables exist and register this invocation with the next
    run sequence number. Models stamp the rows they change with that number, and each model's
    progress is the highest number it committed (see log_model_run), so progress survives
    crashes and --full-refresh of upstream models alike. -#}
{% macro start_run() %}
    {%- if execute -%}
        {%- do adapter.create_schema(api.Relation.create(database=target.database, schema=target.schema)) -%}
        {%- set runs = rerun_safe.runs_relation() -%}
        {%- set create_runs -%}
            create table if not exists {{ runs }} (
                run_seq bigint not null,
                invocation_id varchar not null,
                command varchar,
                started_at timestamp,
                finished_at timestamp,
                status varchar not null
            )
        {%- endset -%}
        {%- set create_run_log -%}
            create table if not exists {{ rerun_safe.run_log_relation() }} (
                run_seq bigint not null,
                invocation_id varchar not null,
                model varchar not null,
                is_full_refresh boolean not null,
                logged_at timestamp,
                metrics varchar
            )
        {%- endset -%}
        {%- set register_run -%}
            insert into {{ runs }} (run_seq, invocation_id, command, started_at, finished_at, status)
            select coalesce(max(run_seq), 0) + 1, '{{ invocation_id }}', {{ rerun_safe.string_literal(flags.WHICH) }},
                {{ rerun_safe.utc_now() }}, null, 'started'
            from {{ runs }}
            where not exists (select 1 from {{ runs }} where invocation_id = '{{ invocation_id }}')
        {%- endset -%}
        {%- do run_query(create_runs) -%}
        {%- do run_query(create_run_log) -%}
        {%- do run_query(register_run) -%}
        {%- do rerun_safe.commit_hook_writes() -%}
    {%- endif -%}
{% endmacro %}
