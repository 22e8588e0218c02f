{#- The sequence number start_run gave this invocation, or none outside a run (dbt compile,
    dbt show, linting: on-run-start did not register the invocation).
    Memoised per invocation in the run's graph (the one dict every node of an invocation
    shares): a run's number never changes once on-run-start has written it, and the lookup
    was a statement each time a model or hook renders a run stamp (39 a run; about 13 ms each,
    mostly dbt's own cost per statement). Keyed by invocation_id, because a programmatic caller
    may hand the same manifest to several invocations; only a found number is kept. -#}
{% macro run_seq_or_none() %}
    {%- if not execute -%}
        {{- return(none) -}}
    {%- endif -%}
    {%- set memo = graph.setdefault('rerun_safe_run_seq_by_invocation', {}) if graph is mapping else {} -%}
    {%- if invocation_id in memo -%}
        {{- return(memo[invocation_id]) -}}
    {%- endif -%}
    {%- set runs = rerun_safe.runs_relation() -%}
    {#- on-run-start creates the table outside dbt's relation cache: ask the catalog when the
        cache does not know it -#}
    {%- if load_relation(runs) is not none or rerun_safe.audit_table_exists('rerun_safe_runs') -%}
        {%- set found = run_query("select run_seq from " ~ runs ~ " where invocation_id = '" ~ invocation_id ~ "'") -%}
        {%- if found.rows | length == 1 -%}
            {%- do memo.update({invocation_id: found.rows[0][0] | int}) -%}
            {{- return(memo[invocation_id]) -}}
        {%- endif -%}
    {%- endif -%}
    {{- return(none) -}}
{% endmacro %}
