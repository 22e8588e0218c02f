{#- `(column between d1 and d2 or ...)`: the distinct non-null dates the first column of
    `dates_sql` returns, merged into runs of consecutive days; one range from the first to the
    last date when there are more than `max_ranges` runs; `false` when there are none.
    A superset of `column in (the dates)`, so only for callers to whom extra days cost reads,
    never rows: a probe restricted further by key. Cheaper than literal_in for long lists:
    DuckDB turns a long IN list into a join that reads the column of every row group, while
    a few ranges prune row groups by their min/max and let a key filter below them be pushed
    into the scan (measured on a 9.6M-row ledger, 121 days: docs/benchmarks.md). -#}
{% macro literal_date_ranges(column, dates_sql, max_ranges=8) %}
    {%- if not execute -%}
        {{- return('true') -}}
    {%- endif -%}
    {%- set days = [] -%}
    {%- for value in rerun_safe.distinct_query_values(dates_sql) -%}
        {%- do days.append(modules.datetime.date.fromisoformat(value[:10])) -%}
    {%- endfor -%}
    {%- if days | length == 0 -%}
        {{- return('false') -}}
    {%- endif -%}
    {%- set runs = [[days[0], days[0]]] -%}
    {%- for day in days[1:] -%}
        {%- if (day - runs[-1][1]).days == 1 -%}
            {%- do runs[-1].pop() -%}{%- do runs[-1].append(day) -%}
        {%- else -%}
            {%- do runs.append([day, day]) -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return(rerun_safe.between_any(column, runs if runs | length <= max_ranges else [[days[0], days[-1]]], 'date')) -}}
{% endmacro %}
