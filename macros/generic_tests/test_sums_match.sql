{#- Generic test: sum(column) by `group_by` equals sum(compare_column) by the same keys in
    `compare_model` (a full outer join, so a key missing on either side is a failure). -#}
{% test sums_match(model, column, group_by, compare_model, compare_column) %}
    with

    left_side as (
        select {{ group_by | join(', ') }}, sum({{ column }}) as total
        from {{ model }}
        group by {{ group_by | join(', ') }}
    ),

    right_side as (
        select {{ group_by | join(', ') }}, sum({{ compare_column }}) as total
        from {{ compare_model }}
        group by {{ group_by | join(', ') }}
    )

    select
        {%- for c in group_by %}
        coalesce(left_side.{{ c }}, right_side.{{ c }}) as {{ c }},
        {%- endfor %}
        left_side.total as model_total,
        right_side.total as compare_total
    from left_side
    full outer join right_side
        on
        {%- for c in group_by %}
            {% if not loop.first %}and {% endif %}left_side.{{ c }} = right_side.{{ c }}
        {%- endfor %}
    where coalesce(left_side.total, 0) != coalesce(right_side.total, 0)
{% endtest %}
