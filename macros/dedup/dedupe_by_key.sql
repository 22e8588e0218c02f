{#- Keep one row per `partition_by` key: the first by `order_by`. The order must be total
    (end it with a row hash or another unique column): a tie broken by scan order makes a
    re-run differ from the first run. -#}
{% macro dedupe_by_key(relation, partition_by, order_by) %}
    {{- return(adapter.dispatch('dedupe_by_key', 'rerun_safe')(relation, partition_by, order_by)) -}}
{% endmacro %}

{% macro default__dedupe_by_key(relation, partition_by, order_by) %}
    select deduped.*
    from (
        select
            ranked.*,
            row_number() over (partition by {{ partition_by | join(', ') }} order by {{ order_by | join(', ') }}) as dedup_rank
        from {{ relation }} as ranked
    ) as deduped
    where deduped.dedup_rank = 1
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
