{#- How far ingested_at may lie after "now" before the row is quarantined as ingested_in_future
    (a clock bound: a delivery cannot have been ingested after the run that first saw it). "Now"
    for a row is the started_at of the run that first saw its delivery
    (stg_landing__deliveries.first_seen_run_seq, kept through --full-refresh, in the run registry
    rerun_safe_runs), so incremental runs and every later full refresh judge it alike; var
    rerun_safe_now sets a run's clock (run_clock_override). Default 24: clock skew between the
    producer and the warehouse, and a day's delivery stamped ahead, never reach it. -#}
{% macro max_ingested_ahead_hours() %}
    {{- return(rerun_safe.whole_number_var('max_ingested_ahead_hours', 0, 87600, 24)) -}}
{% endmacro %}
