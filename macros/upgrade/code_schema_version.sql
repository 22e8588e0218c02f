{#- The schema version this code builds and reads. A change to what a stored table holds (a
    column, a key, a table) raises it by one and adds the step that migrates a warehouse of the
    previous version to _schema_migrations() (rerun_safe_upgrade.sql). -#}
{% macro code_schema_version() %}{{ return(1) }}{% endmacro %}
