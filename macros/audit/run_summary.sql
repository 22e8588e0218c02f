{#- on-run-end, after finish_run: print what this invocation did, through dbt's logger, from
    what the run already recorded: its row of rerun_safe_runs (status, refused_by) and its
    rows of rerun_safe_run_log (each committed model's metrics, JSON text, parsed here in
    Jinja with fromjson: the same on every adapter, no engine JSON function). Two small reads
    by invocation id; the only other read is the previous late_events log row (late rows
    applied = its `applied` figure minus that one's). Rejection and quarantine reasons are not
    in the run log: they are counted only when this run rejected or quarantined something,
    from this run's rows of the deliveries and quarantine tables (filtered by run_seq).

    A model of this pipeline prints its own line; any other model that logs metrics (a
    project using this package) prints them as name=value. A refused run says who held the
    warehouse; a failed run prints what committed and names the nodes that failed. Renders
    nothing (no statement is sent for the hook). -#}
{% macro run_summary(results) %}
    {%- if not rerun_safe.writing_command() -%}{{ return('') }}{%- endif -%}
    {%- set lines = [] -%}
    {%- set runs = rerun_safe.runs_relation() -%}
    {%- set run = none -%}
    {%- if rerun_safe.relation_exists(runs) -%}
        {%- set found = run_query(
            "select run_seq, status, refused_by from " ~ runs ~ " where invocation_id = '" ~ invocation_id ~ "'"
        ) -%}
        {%- if found.rows | length > 0 -%}{%- set run = found.rows[0] -%}{%- endif -%}
    {%- endif -%}
    {%- set failed = results | selectattr('status', 'in', ['error', 'fail', 'runtime error']) | map(attribute='node') | map(attribute='name') | list -%}
    {%- if run is none -%}
        {%- do lines.append('run summary: this ' ~ flags.WHICH ~ ' registered no run (it stopped before the warehouse was touched)'
            ~ ((': failed ' ~ failed | join(', ')) if failed else '')) -%}
        {%- do rerun_safe._print_run_summary(lines) -%}
        {{- return('') -}}
    {%- endif -%}
    {%- set run_seq = run[0] | int -%}
    {%- do lines.append('run summary: run ' ~ run_seq ~ ' (' ~ flags.WHICH ~ ', invocation ' ~ invocation_id ~ '): ' ~ run[1]) -%}
    {%- if run[1] == 'refused' -%}
        {%- do lines.append('  refused: another run held the warehouse (' ~ run[2] ~ '); this run wrote nothing') -%}
        {%- do rerun_safe._print_run_summary(lines) -%}
        {{- return('') -}}
    {%- endif -%}
    {%- if failed -%}
        {%- do lines.append('  failed: ' ~ failed | join(', ') ~ ' (models listed below committed; the others wrote nothing)') -%}
    {%- endif -%}

    {#- this run's log rows, and the previous late_events row (for late rows applied) -#}
    {%- set log = rerun_safe.run_log_relation() -%}
    {%- set logged = run_query(
        "select model, is_full_refresh, metrics, run_seq from " ~ log ~ " where invocation_id = '" ~ invocation_id ~ "'"
        ~ " or (model = 'late_events' and run_seq = (select max(earlier.run_seq) from " ~ log ~ " as earlier"
        ~ " where earlier.model = 'late_events' and earlier.run_seq < " ~ run_seq ~ "))"
    ) -%}
    {%- set m = {} -%}
    {%- set rebuilt = [] -%}
    {%- set previous_late = {} -%}
    {%- for row in logged.rows -%}
        {%- set figures = fromjson(row[2]) if row[2] else {} -%}
        {%- if row[3] | int == run_seq -%}
            {%- do m.update({row[0]: figures or {}}) -%}
            {%- if row[1] in [true, 'true', 'True', 1] -%}{%- do rebuilt.append(row[0]) -%}{%- endif -%}
        {%- else -%}
            {%- do previous_late.update(figures or {}) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if not m -%}
        {%- do lines.append('  no model committed in this run') -%}
        {%- do rerun_safe._print_run_summary(lines) -%}
        {{- return('') -}}
    {%- endif -%}
    {%- if rebuilt -%}
        {%- do lines.append('  rebuilt from scratch (full refresh or new table): ' ~ rebuilt | join(', ')) -%}
    {%- endif -%}

    {%- set pipeline_models = ['stg_landing__deliveries', 'stg_landing__events', 'int_corrections_recorded',
        'int_event_copies_classified', 'fct_daily_revenue', 'fct_order_items', 'late_events', 'quarantined_events',
        'fct_revenue_ledger'] -%}
    {%- set d = m.get('stg_landing__deliveries') -%}
    {%- if d is not none -%}
        {%- set rejected = d.get('files_rejected', 0) or 0 -%}
        {%- set reasons = rerun_safe._run_summary_reasons(results, 'stg_landing__deliveries', 'reason',
            "first_seen_run_seq = " ~ run_seq ~ " and status = 'rejected'") if rejected > 0 else '' -%}
        {%- do lines.append('  deliveries: ' ~ ((d.get('files_new', 0) or 0) - rejected) ~ ' new accepted, '
            ~ rejected ~ ' rejected' ~ ((' (' ~ reasons ~ ')') if reasons else '') ~ ', '
            ~ ((d.get('files_listed', 0) or 0) - (d.get('files_new', 0) or 0)) ~ ' unchanged (already seen); '
            ~ d.get('files_rejected_total', 0) ~ ' rejected in all') -%}
    {%- endif -%}
    {%- set s = m.get('stg_landing__events') -%}
    {%- set q = m.get('quarantined_events') -%}
    {%- set c = m.get('int_event_copies_classified') -%}
    {%- set l = m.get('late_events') -%}
    {%- if s is not none or q is not none or c is not none or l is not none -%}
        {%- set parts = [] -%}
        {%- if s is not none -%}
            {%- do parts.append((s.get('rows_read', 0) or 0) ~ ' staged from ' ~ (s.get('files_loaded', 0) or 0) ~ ' file(s)') -%}
        {%- endif -%}
        {%- if q is not none -%}
            {%- set quarantined = q.get('quarantined_this_run', 0) or 0 -%}
            {%- set reasons = rerun_safe._run_summary_reasons(results, 'quarantined_events', 'reason',
                "quarantined_run_seq = " ~ run_seq) if quarantined > 0 else '' -%}
            {%- do parts.append(quarantined ~ ' quarantined' ~ ((' (' ~ reasons ~ ')') if reasons else '')) -%}
        {%- endif -%}
        {%- if l is not none -%}
            {%- set applied = (l.get('applied', 0) or 0) - (previous_late.get('applied', 0) or 0) -%}
            {%- do parts.append(applied ~ ' late rows applied by a correction') -%}
        {%- endif -%}
        {#- rows are rows (late_events: one per event), copies are copies (int_event_copies_classified:
            a row delivered twice is two copies); each figure says which it counts -#}
        {%- do lines.append('  rows: ' ~ parts | join(', ')
            ~ (('; ' ~ l.get('waiting', 0) ~ ' late rows waiting') if l is not none else '')
            ~ (('; copies: ' ~ (c.get('late_waiting_written', 0) or 0) ~ ' late copies written') if c is not none else '')) -%}
    {%- endif -%}
    {%- set corrections = m.get('int_corrections_recorded') -%}
    {%- if corrections is not none and (corrections.get('corrections_recorded', 0) or 0) > 0 -%}
        {%- do lines.append('  correction recorded: ' ~ corrections.get('corrections_recorded') ~ ' (' ~ corrections.get('corrections_total') ~ ' in all)') -%}
    {%- endif -%}
    {%- set days = m.get('fct_daily_revenue') -%}
    {%- set items = m.get('fct_order_items') -%}
    {%- if days is not none or items is not none or c is not none -%}
        {#- rows written as the adapter reports them (Postgres does; DuckDB reports none) -#}
        {%- set rewritten = rerun_safe._run_summary_rows_written(results) -%}
        {%- set parts = [] -%}
        {%- if c is not none -%}
            {%- set changed_events = c.get('events_changed', 0) or 0 -%}
            {%- do parts.append(('the days and items of ' ~ changed_events ~ ' changed events (' ~ (c.get('copies_written', 0) or 0)
                ~ ' copies written)') if changed_events > 0 else 'nothing (no event changed)') -%}
        {%- endif -%}
        {%- if days is not none -%}
            {%- do parts.append(('' if rewritten.get('fct_daily_revenue') is none else rewritten.get('fct_daily_revenue') ~ ' day rows written, ')
                ~ 'fct_daily_revenue now ' ~ days.get('days') ~ ' days') -%}
        {%- endif -%}
        {%- if items is not none -%}
            {%- do parts.append(('' if rewritten.get('fct_order_items') is none else rewritten.get('fct_order_items') ~ ' item rows written, ')
                ~ 'fct_order_items now ' ~ items.get('items') ~ ' items') -%}
        {%- endif -%}
        {%- do lines.append('  rewritten: ' ~ parts | join(', ')) -%}
    {%- endif -%}
    {%- set ledger = m.get('fct_revenue_ledger') -%}
    {%- if ledger is not none -%}
        {%- do lines.append('  ledger: ' ~ (ledger.get('postings', 0) or 0) ~ ' postings (' ~ (ledger.get('reversals', 0) or 0)
            ~ ' reversals), net ' ~ rerun_safe._run_summary_signed(ledger.get('posted_cents', 0) or 0) ~ ' cents') -%}
    {%- endif -%}
    {%- if ledger is not none and days is not none -%}
        {%- set balanced = (ledger.get('balance_cents') | int) == (days.get('net_cents') | int) -%}
        {%- do lines.append('  balance: ledger ' ~ ledger.get('balance_cents') ~ ' cents '
            ~ ('=' if balanced else '!=') ~ ' daily revenue ' ~ days.get('net_cents') ~ ' cents: '
            ~ ('balanced' if balanced else 'NOT BALANCED')) -%}
    {%- elif ledger is not none or days is not none -%}
        {%- do lines.append('  balance: not checked (fct_revenue_ledger and fct_daily_revenue did not both commit in this run)') -%}
    {%- endif -%}
    {%- for model, figures in m.items() if model not in pipeline_models -%}
        {%- set parts = [] -%}
        {%- for name, value in figures.items() -%}{%- do parts.append(name ~ '=' ~ value) -%}{%- endfor -%}
        {%- do lines.append('  ' ~ model ~ ': ' ~ parts | join(', ')) -%}
    {%- endfor -%}

    {#- nothing new: no business table changed (no copy written, no posting, nothing
        quarantined, no late row applied, no correction recorded) -#}
    {%- set changed = (c.get('copies_written', 0) or 0 if c is not none else 0)
        + (ledger.get('postings', 0) or 0 if ledger is not none else 0)
        + (q.get('quarantined_this_run', 0) or 0 if q is not none else 0)
        + ((l.get('applied', 0) or 0) - (previous_late.get('applied', 0) or 0) if l is not none else 0)
        + (corrections.get('corrections_recorded', 0) or 0 if corrections is not none else 0) -%}
    {%- if c is not none and ledger is not none and changed == 0 and not failed and not rebuilt -%}
        {%- do lines.append('  nothing new: no-op (no business table changed)') -%}
    {%- endif -%}
    {%- do rerun_safe._print_run_summary(lines) -%}
    {{- return('') -}}
{% endmacro %}

{#- helpers of run_summary (not part of the package's interface) -#}
{% macro _print_run_summary(lines) %}
    {%- for line in lines -%}{%- do log(line, info=true) -%}{%- endfor -%}
{% endmacro %}

{% macro _run_summary_signed(cents) %}
    {{- return(('+' if cents | int > 0 else '') ~ cents) -}}
{% endmacro %}

{#- "reason n, reason n" for this run's rows of a model that ran in this invocation -#}
{% macro _run_summary_reasons(results, model, column, where) %}
    {%- set nodes = results | map(attribute='node') | selectattr('name', 'equalto', model) | list -%}
    {%- if not nodes or not nodes[0].relation_name -%}{{ return('') }}{%- endif -%}
    {%- set counted = run_query(
        "select " ~ column ~ ", count(*) from " ~ nodes[0].relation_name ~ " where " ~ where
        ~ " group by " ~ column ~ " order by " ~ column
    ) -%}
    {%- set parts = [] -%}
    {%- for row in counted.rows -%}{%- do parts.append(row[0] ~ ' ' ~ row[1]) -%}{%- endfor -%}
    {{- return(parts | join(', ')) -}}
{% endmacro %}

{#- rows each model wrote, as its adapter reported them (none: '?') -#}
{% macro _run_summary_rows_written(results) %}
    {%- set written = {} -%}
    {%- for result in results if result.adapter_response is mapping and result.adapter_response.get('rows_affected') is not none and result.adapter_response.get('rows_affected') | int >= 0 -%}
        {%- do written.update({result.node.name: result.adapter_response.get('rows_affected')}) -%}
    {%- endfor -%}
    {{- return(written) -}}
{% endmacro %}
