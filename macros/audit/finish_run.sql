{#- on-run-end: the completion marker. A run whose row still says `started` crashed; `failed`
    had a failing node (whatever committed before it is consistent, each model being atomic);
    `success` finished every node; a `refused` run (begin_run) keeps its status. Consumers read published tables only after a `success`. -#}
{% macro finish_run(results) %}
    {%- if rerun_safe.writing_command() -%}
        {%- set failed = results | selectattr('status', 'in', ['error', 'fail', 'runtime error']) | list -%}
        {%- set status = 'failed' if failed else 'success' -%}
        {%- do run_query(rerun_safe.update_rows_sql(
            rerun_safe.runs_relation(),
            [['status', "'" ~ status ~ "'"], ['finished_at', rerun_safe.utc_now()]],
            "invocation_id = '" ~ invocation_id ~ "' and status = 'started'",
        )) -%}
        {%- do rerun_safe.commit_hook_writes() -%}
    {%- endif -%}
{% endmacro %}
