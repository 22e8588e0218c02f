{#- Every copy of every event whose copies changed since the calling model last committed (every
    copy on a full build). int_event_copies_classified rewrites all copies of an event it
    touches and stamps them with _written_run_seq, and it keeps every copy an event ever had,
    so the old item, day or company of a moved event is among these rows: downstream models
    recompute every key they touch. The stamp is a literal, so the filter reads only the row
    groups written since (the table's newest), not the whole history. -#}
{% macro written_since_last_commit_filter(alias) %}
    {%- if is_incremental() and not flags.FULL_REFRESH -%}
        {{- return(alias ~ '._written_run_seq > ' ~ rerun_safe.last_committed_seq()) -}}
    {%- endif -%}
    {{- return('true') -}}
{% endmacro %}
