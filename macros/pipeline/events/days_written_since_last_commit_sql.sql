{#- The revenue days of those copies: the days a downstream model must recompute. -#}
{% macro days_written_since_last_commit_sql() %}
    select distinct changed.revenue_date
    from {{ ref('int_event_copies_classified') }} as changed
    where {{ rerun_safe.written_since_last_commit_filter('changed') }}
{% endmacro %}
