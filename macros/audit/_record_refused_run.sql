{#- A run refused the lease records itself in the run registry: one `refused` row with how long
    it waited and the holder's id. One INSERT of the whole row, never an update: a refused run
    rewrites nothing (begin_run). Nothing to record before any run registered (no registry). -#}
{% macro _record_refused_run(holder, waited_seconds) %}
    {{- return(adapter.dispatch('_record_refused_run', 'rerun_safe')(holder, waited_seconds)) -}}
{% endmacro %}
{% macro default___record_refused_run(holder, waited_seconds) %}
    {%- if not rerun_safe.audit_table_exists('rerun_safe_runs') -%}{{ return('') }}{%- endif -%}
    {%- do rerun_safe._add_run_columns() -%}
    {%- set runs = rerun_safe.runs_relation() -%}
    {%- set record -%}
        insert into {{ runs }} (run_seq, invocation_id, command, started_at, finished_at, status, waited_seconds, refused_by)
        select coalesce(max(run_seq), 0) + 1, '{{ invocation_id }}', {{ rerun_safe.string_literal(flags.WHICH) }},
            {{ rerun_safe.run_clock() }}, {{ rerun_safe.utc_now() }}, 'refused', {{ waited_seconds }},
            {{ rerun_safe.string_literal(holder) }}
        from {{ runs }}
        where not exists (select 1 from {{ runs }} where invocation_id = '{{ invocation_id }}')
    {%- endset -%}
    {%- do run_query(record) -%}
{% endmacro %}
{#- Spark (behind a Thrift server, where two builds can meet): no lock serialises the writes of
    two sessions, and two writes of one parquet table at once collide (the later commit removes
    the table's _temporary folder under the other). The refused run writes nothing: its refusal
    is its error and dbt's log. -#}
{% macro spark___record_refused_run(holder, waited_seconds) %}{% endmacro %}
