{#- How far event_time may lie after ingested_at (clock skew) before the row is quarantined as
    event_time_after_ingestion: an event cannot be landed before it happened. -#}
{% macro max_event_time_ahead_hours() %}
    {{- return(rerun_safe.whole_number_var('max_event_time_ahead_hours', 0, 87600)) -}}
{% endmacro %}
