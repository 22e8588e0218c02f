{#- Generic test: sum(column) by `group_by` equals sum(compare_column) by the same keys in
    `compare_model`; a key on one side only is a failure, unless its sum is 0. Null-safe: a key
    with nulls is compared with the same key on the other side (the sides are grouped
    together, not joined: Postgres cannot FULL JOIN on `is not distinct from`). -#}
{% test sums_match(model, column, group_by, compare_model, compare_column) %}
    {%- set keys = group_by | join(', ') %}
    with

    model_totals as (
        select {{ keys }}, coalesce(sum({{ column }}), 0) as model_total, 0 as compare_total
        from {{ model }}
        group by {{ keys }}
    ),

    compare_totals as (
        select {{ keys }}, 0 as model_total, coalesce(sum({{ compare_column }}), 0) as compare_total
        from {{ compare_model }}
        group by {{ keys }}
    ),

    both_sides as (
        select * from model_totals
        union all
        select * from compare_totals
    )

    select
        {{ keys }},
        sum(both_sides.model_total) as model_total,
        sum(both_sides.compare_total) as compare_total
    from both_sides
    group by {{ keys }}
    having sum(both_sides.model_total) != sum(both_sides.compare_total)
{% endtest %}
