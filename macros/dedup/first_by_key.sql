{#- The `columns` of the first row per `partition_by` key by `order_by`, one row per key, the key
    columns first: dedupe_by_key narrowed to the columns the caller needs, with the same rows on
    each engine. The same rule: a total order; each term `expr`, `expr asc` or `expr desc`. -#}
{% macro first_by_key(relation, partition_by, order_by, columns) %}
    {{- return(adapter.dispatch('first_by_key', 'rerun_safe')(relation, partition_by, order_by, columns)) -}}
{% endmacro %}

{% macro default__first_by_key(relation, partition_by, order_by, columns) %}
    select {{ (partition_by + columns) | join(', ') }}
    from ({{ rerun_safe.dedupe_by_key(relation, partition_by, order_by) }}) as first_rows
{% endmacro %}

{#- DuckDB: one hash aggregate instead of a sort per key: arg_max (all terms desc) or arg_min
    (all ascending) over the order as a tuple, each term preceded by its null flag so that nulls
    sort last, as DuckDB's window sorts them by default. Mixed directions fall back to the window. Measured in
    fct_order_items' full build at 3M events (docs/decisions/2026-12-07-bench-full-build.md). -#}
{% macro duckdb__first_by_key(relation, partition_by, order_by, columns) %}
    {%- set terms = [] -%}
    {%- set directions = [] -%}
    {%- for term in order_by -%}
        {%- set words = term.strip().split() -%}
        {%- if words | length > 1 and words[-1] | lower in ('asc', 'desc') -%}
            {%- do directions.append(words[-1] | lower) -%}
            {%- do terms.append(words[:-1] | join(' ')) -%}
        {%- else -%}
            {%- do directions.append('asc') -%}
            {%- do terms.append(term.strip()) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if directions | unique | list | length != 1 -%}
        {{- return(rerun_safe.default__first_by_key(relation, partition_by, order_by, columns)) -}}
    {%- endif -%}
    {%- set descending = directions[0] == 'desc' -%}
    {%- set flagged = [] -%}
    {%- for t in terms -%}
        {%- do flagged.append('(' ~ t ~ ') is ' ~ ('not ' if descending else '') ~ 'null') -%}
        {%- do flagged.append(t) -%}
    {%- endfor -%}
    select
        {%- for k in partition_by %}
        {{ k }},
        {%- endfor %}
        {%- for c in columns %}
        {{ 'arg_max' if descending else 'arg_min' }}({{ c }}, ({{ flagged | join(', ') }})) as {{ c }}{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ relation }}
    group by {{ partition_by | join(', ') }}
{% endmacro %}
