{#- For int_event_copies_classified: the keys of every event its run must reclassify, as SQL.
    New valid rows staged since the model last committed, or a waiting late copy that a
    correction recorded since then covers (the corrections' day ranges are rendered as
    literals, so finding those copies reads only their days). Fails first when staging was
    rebuilt since (require_upstream_not_rebuilt). -#}
{% macro touched_event_keys_sql() %}
    {%- set since = rerun_safe.last_committed_seq() -%}
    {%- do rerun_safe.require_upstream_not_rebuilt('stg_landing__events', since) -%}
    {%- set new_corrections -%}
        select corrections.correct_from, corrections.correct_to, corrections.mark
        from {{ ref('int_corrections_recorded') }} as corrections
        where corrections.recorded_run_seq > {{ since }}
    {%- endset -%}
    {%- set corrected_dates = rerun_safe.literal_ranges(
        'waiting.revenue_date', 'select c.correct_from, c.correct_to from (' ~ new_corrections ~ ') as c', 'date'
    ) -%}
    {%- set keys -%}
        select new_rows.event_key
        from {{ ref('stg_landing__events') }} as new_rows
        where new_rows._loaded_run_seq > {{ since }} and new_rows.invalid_reason is null
        union
        select waiting.event_key
        from {{ this }} as waiting
        inner join ({{ new_corrections }}) as corrections
            on
                waiting.revenue_date between corrections.correct_from and corrections.correct_to
                and waiting.ingested_at <= corrections.mark
        where {{ corrected_dates }} and waiting.copy_status = 'late_waiting'
    {%- endset -%}
    {{- return(keys) -}}
{% endmacro %}
