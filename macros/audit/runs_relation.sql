{#- The audit tables are not models: --full-refresh must never touch them, and every model's
    post-hook writes to them inside that model's transaction. -#}
{% macro runs_relation() %}
    {{- return(api.Relation.create(database=rerun_safe.target_database(), schema=target.schema, identifier='rerun_safe_runs')) -}}
{% endmacro %}
