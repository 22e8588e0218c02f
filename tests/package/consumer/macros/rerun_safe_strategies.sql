{#- The one-line opt-in dbt asks for before a package may override a built-in materialization
    (flag require_explicit_package_overrides_for_builtin_materializations): the package's
    incremental materialization adds the strategies insert_overwrite and replace_keys and hands
    every other strategy to the adapter's own. -#}
{% materialization incremental, adapter='duckdb', supported_languages=['sql', 'python'] %}
    {{ return(rerun_safe.materialization_incremental_duckdb()) }}
{% endmaterialization %}

{% materialization incremental, adapter='postgres' %}
    {{ return(rerun_safe.materialization_incremental_postgres()) }}
{% endmaterialization %}
