{#- The `incremental` materialization on DuckDB and Postgres, with this package's strategies
    added: `insert_overwrite` (the name Spark, Databricks and BigQuery give partition
    overwrite; dbt-duckdb and dbt-postgres refuse it as "not valid for this adapter") and
    `replace_keys`. A model with any other strategy, or a Python model, runs the adapter's own
    incremental materialization, unchanged: this one only adds names.

    A project that installs the package opts in with a shim in its own macros/ (dbt runs a
    package's override of a built-in materialization only when the root project asks):
        {% materialization incremental, adapter='duckdb', supported_languages=['sql', 'python'] %}
            {{ return(rerun_safe.materialization_incremental_duckdb()) }}
        {% endmaterialization %}
    and the same for postgres (without supported_languages). -#}

{% materialization incremental, adapter='duckdb', supported_languages=['sql', 'python'] %}
    {{- return(rerun_safe.incremental_with_strategies(dbt.materialization_incremental_duckdb)) -}}
{% endmaterialization %}

{% materialization incremental, adapter='postgres' %}
    {{- return(rerun_safe.incremental_with_strategies(dbt.materialization_incremental_default)) -}}
{% endmaterialization %}

{#- The strategies this materialization runs, by config name: strategy -> SQL macro. -#}
{% macro package_strategies() %}
    {{- return({
        'insert_overwrite': rerun_safe.insert_overwrite_sql,
        'replace_keys': rerun_safe.replace_keys_sql,
    }) -}}
{% endmacro %}

{#- dbt's default incremental materialization (dbt-adapters, global project), with the strategy
    taken from package_strategies(): the same relations, hooks, transaction, schema-change
    handling, grants and docs as the adapter's for the other strategies. -#}
{% macro incremental_with_strategies(adapter_materialization) %}
    {%- set strategies = rerun_safe.package_strategies() -%}
    {%- set strategy = config.get('incremental_strategy') -%}
    {%- if strategy not in strategies or model['language'] != 'sql' -%}
        {{- return(adapter_materialization()) -}}
    {%- endif -%}

    {%- set existing_relation = load_cached_relation(this) -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {%- set temp_relation = make_temp_relation(target_relation) -%}
    {%- set intermediate_relation = make_intermediate_relation(target_relation) -%}
    {%- set backup_relation_type = 'table' if existing_relation is none else existing_relation.type -%}
    {%- set backup_relation = make_backup_relation(target_relation, backup_relation_type) -%}
    {%- set unique_key = config.get('unique_key') -%}
    {%- set full_refresh_mode = (should_full_refresh() or existing_relation.is_view) -%}
    {%- set on_schema_change = incremental_validate_on_schema_change(config.get('on_schema_change'), default='ignore') -%}
    {%- set grant_config = config.get('grants') -%}
    {#- before BEGIN: leftovers of a crashed run go first -#}
    {{ drop_relation_if_exists(load_cached_relation(intermediate_relation)) }}
    {{ drop_relation_if_exists(load_cached_relation(backup_relation)) }}

    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {#- BEGIN happens here -#}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}

    {%- set state = namespace(need_swap=false, relation_for_indexes=target_relation) -%}
    {#- a full build keeps out what an incremental one would not insert (partition_keep_rows) -#}
    {%- set keep_rows = config.get('partition_keep_rows') -%}
    {%- set full_build_sql = sql if not keep_rows else 'select * from (\n' ~ sql ~ '\n) as built where ' ~ keep_rows -%}
    {%- if existing_relation is none -%}
        {%- set build_sql = get_create_table_as_sql(False, target_relation, full_build_sql) -%}
    {%- elif full_refresh_mode -%}
        {%- set build_sql = get_create_table_as_sql(False, intermediate_relation, full_build_sql) -%}
        {%- set state.relation_for_indexes = intermediate_relation -%}
        {%- set state.need_swap = true -%}
    {%- else -%}
        {%- do run_query(get_create_table_as_sql(True, temp_relation, sql)) -%}
        {%- set state.relation_for_indexes = temp_relation -%}
        {%- set contract_config = config.get('contract') -%}
        {%- if not contract_config or not contract_config.enforced -%}
            {%- do adapter.expand_target_column_types(from_relation=temp_relation, to_relation=target_relation) -%}
        {%- endif -%}
        {%- set dest_columns = process_schema_changes(on_schema_change, temp_relation, existing_relation) -%}
        {%- if not dest_columns -%}
            {%- set dest_columns = adapter.get_columns_in_relation(existing_relation) -%}
        {%- endif -%}
        {%- set build_sql = strategies[strategy]({
            'target_relation': target_relation,
            'temp_relation': temp_relation,
            'unique_key': unique_key,
            'dest_columns': dest_columns,
            'incremental_predicates': config.get('predicates', none) or config.get('incremental_predicates', none),
        }) -%}
    {%- endif -%}

    {% call statement('main') -%}
        {{ build_sql }}
    {%- endcall %}

    {%- if existing_relation is none or existing_relation.is_view or should_full_refresh() -%}
        {%- do create_indexes(state.relation_for_indexes) -%}
    {%- endif -%}
    {%- set to_drop = [] -%}
    {%- if state.need_swap -%}
        {%- do adapter.rename_relation(target_relation, backup_relation) -%}
        {%- do adapter.rename_relation(intermediate_relation, target_relation) -%}
        {%- do to_drop.append(backup_relation) -%}
    {%- endif -%}
    {%- do apply_grants(target_relation, grant_config, should_revoke=should_revoke(existing_relation, full_refresh_mode)) -%}
    {%- do persist_docs(target_relation, model) -%}

    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {#- COMMIT happens here -#}
    {%- do adapter.commit() -%}
    {%- for relation in to_drop -%}
        {%- do adapter.drop_relation(relation) -%}
    {%- endfor -%}
    {{ run_hooks(post_hooks, inside_transaction=False) }}

    {{- return({'relations': [target_relation]}) -}}
{% endmacro %}
