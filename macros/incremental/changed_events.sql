{#- The events whose copies changed since the calling model last committed (all events on a
    full build). The copies table keeps every copy an event ever had, so the old item, day or
    company of a moved event is among its copies: downstream models recompute every key that
    any copy of a changed event touches. -#}
{% macro changed_events_sql(copies) %}
    {%- if is_incremental() and not flags.FULL_REFRESH -%}
    select distinct changed.event_key
    from {{ copies }} as changed
    where changed._changed_run_seq > {{ rerun_safe.last_committed_seq() }}
    {%- else -%}
    select distinct all_copies.event_key
    from {{ copies }} as all_copies
    {%- endif -%}
{% endmacro %}
