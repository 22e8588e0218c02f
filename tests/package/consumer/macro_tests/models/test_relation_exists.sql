{#- relation_exists() at compile time, on a relation that exists (the seed, built first:
    ref) and on ones that do not. -#}
{%- set existing = ref('data_relation_exists') -%}
{%- set missing_table = api.Relation.create(database=existing.database, schema=existing.schema, identifier='no_such_table') -%}
{%- set missing_schema = api.Relation.create(database=existing.database, schema='no_such_schema', identifier='data_relation_exists') -%}

with

final as (
    select
        'existing_seed' as case_name,
        {{ 'true' if rerun_safe.relation_exists(existing) else 'false' }} as found
    union all
    select
        'missing_table' as case_name,
        {{ 'true' if rerun_safe.relation_exists(missing_table) else 'false' }} as found
    union all
    select
        'missing_schema' as case_name,
        {{ 'true' if rerun_safe.relation_exists(missing_schema) else 'false' }} as found
)

select * from final
