{#- The target's database, or none where the adapter has no such level (Spark: schema only). -#}
{% macro target_database() %}
    {{- return(target.database if target.database is defined else none) -}}
{% endmacro %}
