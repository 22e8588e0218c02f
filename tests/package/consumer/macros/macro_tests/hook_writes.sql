{#- on-run-start of the macro tests' build (var rerun_safe_macro_tests): write a row with
    run_query, as the package's run registry does, then commit_hook_writes(). The model
    test_commit_hook_writes reads it on another connection, which sees only committed rows. -#}
{% macro write_macro_test_hook_row() %}
    {%- if execute and var('rerun_safe_macro_tests', false) -%}
        {%- set relation = api.Relation.create(database=target.database, schema=target.schema, identifier='macro_test_hook_writes') -%}
        {%- set write_row -%}
            create table {{ relation }} as
            select 'written by on-run-start' as written_by
        {%- endset -%}
        {%- do run_query('drop table if exists ' ~ relation) -%}
        {%- do run_query(write_row) -%}
        {%- do rerun_safe.commit_hook_writes() -%}
    {%- endif -%}
{% endmacro %}
