{#- The types of macro_typed_columns' columns, as the warehouse reports them. -#}
{%- set typed = ref('macro_typed_columns') -%}

with

columns_of_typed as (
    select
        lower(information_schema_columns.column_name) as column_name,
        lower(information_schema_columns.data_type) as data_type
    from information_schema.columns as information_schema_columns
    where
        information_schema_columns.table_schema = '{{ typed.schema }}'
        and information_schema_columns.table_name = '{{ typed.identifier }}'
),

final as (
    select * from columns_of_typed
)

select * from final
