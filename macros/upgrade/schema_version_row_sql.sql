{#- The row that records `version`, reached from `from_version` (none: a first build). -#}
{% macro schema_version_row_sql(version, from_version) %}
    {%- set relation = rerun_safe.schema_version_relation() -%}
    {%- set sql -%}
        insert into {{ relation }} (schema_version, from_version, recorded_at, invocation_id, command)
        select
            cast({{ version | int }} as bigint),
            cast({{ 'null' if from_version is none else from_version | int }} as bigint),
            {{ rerun_safe.utc_now() }},
            '{{ invocation_id }}',
            {{ rerun_safe.string_literal(flags.WHICH) }}
        where not exists (select 1 from {{ relation }} as recorded where recorded.schema_version >= {{ version | int }})
    {%- endset -%}
    {{- return(sql) -}}
{% endmacro %}
