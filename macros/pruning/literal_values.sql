{#- Pruning hints. A filter against a subquery or a join cannot skip row groups; a filter
    against literals can (DuckDB checks literals against each row group's min/max, its zone
    map). These macros run a small query when the model is compiled, right before it runs (its
    upstream models have committed by then), and render the values it returns as literals.

    Used only as redundant, exact restrictions: the SQL that renders the values computes the
    complete set of values the model can need (see each caller), so the hint never drops a row.
    Outside execution (parsing, linting) they render `true`. -#}

{#- `column in (v1, v2, ...)` for the distinct non-null values of the first column `values_sql`
    returns, cast to `type`; `false` when there are none. -#}
{% macro literal_in(column, values_sql, type='date') %}
    {%- if not execute -%}
        {{- return('true') -}}
    {%- endif -%}
    {%- set values = rerun_safe.distinct_query_values(values_sql) -%}
    {%- if values | length == 0 -%}
        {{- return('false') -}}
    {%- endif -%}
    {%- set literals = [] -%}
    {%- for value in values -%}
        {%- do literals.append("cast(" ~ rerun_safe.string_literal(value) ~ " as " ~ type ~ ")") -%}
    {%- endfor -%}
    {{- return(column ~ ' in (' ~ literals | join(', ') ~ ')') -}}
{% endmacro %}

{#- `(column between lo1 and hi1 or ...)` for the (lo, hi) rows `ranges_sql` returns, cast to
    `type`; `false` when there are none. -#}
{% macro literal_ranges(column, ranges_sql, type='timestamp') %}
    {%- if not execute -%}
        {{- return('true') -}}
    {%- endif -%}
    {{- return(rerun_safe.between_any(column, run_query(ranges_sql).rows, type)) -}}
{% endmacro %}

{#- `(column between lo1 and hi1 or ...)` for (lo, hi) pairs, cast to `type`; `false` for none. -#}
{% macro between_any(column, pairs, type) %}
    {%- set ranges = [] -%}
    {%- for pair in pairs -%}
        {%- do ranges.append(
            column ~ " between cast(" ~ rerun_safe.string_literal(pair[0]) ~ " as " ~ type ~ ")"
            ~ " and cast(" ~ rerun_safe.string_literal(pair[1]) ~ " as " ~ type ~ ")"
        ) -%}
    {%- endfor -%}
    {%- if ranges | length == 0 -%}
        {{- return('false') -}}
    {%- endif -%}
    {{- return('(' ~ ranges | join(' or ') ~ ')') -}}
{% endmacro %}

{#- The distinct non-null values of the first column `values_sql` returns, as sorted strings. -#}
{% macro distinct_query_values(values_sql) %}
    {{- return(run_query(values_sql).columns[0].values() | reject('none') | map('string') | unique | sort | list) -}}
{% endmacro %}


{#- `column in ('v1', 'v2', ...)` for a list of text values known in Jinja (each quoted as a
    string literal); `false` for an empty list. -#}
{% macro literal_list(column, values) %}
    {%- if values | length == 0 -%}{{ return('false') }}{%- endif -%}
    {%- set literals = [] -%}
    {%- for value in values -%}{%- do literals.append(rerun_safe.string_literal(value)) -%}{%- endfor -%}
    {{- return(column ~ ' in (' ~ literals | join(', ') ~ ')') -}}
{% endmacro %}

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
