{#- Post-hook (inside the model's transaction): fail the statement, and so roll back the
    model's data and its progress row together, when the two sides of a balance differ.

    A side is (relation, aggregate) or (relation, aggregate, condition): the value of the
    aggregate over the relation's rows, or those where the condition holds. For example:
        assert_balance(
            left=(this, 'coalesce(sum(net_cents), 0)'),
            right=(ref('copies'), 'coalesce(sum(amount_cents), 0)', "copy_status = 'current'"),
            message='net_cents != amounts of current copies',
        )
    The relation is scanned as `balanced`: a condition names its columns unqualified, or as
    `balanced.<column>` where it must (inside a correlated subquery). The sides differ when their
    values are distinct, so a side that is NULL (an aggregate over no rows) fails the check. -#}
{% macro assert_balance(left, right, message) %}
    {%- set check -%}
    with

    left_side as (
        {{ rerun_safe._balance_side(left) }}
    ),

    right_side as (
        {{ rerun_safe._balance_side(right) }}
    )

    select
        case
            when left_side.balance is distinct from right_side.balance
                then {{ rerun_safe.raise_error('rerun_safe balance check failed: ' ~ message) }}
        end as balance_check
    from left_side
    cross join right_side
    {%- endset -%}
    {{ rerun_safe.check_now(check) }}
{% endmacro %}

{#- One side of assert_balance: a one-row query of the side's aggregate. -#}
{% macro _balance_side(side) %}
    {%- set relation, aggregate = side[0], side[1] -%}
    {%- set condition = side[2] if side | length > 2 else none -%}
    {#- indented as it stands in assert_balance's CTEs -#}
    select {{ aggregate }} as balance
        from {{ relation }} as balanced
        {%- if condition is not none %}
        where {{ condition }}
        {%- endif %}
{%- endmacro %}
