{#- True when this dbt command may write to the warehouse, so the run hooks must register it
    and take the lease. dbt renders (and so executes) on-run-start and on-run-end for
    `compile`, `docs generate` and `show` too: those must neither register a run nor take the
    lease (on a server, a lease left by a `docs generate` would hold the next build back until
    it went stale). -#}
{% macro writing_command() %}
    {{- return(execute and flags.WHICH not in ['compile', 'generate', 'show', 'list', 'ls', 'parse', 'debug', 'serve']) -}}
{% endmacro %}
