{#- Pruning hints. A filter against a subquery or a join cannot skip row groups; a filter
    against literals can (DuckDB checks literals against each row group's min/max, its zone
    map). These macros run a small query when the model is compiled, right before it runs (its
    upstream models have committed by then), and render the values it returns as literals.

    Used only as redundant, exact restrictions: the SQL that renders the values computes the
    complete set of values the model can need (see each caller), so the hint never drops a row.
    Outside execution (parsing, linting) they render `true`. -#}

{#- The distinct non-null values of the first column `values_sql` returns, as sorted strings. -#}
{% macro distinct_query_values(values_sql) %}
    {{- return(run_query(values_sql).columns[0].values() | reject('none') | map('string') | unique | sort | list) -}}
{% endmacro %}
