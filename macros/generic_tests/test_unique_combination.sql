{#- Generic test: `columns` together identify a row (no dbt_utils here: the package hub is out
    of reach). Null-safe: rows with the same nulls count as the same key. -#}
{% test unique_combination(model, columns) %}
    select {{ columns | join(', ') }}, count(*) as copies
    from {{ model }}
    group by {{ columns | join(', ') }}
    having count(*) > 1
{% endtest %}
