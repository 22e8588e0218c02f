{#- The rows of `copies` written since the calling model last committed (every row on a full
    build): see written_since_last_commit_filter. -#}
{% macro written_since_last_commit_sql(copies) %}
    select changed.*
    from {{ copies }} as changed
    where {{ rerun_safe.written_since_last_commit_filter('changed') }}
{% endmacro %}
