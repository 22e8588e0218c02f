{#- Postgres MERGE with dbt-duckdb's `merge_clauses` config (the subset this project uses).
    dbt-postgres's merge ignores merge_clauses, so without this fct_order_items would update an
    item left with no event (event_count = 0) instead of deleting it, and insert such items.
    This overrides dbt's postgres merge for this project only; a model without merge_clauses
    gets dbt's own statement unchanged. Supported: when_matched actions `update` (mode by_name,
    or no mode: every destination column from the source), `delete`, `do_nothing`;
    when_not_matched `insert` (by_name or no mode) and `do_nothing`; `condition` as a string or
    a list. Anything else fails at compile time rather than silently doing something else. -#}
{% macro postgres__get_merge_sql(target, source, unique_key, dest_columns, incremental_predicates=none) -%}
    {%- set merge_clauses = config.get('merge_clauses', none) -%}
    {%- if not merge_clauses -%}
        {{- return(default__get_merge_sql(target, source, unique_key, dest_columns, incremental_predicates)) -}}
    {%- endif -%}
    {%- if not unique_key -%}
        {{ exceptions.raise_compiler_error("rerun_safe: merge_clauses on Postgres need a unique_key") }}
    {%- endif -%}
    {%- set keys = [unique_key] if unique_key is string else unique_key -%}
    {%- set predicates = [] if incremental_predicates is none else [] + incremental_predicates -%}
    {%- for key in keys -%}
        {%- do predicates.append('DBT_INTERNAL_SOURCE.' ~ key ~ ' = DBT_INTERNAL_DEST.' ~ key) -%}
    {%- endfor -%}
    {%- set columns = dest_columns | map(attribute='name') | map('replace', '"', '') | list -%}
    {%- set quoted = [] -%}
    {%- for column in columns -%}{%- do quoted.append(adapter.quote(column)) -%}{%- endfor -%}
    merge into {{ target }} as DBT_INTERNAL_DEST
    using {{ source }} as DBT_INTERNAL_SOURCE
    on ({{ predicates | join(') and (') }})
    {%- for clause in merge_clauses.get('when_matched', [{'action': 'update'}]) %}
    when matched{{ rerun_safe.merge_clause_condition(clause) }} then
        {%- if clause.get('action') == 'update' and clause.get('mode', 'by_name') == 'by_name' %}
        update set
            {%- for column in quoted %}
            {{ column }} = DBT_INTERNAL_SOURCE.{{ column }}{{ ',' if not loop.last }}
            {%- endfor %}
        {%- elif clause.get('action') == 'delete' %}
        delete
        {%- elif clause.get('action') == 'do_nothing' %}
        do nothing
        {%- else %}
        {{ exceptions.raise_compiler_error("rerun_safe: merge_clauses when_matched " ~ clause ~ " is not supported on Postgres") }}
        {%- endif %}
    {%- endfor %}
    {%- for clause in merge_clauses.get('when_not_matched', [{'action': 'insert'}]) %}
    when not matched{{ rerun_safe.merge_clause_condition(clause) }} then
        {%- if clause.get('by', 'target') | lower != 'target' %}
        {{ exceptions.raise_compiler_error("rerun_safe: when not matched by source is not supported on Postgres 15") }}
        {%- elif clause.get('action') == 'insert' and clause.get('mode', 'by_name') == 'by_name' %}
        insert ({{ quoted | join(', ') }})
        values (
            {%- for column in quoted -%}
            DBT_INTERNAL_SOURCE.{{ column }}{{ ', ' if not loop.last }}
            {%- endfor -%}
        )
        {%- elif clause.get('action') == 'do_nothing' %}
        do nothing
        {%- else %}
        {{ exceptions.raise_compiler_error("rerun_safe: merge_clauses when_not_matched " ~ clause ~ " is not supported on Postgres") }}
        {%- endif %}
    {%- endfor %}
{%- endmacro %}

{% macro merge_clause_condition(clause) -%}
    {%- set condition = clause.get('condition') -%}
    {%- if condition is string -%}{{ return(' and ' ~ condition) }}
    {%- elif condition -%}{{ return(' and (' ~ condition | join(') and (') ~ ')') }}
    {%- endif -%}
    {{- return('') -}}
{%- endmacro %}
