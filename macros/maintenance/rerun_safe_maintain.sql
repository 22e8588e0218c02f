{#- Give back the space and the order that deletes took from a warehouse grown by runs:

        dbt run-operation rerun_safe_maintain [--args '{min_deleted_percent: 5, dry_run: true}']

    Every incremental model's table keeps the rows its merges and replace_keys deleted until its
    storage is rewritten: on DuckDB they stay in their row groups (it merges a row group only
    past a quarter deleted), so a warehouse grown by runs scans and checkpoints more than the
    same rows built at once (docs/benchmarks.md, the grown history). On DuckDB this rewrites each
    such table whose deleted share of stored rows is at least min_deleted_percent (default 5),
    in the order its model declares (`meta.rerun_safe.layout_order`, a list of its columns; else
    the order the rows are stored in), then checkpoints. Each rewrite is one transaction that
    keeps every row: a stop midway leaves every table whole, and the next call goes on. A table
    is rewritten once its deletes reach the threshold, so its cost is bounded by the rows
    deleted since the last rewrite (at most 100 / min_deleted_percent times them), which the
    batches wrote. DuckDB holds the file for one process, so no build runs meanwhile.
    PostgreSQL (autovacuum) and Spark (insert_overwrite rewrites whole partitions) reclaim their
    own space: nothing is done there, and the log says so. Returns nothing. -#}
{% macro rerun_safe_maintain(min_deleted_percent=5, dry_run=false) %}
    {%- if not execute -%}{{ return('') }}{%- endif -%}
    {%- set threshold = rerun_safe._maintain_threshold(min_deleted_percent) -%}
    {%- if dry_run is not sameas true and dry_run is not sameas false -%}
        {{- exceptions.raise_compiler_error(
            "rerun_safe_maintain: dry_run must be true or false; got " ~ (dry_run | string | truncate(80, true, '...'))
        ) -}}
    {%- endif -%}
    {%- do adapter.dispatch('_maintain_tables', 'rerun_safe')(threshold, dry_run) -%}
{% endmacro %}


{#- min_deleted_percent: a whole number from 0 to 100 (an int or a string of digits). -#}
{% macro _maintain_threshold(value) %}
    {%- set parsed = rerun_safe._whole_number(value, 0, 100) -%}
    {%- if parsed is none -%}
        {{- exceptions.raise_compiler_error(
            "rerun_safe_maintain: min_deleted_percent must be a whole number from 0 to 100; got "
            ~ (value | string | truncate(80, true, '...'))
        ) -}}
    {%- endif -%}
    {{- return(parsed) -}}
{% endmacro %}


{% macro default___maintain_tables(threshold, dry_run) %}
    {{- log("rerun_safe_maintain: " ~ adapter.type() ~ " reclaims deleted rows itself (PostgreSQL: autovacuum; "
        ~ "Spark: insert_overwrite rewrites whole partitions): nothing to do", info=true) -}}
{% endmacro %}


{#- Two passes: every table measured and every layout_order checked first, so a bad one stops the
    operation before any write; then the rewrites. -#}
{% macro duckdb___maintain_tables(threshold, dry_run) %}
    {%- set plan = [] -%}
    {%- for node in graph.nodes.values()
        if node.resource_type == 'model' and node.config.materialized == 'incremental' -%}
        {%- set relation = adapter.get_relation(node.database, node.schema, node.alias or node.name) -%}
        {%- if relation is not none and relation.type == 'table' -%}
            {%- set counted = run_query(
                "select (select coalesce(sum(stored), 0) from (select max(start + count) - min(start) as stored"
                ~ " from pragma_storage_info(" ~ rerun_safe.string_literal(relation.render()) ~ ")"
                ~ " where column_id = 0 and column_path = '[0]' group by row_group_id) as row_groups),"
                ~ " (select count(*) from " ~ relation ~ ")"
            ).rows[0] -%}
            {%- set stored, live = counted[0] | int, counted[1] | int -%}
            {%- set percent = (100.0 * (stored - live) / stored) if stored > 0 else 0 -%}
            {%- do plan.append({
                'relation': relation,
                'order': rerun_safe._layout_order(node, relation),
                'deleted': stored > live,
                'due': stored > live and percent >= threshold,
                'what': relation.schema ~ "." ~ relation.identifier ~ ": " ~ "%.1f" | format(percent)
                    ~ " % of " ~ stored ~ " stored rows deleted",
            }) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set rewritten = [] -%}
    {%- for table in plan -%}
        {%- if table.due and not dry_run -%}
            {%- set started = modules.datetime.datetime.now() -%}
            {%- do run_query("create or replace table " ~ table.relation ~ " as select * from " ~ table.relation
                ~ (" order by " ~ table.order | join(", ") if table.order else "")) -%}
            {%- do adapter.commit() -%}
            {%- do rewritten.append(table.relation) -%}
            {{- log("rerun_safe_maintain: " ~ table.what ~ ": rewritten in "
                ~ "%.1f" | format((modules.datetime.datetime.now() - started).total_seconds()) ~ " s", info=true) -}}
        {%- else -%}
            {{- log("rerun_safe_maintain: " ~ table.what ~ ": " ~ ("due (dry run: not rewritten)" if table.due
                else "kept (under " ~ threshold ~ " %)" if table.deleted else "kept (nothing deleted)"), info=true) -}}
        {%- endif -%}
    {%- endfor -%}
    {%- if rewritten -%}
        {%- do run_query("checkpoint") -%}
    {%- endif -%}
    {{- log("rerun_safe_maintain: " ~ rewritten | length ~ " of " ~ plan | length ~ " incremental table(s) rewritten", info=true) -}}
{% endmacro %}


{#- The model's meta.rerun_safe.layout_order: its columns, quoted; a name that is not one of the
    table's columns stops the operation before any write. -#}
{% macro _layout_order(node, relation) %}
    {%- set declared = ((node.config.meta or node.meta or {}).get('rerun_safe') or {}).get('layout_order') or [] -%}
    {%- set columns = adapter.get_columns_in_relation(relation) | map(attribute='name') | map('lower') | list -%}
    {%- set quoted = [] -%}
    {%- for name in ([declared] if declared is string else declared) -%}
        {%- if name is not string or name | lower not in columns -%}
            {{- exceptions.raise_compiler_error(
                "rerun_safe_maintain: " ~ node.name ~ "'s meta.rerun_safe.layout_order names " ~ (name | string | truncate(80, true, '...'))
                ~ ", which is not a column of " ~ relation ~ "; nothing was rewritten"
            ) -}}
        {%- endif -%}
        {%- do quoted.append(adapter.quote(name)) -%}
    {%- endfor -%}
    {{- return(quoted) -}}
{% endmacro %}
