{#- The pipeline's vars, each validated by name (built on the accessors of macros/config): a whole
    number in bounds, one of a few words, a calendar date, a path without control characters.
    validate_pipeline_config() runs all of them first thing in on-run-start, before begin_run
    takes the lease, so bad configuration fails before any write; models call the accessors,
    never var() directly. Every command that writes validates landing_path's value (no control
    characters); only one that reads deliveries (reads_deliveries: build, run, retry) also needs
    the folder to exist, so `dbt seed` on a fresh clone works without one. -#}

{% macro validate_pipeline_config() %}
    {%- if rerun_safe.writing_command() -%}
        {%- do rerun_safe.require_known_vars(rerun_safe.known_vars()) -%}
        {%- for entry in rerun_safe.pipeline_var_accessors() -%}
            {%- do entry[1]() -%}
        {%- endfor -%}
        {%- if rerun_safe.reads_deliveries() -%}
            {%- do rerun_safe.require_landing_folder(rerun_safe.landing_path()) -%}
        {%- endif -%}
        {%- do rerun_safe.require_staged_amounts_within_bound() -%}
    {%- endif -%}
    {{- return('') -}}
{% endmacro %}

{#- True for the dbt commands that may build stg_landing__deliveries, so read the landing
    folder: build, run, retry. seed, snapshot, test and run-operation never read a delivery (and
    compile, docs generate, show, parse never reach validate_pipeline_config: writing_command). -#}
{% macro reads_deliveries() %}
    {{- return(flags.WHICH in ['build', 'run', 'retry']) -}}
{% endmacro %}

{#- Staged rows that are published (no invalid_reason) but above the current max_amount_cents:
    accepted under an earlier, larger bound (up to 10^15 was once accepted), or the bound was
    lowered since. An incremental run would keep them (and their sums can overflow), a full
    refresh would quarantine them: refuse, before any write, and name the rebuild that repairs
    the warehouse. A full refresh re-stages every row, so it is not checked. -#}
{% macro require_staged_amounts_within_bound() %}
    {%- if flags.FULL_REFRESH -%}{{ return('') }}{%- endif -%}
    {%- set nodes = graph.nodes.values() | selectattr('resource_type', 'equalto', 'model')
        | selectattr('name', 'equalto', 'stg_landing__events') | list -%}
    {%- if not nodes -%}{{ return('') }}{%- endif -%}
    {%- set staged = adapter.get_relation(database=nodes[0].database, schema=nodes[0].schema, identifier=nodes[0].alias) -%}
    {%- if staged is none -%}{{ return('') }}{%- endif -%}
    {%- set bound = rerun_safe.max_amount_cents() -%}
    {%- set found = run_query(
        "select count(*), max(amount_cents) from " ~ staged ~ " where invalid_reason is null and amount_cents > " ~ bound
    ).rows[0] -%}
    {%- if found[0] | int > 0 -%}
        {{- exceptions.raise_compiler_error(
            "rerun_safe: var max_amount_cents is " ~ bound ~ ", but " ~ staged.identifier ~ " holds " ~ found[0]
            ~ " published row(s) with a larger amount_cents (up to " ~ found[1] ~ "), accepted under an earlier bound;"
            ~ " their sums can overflow 64 bits. Repair: dbt build --full-refresh (with the same vars), which"
            ~ " quarantines them as amount_out_of_range"
        ) -}}
    {%- endif -%}
    {{- return('') -}}
{% endmacro %}

{#- The one list of the vars this pipeline reads: each entry is the names and the accessor that
    validates them. validate_pipeline_config runs every accessor, and a var given on the command
    line that is not named here is an error (with the nearest name), so a typo such as
    alowed_lateness_hours cannot run silently with the default. A new var is added here. -#}
{% macro pipeline_var_accessors() %}
    {{- return([
        [['landing_path'], rerun_safe.landing_path],
        [['allowed_lateness_hours'], rerun_safe.allowed_lateness_hours],
        [['lookback_hours'], rerun_safe.lookback_hours],
        [['max_amount_cents'], rerun_safe.max_amount_cents],
        [['max_event_time_ahead_hours'], rerun_safe.max_event_time_ahead_hours],
        [['max_ingested_ahead_hours'], rerun_safe.max_ingested_ahead_hours],
        [['source_window'], rerun_safe.source_window],
        [['correct_from', 'correct_to'], rerun_safe.correction_range],
        [['accept_missing_deliveries'], rerun_safe.accept_missing_deliveries],
        [rerun_safe.run_var_names(), rerun_safe.validate_run_vars],
    ]) -}}
{% endmacro %}

{% macro known_vars() %}
    {%- set names = [] -%}
    {%- for entry in rerun_safe.pipeline_var_accessors() -%}
        {%- do names.extend(entry[0]) -%}
    {%- endfor -%}
    {{- return(names) -}}
{% endmacro %}
