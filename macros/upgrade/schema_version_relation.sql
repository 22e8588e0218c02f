{% macro schema_version_relation() %}
    {{- return(api.Relation.create(database=rerun_safe.target_database(), schema=target.schema, identifier='rerun_safe_schema_version')) -}}
{% endmacro %}
