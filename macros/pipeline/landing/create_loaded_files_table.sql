{#- on-run-start, after begin_run (so under the lease): the table exists before any model. -#}
{% macro create_loaded_files_table() %}
    {%- if rerun_safe.writing_command() -%}
        {%- set create_loaded_files = rerun_safe.create_audit_table(rerun_safe.loaded_files_relation(), [
            ['file_id', 'text', true],
            ['run_seq', 'bigint', true],
        ]) -%}
        {%- do run_query(create_loaded_files) -%}
        {%- do rerun_safe.commit_hook_writes() -%}
    {%- endif -%}
    {{- return('') -}}
{% endmacro %}
