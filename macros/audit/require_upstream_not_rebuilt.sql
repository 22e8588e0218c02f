{#- A model that folds the rows staged since its own progress (`since`) into what it already
    holds must not run after `upstream` was rebuilt from scratch: every upstream row then
    carries a new stamp and would be folded in a second time. Fails the model before it
    writes anything, with the command that rebuilds both. -#}
{% macro require_upstream_not_rebuilt(upstream, since) %}
    {%- if execute -%}
        {%- set rebuilt = rerun_safe.last_rebuild_seq(upstream) -%}
        {%- if rebuilt > since | int -%}
            {{ exceptions.raise_compiler_error(
                "rerun_safe: " ~ upstream ~ " was rebuilt from scratch in run " ~ rebuilt ~ ", after "
                ~ this.identifier ~ " last committed (run " ~ since ~ "). An incremental run would count its rows "
                ~ "twice; rebuild the models downstream too (their parents are re-read, not rebuilt, where full_refresh=false): dbt build --full-refresh --select +" ~ upstream ~ "+"
            ) }}
        {%- endif -%}
    {%- endif -%}
{% endmacro %}
