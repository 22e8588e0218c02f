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
    {{- return(rerun_safe._incremental_with_strategies(dbt.materialization_incremental_duckdb)) -}}
{% endmaterialization %}

{% materialization incremental, adapter='postgres' %}
    {{- return(rerun_safe._incremental_with_strategies(dbt.materialization_incremental_default)) -}}
{% endmaterialization %}

{#- Spark (parquet tables: no DELETE, no MERGE, no transaction). The package's strategies are
    rewrites of whole partitions with INSERT OVERWRITE in dynamic partition overwrite mode
    (profiles.yml sets spark.sql.sources.partitionOverwriteMode=dynamic): only the partitions
    the statement writes are replaced, and it may read its own target.
    - `insert_overwrite` with `partition_keep_rows`: the new rows that pass it replace their
      partitions; a partition whose new rows all fail it (a marker) is dropped.
    - `replace_keys` with `partition_by`: every partition present in the new rows is rewritten
      as its new rows plus its old rows whose key is not among the new keys (the keys'
      partitions are bounded by the model, see replace_keys_sql.sql); a partition left with no row
      is dropped. With config `partition_of_key_may_change=true`, the partitions where the new
      keys' old rows lie are rewritten too (one more read of the key and partition columns of
      the whole table): exact for a key whose partition value changes, or whose new row is a
      marker with no partition value.
    - `replace_keys` without `partition_by` (a small keyed table: one row per delivery): the
      whole table is written to `<name>__rerun_safe_new`, then swapped in by two renames; a
      build that died between them is completed by the next one (_spark_finish_swap).
    - `merge` on a parquet table with every column updated (no Delta or Iceberg here): the
      same rows as `replace_keys` on `unique_key`, so it runs as that.
    Any other strategy (append, insert_overwrite without partition_keep_rows) is dbt-spark's
    own materialization, unchanged. No statement here is transactional: a run that dies
    mid-model leaves the model's progress (its run-log row, written last by its post-hook)
    unrecorded, and the next run recomputes the same keys and partitions and rewrites them
    (docs/engines.md, "Spark"). -#}
{% materialization incremental, adapter='spark', supported_languages=['sql', 'python'] %}
    {%- set strategy = config.get('incremental_strategy') -%}
    {%- set keep_rows = config.get('partition_keep_rows') -%}
    {#- merge on a plain parquet table (no Delta, Iceberg or Hudi jars here), with every column
        updated: the same rows as replace_keys, so it runs as replace_keys -#}
    {%- set plain_merge = strategy == 'merge' and config.get('file_format', 'parquet') == 'parquet'
        and not config.get('merge_update_columns') and not config.get('merge_exclude_columns') -%}
    {%- if model['language'] != 'sql' or not (strategy == 'replace_keys' or plain_merge or (strategy == 'insert_overwrite' and keep_rows)) -%}
        {{- return(dbt.materialization_incremental_spark()) -}}
    {%- endif -%}
    {%- set partition_column = rerun_safe.partition_column(required=(strategy == 'insert_overwrite')) -%}
    {%- set unique_key = config.require('unique_key') if strategy in ('replace_keys', 'merge') else none -%}
    {%- set target_relation = this.incorporate(type='table') -%}
    {%- set new_relation = this.incorporate(path={'identifier': this.identifier ~ '__rerun_safe_new'}, type='table') -%}
    {%- set old_relation = this.incorporate(path={'identifier': this.identifier ~ '__rerun_safe_old'}, type='table') -%}
    {%- set tmp_relation = this.incorporate(path={'identifier': this.identifier ~ '__rerun_safe_rows'}, type='table') -%}
    {%- do rerun_safe._spark_finish_swap(target_relation, new_relation, old_relation) -%}
    {%- do adapter.drop_relation(tmp_relation) -%}
    {%- set existing_relation = load_relation(this) -%}
    {%- set full_build_sql = rerun_safe._full_build_sql(sql) -%}

    {{ run_hooks(pre_hooks) }}

    {%- if existing_relation is none or existing_relation.is_view or should_full_refresh() -%}
        {%- if existing_relation is not none -%}
            {%- do adapter.drop_relation(existing_relation) -%}
        {%- endif -%}
        {%- call statement('main') -%}
            {{ create_table_as(False, target_relation, full_build_sql) }}
        {%- endcall -%}
    {%- else -%}
        {#- Each of the two statements below reads the new rows up to six times (the partitions
            they rewrite, the keys they replace, the rows themselves). As a temporary view, each read would plan and run
            the model's whole query again (measured: 6.5 s for the emptied-partitions query on a
            few dozen rows, 1-2 s on the table). So they are written once, as a parquet table:
            also one snapshot, taken before the write changes the target the query may read.
            A run that dies leaves it; the next run drops it first (above). -#}
        {%- call statement('create_tmp_relation') -%}
            create table {{ tmp_relation }} using parquet as {{ sql }}
        {%- endcall -%}
        {%- do process_schema_changes(config.get('on_schema_change'), tmp_relation, existing_relation) -%}
        {%- set columns = adapter.get_columns_in_relation(existing_relation) | map(attribute='name') | list -%}
        {#- the partitions rewritten: those of the new rows and, when a key may change partition
            (config partition_of_key_may_change), those its old rows lie on -#}
        {%- set rewritten_partitions -%}
            select built.{{ partition_column }} from {{ tmp_relation }} as built
            {%- if unique_key and config.get('partition_of_key_may_change', false) %}
            union
            select old.{{ partition_column }} from {{ existing_relation }} as old
            where old.{{ unique_key }} in (select built.{{ unique_key }} from {{ tmp_relation }} as built)
            {%- endif %}
        {%- endset -%}
        {%- set rewritten -%}
            select {{ columns | join(', ') }} from {{ tmp_relation }} as built
            {%- if keep_rows %} where {{ keep_rows }}{% endif %}
            {%- if unique_key %}
            union all
            select {{ columns | join(', ') }} from {{ existing_relation }} as kept
            where
                kept.{{ unique_key }} not in (select built.{{ unique_key }} from {{ tmp_relation }} as built)
                {%- if partition_column %}
                and kept.{{ partition_column }} in ({{ rewritten_partitions }})
                {%- endif %}
            {%- endif %}
        {%- endset -%}
        {%- if partition_column -%}
            {#- rewritten partitions that the rewrite leaves empty: dynamic overwrite cannot empty
                them, so they are dropped after it -#}
            {%- set emptied = run_query(
                'select distinct ' ~ partition_column ~ ' from (' ~ rewritten_partitions ~ ') as rewritten_partitions'
                ~ ' where ' ~ partition_column ~ ' is not null'
                ~ ' except select ' ~ partition_column ~ ' from (' ~ rewritten ~ ') as rewritten'
            ).columns[0].values() | map('string') | list -%}
            {%- call statement('main') -%}
                insert overwrite table {{ target_relation }} partition ({{ partition_column }})
                select * from ({{ rewritten }}) as rewritten
            {%- endcall -%}
            {%- for value in emptied -%}
                {%- call statement('drop_emptied_partition') -%}
                    alter table {{ target_relation }} drop if exists partition ({{ partition_column }} = {{ rerun_safe.string_literal(value) }})
                {%- endcall -%}
            {%- endfor -%}
        {%- else -%}
            {%- call statement('main') -%}
                create table {{ new_relation }} using parquet as {{ rewritten }}
            {%- endcall -%}
            {%- do adapter.rename_relation(target_relation, old_relation) -%}
            {%- do adapter.rename_relation(new_relation, target_relation) -%}
            {%- do adapter.drop_relation(old_relation) -%}
        {%- endif -%}
        {%- do adapter.drop_relation(tmp_relation) -%}
    {%- endif -%}

    {%- do persist_docs(target_relation, model) -%}
    {{ run_hooks(post_hooks) }}
    {{- return({'relations': [target_relation]}) -}}
{% endmaterialization %}

{#- The strategies this materialization runs, by config name: strategy -> SQL macro. -#}
{% macro _package_strategies() %}
    {{- return({
        'insert_overwrite': rerun_safe.insert_overwrite_sql,
        'replace_keys': rerun_safe.replace_keys_sql,
    }) -}}
{% endmacro %}

{#- What a first or full build creates: the model's rows, without those an incremental run would
    not insert (config partition_keep_rows), so both ways give the same table. -#}
{% macro _full_build_sql(sql) %}
    {%- set keep_rows = config.get('partition_keep_rows') -%}
    {{- return(sql if not keep_rows else 'select * from (\n' ~ sql ~ '\n) as built where ' ~ keep_rows) -}}
{% endmacro %}

{#- dbt's default incremental materialization (dbt-adapters, global project), with the strategy
    taken from _package_strategies(): the same relations, hooks, transaction, schema-change
    handling, grants and docs as the adapter's for the other strategies. -#}
{% macro _incremental_with_strategies(adapter_materialization) %}
    {%- set strategies = rerun_safe._package_strategies() -%}
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
    {%- set full_build_sql = rerun_safe._full_build_sql(sql) -%}
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

{#- Before a Spark model writes: finish or undo a swap (see above) that a dead build left.
    `new` exists only between its complete creation and its rename: if the target is gone the
    first rename happened, so the second one is done now; otherwise `new` was never swapped in
    and is dropped. `old` is left only after both renames: dropped. -#}
{% macro _spark_finish_swap(target_relation, new_relation, old_relation) %}
    {%- set target_found = load_relation(target_relation) is not none or rerun_safe.audit_table_exists(target_relation.identifier) -%}
    {%- set new_found = rerun_safe.audit_table_exists(new_relation.identifier) -%}
    {%- if new_found and not target_found -%}
        {%- do adapter.rename_relation(new_relation, target_relation) -%}
    {%- elif new_found -%}
        {%- do adapter.drop_relation(new_relation) -%}
    {%- endif -%}
    {%- if rerun_safe.audit_table_exists(old_relation.identifier) -%}
        {%- do adapter.drop_relation(old_relation) -%}
    {%- endif -%}
{% endmacro %}
