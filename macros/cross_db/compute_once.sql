{#- Rendered at the end of a CTE's (or subquery's) SELECT whose columns the query above uses
    more than once. Postgres pulls a simple subquery up into the query above it and pastes the
    subquery's expression in place of every reference to its column, then evaluates each copy:
    it has no common-subexpression elimination. In the staging model the validation behind
    invalid_reason (four regular expressions over the keys, the amount, version and timestamp
    parses) ran once for each of its seven uses, and each column of a delivery was split out of
    its record again for each of its uses. `offset 0` keeps the subquery a level of its own,
    whose columns are computed once per row (docs/benchmarks-postgres.md has the figures).
    Nothing on DuckDB and Spark, whose plans compute a projection once.
    Usage: `trimmed as (select ... from landed {{ rerun_safe.compute_once() }})`. -#}
{% macro compute_once() %}{{ return(adapter.dispatch('compute_once', 'rerun_safe')()) }}{% endmacro %}
{% macro default__compute_once() %}{{ return('') }}{% endmacro %}
{% macro postgres__compute_once() %}{{ return('offset 0') }}{% endmacro %}
