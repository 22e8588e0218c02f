{#- The audit tables are not models: --full-refresh must never touch them, and every model's
    post-hook writes to them inside that model's transaction. -#}
{% macro runs_relation() %}
    {{- return(api.Relation.create(database=rerun_safe.target_database(), schema=target.schema, identifier='rerun_safe_runs')) -}}
{% endmacro %}

{% macro run_log_relation() %}
    {{- return(api.Relation.create(database=rerun_safe.target_database(), schema=target.schema, identifier='rerun_safe_run_log')) -}}
{% endmacro %}

{#- The target's database, or none where the adapter has no such level (Spark: schema only). -#}
{% macro target_database() %}
    {{- return(target.database if target.database is defined else none) -}}
{% endmacro %}
