{#- Migrate a warehouse to the schema version of this code, keeping everything it holds:

        dbt run-operation rerun_safe_upgrade        (with the build's --target and profile)

    One transaction on DuckDB and Postgres: every step of _schema_migrations() above the
    warehouse's version, then the version row; a failure anywhere commits nothing. It holds the
    registry lock (Postgres: the advisory lock on-run-start takes) and the lease row (FOR UPDATE),
    so no build starts or writes meanwhile, and it refuses, writing nothing, while a live run holds
    the lease. Idempotent: a warehouse already at this version is left untouched. Refuses a
    warehouse newer than the code, and a schema with no warehouse (a wrong --target: a first build
    records the version itself). docs/architecture.md, "Schema version and upgrades". -#}
{% macro rerun_safe_upgrade() %}
    {%- if not execute -%}{{ return('') }}{%- endif -%}
    {%- set code = rerun_safe.code_schema_version() -%}
    {%- do rerun_safe.lock_run_registry() -%}
    {%- do rerun_safe._begin_upgrade_transaction() -%}
    {%- set found = rerun_safe.warehouse_schema_version() -%}
    {%- if found is none -%}
        {%- do rerun_safe._refuse_upgrade(
            "rerun_safe: no warehouse in schema " ~ target.schema ~ " (no rerun_safe_runs table): nothing to upgrade; "
            ~ "check --target and the profile (a first build records schema version " ~ code ~ " itself)"
        ) -%}
    {%- elif found > code -%}
        {%- do rerun_safe._refuse_upgrade(rerun_safe.schema_version_message(found, code)) -%}
    {%- elif found == code -%}
        {%- do rerun_safe._end_upgrade_transaction() -%}
        {%- do rerun_safe.unlock_run_registry() -%}
        {{- log("rerun_safe: the warehouse is at schema version " ~ code ~ " already: nothing to upgrade", info=true) -}}
        {{- return('') -}}
    {%- endif -%}
    {%- do rerun_safe._require_no_live_lease_holder() -%}
    {%- set applied = [] -%}
    {%- for step in rerun_safe._schema_migrations() if step.version > found and step.version <= code -%}
        {%- do rerun_safe._apply_schema_migration(step.version) -%}
        {%- do applied.append(step.version ~ ': ' ~ step.change) -%}
    {%- endfor -%}
    {%- do run_query(rerun_safe.schema_version_row_sql(code, found)) -%}
    {%- do rerun_safe._end_upgrade_transaction() -%}
    {%- do rerun_safe.unlock_run_registry() -%}
    {{- log("rerun_safe: upgraded the warehouse from schema version " ~ found ~ " to " ~ code ~ " (" ~ applied | join('; ')
        ~ "); the ledger, the correction log, the deliveries and the run log are kept", info=true) -}}
{% endmacro %}


{#- A live run holds the warehouse: the upgrade waits for no one (the lease may be held for an
    hour) and writes nothing. A holder with no sign of life for rerun_safe_lease_stale_seconds
    (DuckDB: 0, this process holds the file) is dead: its lease is left to the next build's
    take-over. -#}
{% macro _require_no_live_lease_holder() %}
    {%- if not rerun_safe.audit_table_exists('rerun_safe_lease') -%}{{ return('') }}{%- endif -%}
    {%- set stale = rerun_safe.lease_stale_seconds() -%}
    {%- set cutoff = rerun_safe.utc_now() ~ " - interval '" ~ (stale | int) ~ " seconds'" -%}
    {%- do rerun_safe.lock_lease_row() -%}
    {%- set found = run_query(
        "select held.holder_invocation_id from " ~ rerun_safe.lease_relation() ~ " as held"
        ~ " where held.holder_invocation_id is not null and (held.heartbeat_at > " ~ cutoff
        ~ (" or exists (select 1 from " ~ rerun_safe.run_log_relation() ~ " as logged"
            ~ " where logged.invocation_id = held.holder_invocation_id and logged.logged_at > " ~ cutoff ~ ")"
            if rerun_safe.audit_table_exists('rerun_safe_run_log') else "")
        ~ ")"
    ) -%}
    {%- if found.rows | length > 0 -%}
        {%- do rerun_safe._refuse_upgrade(
            "rerun_safe: another run (" ~ found.rows[0][0] ~ ") holds the warehouse; the upgrade wrote nothing. "
            ~ "Run it when no build is running; if that run is certainly dead, release it first with: "
            ~ "dbt run-operation release_warehouse_lease --args '{invocation_id: " ~ found.rows[0][0] ~ "}'"
        ) -%}
    {%- endif -%}
{% endmacro %}

{#- Every schema version after 0, with what its migration changes. Step N migrates a warehouse
    of version N-1; its SQL is the dispatched macro _schema_migration_N (adapter-specific where
    engines differ; _apply_schema_migration.sql). Steps run in order, inside the upgrade's
    transaction, so none may commit. -#}
{% macro _schema_migrations() %}
    {{- return([
        {'version': 1, 'change': 'the schema version is recorded (rerun_safe_schema_version)'},
    ]) -}}
{% endmacro %}
