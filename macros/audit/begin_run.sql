{#- One writer at a time: the warehouse lease (docs/architecture.md, "Concurrency").

    dbt closes each node's connection after the node, so no database session lives as long as
    an invocation, and a session lock taken in on-run-start does not protect the models. The
    lock is therefore a row: `rerun_safe_lease` holds one row naming the invocation that owns
    the warehouse.

    - on-run-start (begin_run): take the lease, waiting up to rerun_safe_lock_timeout_seconds
      (polling once a second) while another live run holds it; then register the run
      (start_run) while holding it, so run numbers and the audit tables' DDL are never raced.
      A run that cannot take it records itself as `refused` and fails before any model runs
      (flags.skip_nodes_if_on_run_start_fails), with the holder's id and start time.
    - every model, inside its transaction (lease_guard pre-hook): the statement fails unless
      this invocation holds the lease, and on Postgres it keeps the row share-locked until the
      model commits, so nobody can take the lease over in the middle of a model. A run that
      lost its lease can never write.
    - on-run-end (release_lease): give it back. A crashed holder's lease is taken over once it
      has shown no sign of life (lease taken, or a model committed) for
      rerun_safe_lease_stale_seconds; or by hand: dbt run-operation release_warehouse_lease.

    Adapter differences live in the dispatched macros this one calls, each in its own file of
    macros/audit (default__ is the portable version used by DuckDB). -#}

{#- on-run-start. -#}
{% macro begin_run() %}
    {%- if not rerun_safe.writing_command() -%}
        {{- return('') -}}
    {%- endif -%}
    {#- configuration first: a bad var stops before any write -#}
    {%- do rerun_safe.validate_run_vars() -%}
    {#- then the schema version: a warehouse older or newer than this code stops here, before any
        write, naming the upgrade command (macros/upgrade) -#}
    {%- do rerun_safe.require_current_schema() -%}
    {%- set timeout = rerun_safe.lock_timeout_seconds() -%}
    {%- set stale = rerun_safe.lease_stale_seconds() -%}
    {%- set lease = rerun_safe.lease_relation() -%}
    {%- set state = namespace(done=false, acquired=false, holder=none, holder_started=none, pauses=0) -%}
    {%- set first_try = run_query("select " ~ rerun_safe.utc_now()).rows[0][0] -%}
    {%- do rerun_safe.commit_hook_writes() -%}
    {%- for attempt in range(timeout + 1) -%}{%- if not state.done -%}
        {%- do rerun_safe.lock_run_registry() -%}
        {%- do run_query(rerun_safe.create_audit_table(lease, [
            ['lease_name', 'text', true],
            ['holder_invocation_id', 'text', false],
            ['holder_started_at', 'timestamp', false],
            ['acquired_at', 'timestamp', false],
            ['heartbeat_at', 'timestamp', false],
            ['released_at', 'timestamp', false],
            ['taken_over_from', 'text', false],
        ], partition_by='lease_name')) -%}
        {%- do run_query(
            "insert into " ~ lease ~ " (lease_name) select 'warehouse' where not exists (select 1 from " ~ lease ~ ")"
        ) -%}
        {%- do rerun_safe.commit_hook_writes() -%}
        {%- do rerun_safe.lock_lease_row() -%}
        {%- do run_query(rerun_safe._take_lease_sql(stale)) -%}
        {%- set found = run_query("select holder_invocation_id, holder_started_at from " ~ lease) -%}
        {%- do rerun_safe.commit_hook_writes() -%}
        {%- set state.holder = found.rows[0][0] -%}
        {%- set state.holder_started = found.rows[0][1] -%}
        {%- if state.holder == invocation_id -%}
            {%- set state.acquired = true -%}
            {%- set state.done = true -%}
        {%- elif attempt == timeout -%}
            {%- set state.done = true -%}
        {%- else -%}
            {%- do rerun_safe.unlock_run_registry() -%}
            {%- if rerun_safe._pause_one_second() -%}
                {%- do rerun_safe.commit_hook_writes() -%}
                {%- set state.pauses = state.pauses + 1 -%}
            {%- else -%}
                {%- do rerun_safe.lock_run_registry() -%}
                {%- set state.done = true -%}
            {%- endif -%}
        {%- endif -%}
    {%- endif -%}{%- endfor -%}
    {#- Still under the registry lock. The holder registers the run with how long it waited (its
        number is taken after the previous holder's; a first build records the schema version just
        before the registry exists). Neither it nor a refused run rewrites a row of the registry:
        other runs' models may be reading it, and on Spark a rewrite replaces the files such a read
        lists. A refused run holds no lease, so it registers nothing: it records its refusal
        (_record_refused_run), then fails. -#}
    {%- set waited = rerun_safe.seconds_between("cast('" ~ first_try ~ "' as timestamp)", rerun_safe.utc_now()) -%}
    {%- if state.acquired -%}
        {%- do rerun_safe.record_schema_version() -%}
        {%- do rerun_safe.start_run(waited) -%}
        {%- do rerun_safe._refresh_relation_cache() -%}
        {%- do rerun_safe.commit_hook_writes() -%}
        {%- do rerun_safe.unlock_run_registry() -%}
    {%- else -%}
        {%- set message = rerun_safe._held_message(state.holder, state.holder_started, timeout, stale) -%}
        {%- do rerun_safe._record_refused_run(state.holder, waited) -%}
        {%- do rerun_safe.commit_hook_writes() -%}
        {%- do rerun_safe.unlock_run_registry() -%}
        {{- exceptions.raise_compiler_error(message) -}}
    {%- endif -%}
    {{- return('') -}}
{% endmacro %}

{#- Pause one second between attempts; false where the engine cannot wait in SQL. -#}
{% macro _pause_one_second() %}{{ return(adapter.dispatch('_pause_one_second', 'rerun_safe')()) }}{% endmacro %}
{% macro default___pause_one_second() %}{{ return(false) }}{% endmacro %}
{% macro postgres___pause_one_second() %}
    {%- do run_query("select pg_sleep(1)") -%}
    {{- return(true) -}}
{% endmacro %}

{#- The SQL of one attempt: take the lease when it is free, already ours, or stale. The holder's
    last sign of life is the later of its lease heartbeat and its last committed model. -#}
{% macro _take_lease_sql(stale_seconds) %}
    {%- set lease = rerun_safe.lease_relation() -%}
    {%- set cutoff = rerun_safe.utc_now() ~ " - interval '" ~ (stale_seconds | int) ~ " seconds'" -%}
    {%- set where -%}
        holder_invocation_id is null
        or holder_invocation_id = '{{ invocation_id }}'
        or (
            heartbeat_at <= {{ cutoff }}
            {%- if rerun_safe.audit_table_exists('rerun_safe_run_log') %}
            and not exists (
                select 1 from {{ rerun_safe.run_log_relation() }} as logged
                where
                    logged.invocation_id in (select held.holder_invocation_id from {{ lease }} as held)
                    and logged.logged_at > {{ cutoff }}
            )
            {%- endif %}
        )
    {%- endset -%}
    {{- return(rerun_safe.update_rows_sql(lease, [
        ['holder_invocation_id', "'" ~ invocation_id ~ "'"],
        ['holder_started_at', "cast('" ~ run_started_at.strftime("%Y-%m-%d %H:%M:%S") ~ "' as timestamp)"],
        ['acquired_at', rerun_safe.utc_now()],
        ['heartbeat_at', rerun_safe.utc_now()],
        ['taken_over_from', "case when holder_invocation_id is null or holder_invocation_id = '" ~ invocation_id
            ~ "' then taken_over_from else holder_invocation_id end"],
    ], where)) -}}
{% endmacro %}

{% macro _held_message(holder, holder_started, timeout, stale) %}
    {{- return(
        "rerun_safe: another run (" ~ holder ~ ", started at " ~ holder_started ~ " UTC) holds the warehouse; "
        ~ "this run waited " ~ timeout ~ " s (var rerun_safe_lock_timeout_seconds) and wrote nothing. "
        ~ "A lease whose holder shows no sign of life for " ~ stale ~ " s (var rerun_safe_lease_stale_seconds) is taken over; "
        ~ "if that run is certainly dead, release it now with: dbt run-operation release_warehouse_lease --args "
        ~ "'{invocation_id: " ~ holder ~ "}'"
    ) -}}
{% endmacro %}
