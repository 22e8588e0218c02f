{#- Keep one row per `partition_by` key: the first by `order_by`. The order must be total
    (end it with a row hash or another unique column): a tie broken by scan order makes a
    re-run differ from the first run. -#}
{% macro dedupe_by_key(relation, partition_by, order_by) %}
    {{- return(adapter.dispatch('dedupe_by_key', 'rerun_safe')(relation, partition_by, order_by)) -}}
{% endmacro %}

{#- Standard SQL has no `select * except (...)`, and the ranked subquery adds a column. So the
    first row's key and order values are ranked apart, under names of their own, and the
    relation's rows are joined to them: the result has exactly the relation's columns. With a
    total order a key and its order values name one row, save for rows that are wholly equal
    (the commonest duplicate of all): `distinct` keeps one of them. `is not distinct from`
    matches nulls. -#}
{% macro default__dedupe_by_key(relation, partition_by, order_by) %}
    {%- set terms = [] -%}
    {%- for term in order_by -%}
        {%- do terms.append(modules.re.sub('(?i)(\\s+(asc|desc))?(\\s+nulls\\s+(first|last))?\\s*$', '', term.strip())) -%}
    {%- endfor -%}
    select distinct kept.*
    from {{ relation }} as kept
    inner join (
        select
            {%- for k in partition_by %}
            ranked.rerun_safe_key_{{ loop.index }},
            {%- endfor %}
            {%- for t in terms %}
            ranked.rerun_safe_order_{{ loop.index }}{{ ',' if not loop.last }}
            {%- endfor %}
        from (
            select
                {%- for k in partition_by %}
                {{ k }} as rerun_safe_key_{{ loop.index }},
                {%- endfor %}
                {%- for t in terms %}
                {{ t }} as rerun_safe_order_{{ loop.index }},
                {%- endfor %}
                row_number() over (partition by {{ partition_by | join(', ') }} order by {{ order_by | join(', ') }}) as dedup_rank
            from {{ relation }} as ranked_input
        ) as ranked
        where ranked.dedup_rank = 1
    ) as firsts
        on
        {%- for k in partition_by %}
        ({{ k }}) is not distinct from firsts.rerun_safe_key_{{ loop.index }}{{ ' and' if not loop.last or terms }}
        {%- endfor %}
        {%- for t in terms %}
        ({{ t }}) is not distinct from firsts.rerun_safe_order_{{ loop.index }}{{ ' and' if not loop.last }}
        {%- endfor %}
{% endmacro %}

{% macro duckdb__dedupe_by_key(relation, partition_by, order_by) %}
    {#- qualify avoids the extra projection; dedup_rank is dropped by `exclude`. -#}
    select * exclude (dedup_rank)
    from (
        select
            ranked.*,
            row_number() over (partition by {{ partition_by | join(', ') }} order by {{ order_by | join(', ') }}) as dedup_rank
        from {{ relation }} as ranked
    )
    where dedup_rank = 1
{% endmacro %}

{#- Postgres: DISTINCT ON keeps the first row of each key in the ORDER BY, in one pass and with
    the relation's columns only (the null-safe join of default__ cannot be a hash join there). -#}
{% macro postgres__dedupe_by_key(relation, partition_by, order_by) %}
    select distinct on ({{ partition_by | join(', ') }}) deduped.*
    from {{ relation }} as deduped
    order by {{ (partition_by + order_by) | join(', ') }}
{% endmacro %}
