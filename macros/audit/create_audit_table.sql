{#- `create table if not exists` for an audit table. `columns`: a list of [name, type,
    not_null]; the type `text` means rerun_safe.text_type(). `partition_by`: the column Spark
    partitions the table by (update_rows_sql rewrites whole partitions there); ignored
    elsewhere. -#}
{% macro create_audit_table(relation, columns, partition_by=none) %}
    {{- return(adapter.dispatch('create_audit_table', 'rerun_safe')(relation, columns, partition_by)) -}}
{% endmacro %}

{% macro default__create_audit_table(relation, columns, partition_by) %}
    {%- set defined = [] -%}
    {%- for column in columns -%}
        {%- do defined.append(column[0] ~ ' ' ~ rerun_safe._audit_column_type(column[1]) ~ (' not null' if column[2] else '')) -%}
    {%- endfor -%}
    {{- return('create table if not exists ' ~ relation ~ ' (' ~ defined | join(', ') ~ ')') -}}
{% endmacro %}

{% macro spark__create_audit_table(relation, columns, partition_by) %}
    {#- why: a parquet table; NOT NULL is not enforced on it, so it is not declared. The
        partition column comes last (Spark's order for partitioned tables). -#}
    {%- set defined = [] -%}
    {%- for column in columns if column[0] != partition_by -%}
        {%- do defined.append(column[0] ~ ' ' ~ rerun_safe._audit_column_type(column[1])) -%}
    {%- endfor -%}
    {%- for column in columns if column[0] == partition_by -%}
        {%- do defined.append(column[0] ~ ' ' ~ rerun_safe._audit_column_type(column[1])) -%}
    {%- endfor -%}
    {{- return(
        'create table if not exists ' ~ relation ~ ' (' ~ defined | join(', ') ~ ') using parquet'
        ~ (' partitioned by (' ~ partition_by ~ ')' if partition_by else '')
    ) -}}
{% endmacro %}

{% macro _audit_column_type(type) %}
    {{- return(rerun_safe.text_type() if type == 'text' else type) -}}
{% endmacro %}
