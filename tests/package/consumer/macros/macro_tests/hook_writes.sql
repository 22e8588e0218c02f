{#- on-run-start of the macro tests' build (var rerun_safe_macro_tests): write a row with
    run_query, as the package's run registry does, then commit_hook_writes(). The model
    test_commit_hook_writes reads it on another connection, which sees only committed rows.
    Observed with dbt-core 1.11 and dbt-postgres: this row is committed even when
    commit_hook_writes() does nothing (dbt sends its own COMMIT on the connection before the
    hooks, after which the statements appear to commit one by one). So the test pins what the
    macro promises; it cannot show that the macro is what keeps the promise there. -#}
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
