{#- The two writes the audit tables need beyond INSERT (create_audit_table and this one) are
    dispatched macros, so that an engine without UPDATE (Spark on parquet: no Delta or Iceberg
    here) can do them its way. -#}

{#- `update relation set <assignments> where <where>`. `assignments`: a list of [column, SQL
    expression over the row's old values]. -#}
{% macro update_rows_sql(relation, assignments, where) %}
    {{- return(adapter.dispatch('update_rows_sql', 'rerun_safe')(relation, assignments, where)) -}}
{% endmacro %}

{% macro default__update_rows_sql(relation, assignments, where) %}
    {%- set parts = [] -%}
    {%- for assignment in assignments -%}
        {%- do parts.append(assignment[0] ~ ' = ' ~ assignment[1]) -%}
    {%- endfor -%}
    {{- return('update ' ~ relation ~ ' set ' ~ parts | join(', ') ~ ' where ' ~ where) -}}
{% endmacro %}

{#- Spark (parquet: no UPDATE): rewrite the partitions that hold matching rows, in one
    INSERT OVERWRITE with dynamic partition overwrite (the table must be partitioned, see
    create_audit_table; Spark refuses a whole-table overwrite that reads its own target, and
    a dynamic one only replaces the partitions it writes). Matching rows get the assignments,
    the other rows of those partitions are written back unchanged. The audit tables are a few
    rows per run, so this costs what a small write costs. -#}
{% macro spark__update_rows_sql(relation, assignments, where) %}
    {%- set assigned = {} -%}
    {%- for assignment in assignments -%}{%- do assigned.update({assignment[0]: assignment[1]}) -%}{%- endfor -%}
    {%- set described = run_query('describe table ' ~ relation) -%}
    {%- set names = [] -%}
    {%- set partition = namespace(column=none, in_section=false) -%}
    {%- for row in described.rows -%}
        {%- if row[0].startswith('#') -%}
            {%- set partition.in_section = true -%}
        {%- elif row[0] and not partition.in_section and row[0] not in names -%}
            {%- do names.append(row[0]) -%}
        {%- elif row[0] and partition.in_section and partition.column is none -%}
            {%- set partition.column = row[0] -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if partition.column is none -%}
        {{- exceptions.raise_compiler_error("rerun_safe: " ~ relation ~ " is not partitioned; Spark cannot update its rows") -}}
    {%- endif -%}
    {%- set new_values = [] -%}
    {%- for name in names -%}
        {%- do new_values.append((assigned[name] if name in assigned else 'kept.' ~ name) ~ ' as ' ~ name) -%}
    {%- endfor -%}
    {%- set sql -%}
    insert overwrite table {{ relation }} partition ({{ partition.column }})
    select {{ new_values | join(', ') }} from {{ relation }} as kept where ({{ where }})
    union all
    select {{ names | join(', ') }} from {{ relation }} as kept
    where
        kept.{{ partition.column }} in (select touched.{{ partition.column }} from {{ relation }} as touched where ({{ where }}))
        and (not ({{ where }}) or ({{ where }}) is null)
    {%- endset -%}
    {{- return(sql) -}}
{% endmacro %}
