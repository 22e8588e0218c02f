{#- At on-run-start, before any write: the landing folder must exist (an empty one is fine). -#}
{% macro require_landing_folder(folder) %}
    {%- do adapter.dispatch('require_landing_folder', 'rerun_safe')(folder) -%}
{% endmacro %}

{% macro default__require_landing_folder(folder) %}
    {%- set found = run_query("select count(*) from (" ~ rerun_safe.list_landing(folder) ~ ") as listed") -%}
{% endmacro %}

{% macro postgres__require_landing_folder(folder) %}
    {%- if not folder.startswith('/') -%}
        {%- do rerun_safe.list_landing(folder) -%}
    {%- endif -%}
    {%- set found = run_query("select (pg_stat_file(" ~ rerun_safe.string_literal(folder) ~ ", true)).isdir") -%}
    {%- if found.rows[0][0] is not sameas true -%}
        {{ exceptions.raise_compiler_error(
            "rerun_safe: var landing_path: the landing folder " ~ folder ~ " does not exist on the database server or is not a folder"
        ) }}
    {%- endif -%}
{% endmacro %}
