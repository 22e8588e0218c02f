{#- The body both strategies share (insert_overwrite: no key; replace_keys: a key,
    optionally a partition column): in the model's transaction, delete the target rows of the
    new rows' partitions (literals, so the delete skips other row groups by zone maps) and/or
    keys, then insert the new rows that pass config `partition_keep_rows`. -#}
{% macro delete_and_insert_sql(arg_dict, unique_key, partition_column) %}
    {%- set target = arg_dict['target_relation'] -%}
    {%- set source = arg_dict['temp_relation'] -%}
    {%- set keep_rows = config.get('partition_keep_rows') -%}
    {%- set columns = get_quoted_csv(arg_dict['dest_columns'] | map(attribute='name')) -%}
    {%- set conditions = [] -%}
    {%- if partition_column -%}
        {%- do conditions.append(rerun_safe.literal_in(
            partition_column,
            'select distinct ' ~ partition_column ~ ' from ' ~ source,
            config.get('partition_type', 'date'),
        )) -%}
    {%- endif -%}
    {%- if unique_key -%}
        {%- do conditions.append(unique_key ~ ' in (select ' ~ unique_key ~ ' from ' ~ source ~ ')') -%}
    {%- endif -%}
    {%- set sql -%}
    delete from {{ target }}
    where {{ conditions | join(' and ') }};

    insert into {{ target }} ({{ columns }})
    select {{ columns }}
    from {{ source }}
    {%- if keep_rows %}
    where {{ keep_rows }}
    {%- endif %}
    {%- endset -%}
    {{- return(sql) -}}
{% endmacro %}
