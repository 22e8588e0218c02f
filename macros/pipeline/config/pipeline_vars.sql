{#- The pipeline's vars, each validated by name (built on config/validated_vars.sql): a whole
    number in bounds, one of a few words, a calendar date, a path without control characters.
    validate_pipeline_config() runs all of them, and checks the landing folder, first thing in
    on-run-start, before begin_run takes the lease, so bad configuration fails before any
    write; models call the accessors, never var() directly. -#}

{% macro landing_path() %}
    {%- set value = var('landing_path') -%}
    {%- set accepted = 'a folder path (text, without control characters)' -%}
    {%- if value is not string or value.strip() == '' or modules.re.search('[\\x00-\\x1f\\x7f]', value) -%}
        {{- rerun_safe.config_error('landing_path', accepted, value) -}}
    {%- endif -%}
    {{- return(value.rstrip('/') if value.rstrip('/') != '' else '/') -}}
{% endmacro %}

{% macro allowed_lateness_hours() %}
    {{- return(rerun_safe.whole_number_var('allowed_lateness_hours', 0, 87600)) -}}
{% endmacro %}

{% macro lookback_hours() %}
    {{- return(rerun_safe.whole_number_var('lookback_hours', 0, 87600)) -}}
{% endmacro %}

{#- The largest amount_cents a row may carry (larger: quarantined as amount_out_of_range).
    Every sum the models store is a signed 64-bit integer (an item's gross and refunded cents in
    fct_order_items, a company-day's in fct_daily_revenue), so the var's accepted maximum is
    derived from the most rows one such sum may hold: 9,223,372 rows (max_rows_per_sum) of
    10^12 cents fit below 2^63 - 1; a larger var would let rows in that make every later build
    fail with an overflow naming no event. The default is that maximum. -#}
{% macro max_rows_per_sum() %}
    {{- return(9223372) -}}
{% endmacro %}

{% macro max_amount_cents_ceiling() %}
    {%- set int64_max = 9223372036854775807 -%}
    {#- the largest power of ten whose max_rows_per_sum() multiples fit: 10^12 -#}
    {%- set ceiling = namespace(value=1) -%}
    {%- for _ in range(18) -%}
        {%- if ceiling.value * 10 * rerun_safe.max_rows_per_sum() <= int64_max -%}
            {%- set ceiling.value = ceiling.value * 10 -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return(ceiling.value) -}}
{% endmacro %}

{% macro max_amount_cents() %}
    {{- return(rerun_safe.whole_number_var('max_amount_cents', 1, rerun_safe.max_amount_cents_ceiling())) -}}
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

{#- How far event_time may lie after ingested_at (clock skew) before the row is quarantined as
    event_time_after_ingestion: an event cannot be landed before it happened. -#}
{% macro max_event_time_ahead_hours() %}
    {{- return(rerun_safe.whole_number_var('max_event_time_ahead_hours', 0, 87600)) -}}
{% endmacro %}

{#- How far ingested_at may lie after "now" before the row is quarantined as ingested_in_future
    (a clock bound: a delivery cannot have been ingested after the run that first saw it). "Now"
    for a row is the started_at of the run that first saw its delivery
    (stg_landing__deliveries.first_seen_run_seq, kept through --full-refresh, in the run registry
    rerun_safe_runs), so incremental runs and every later full refresh judge it alike; var
    rerun_safe_now sets a run's clock (run_clock_override). Default 24: clock skew between the
    producer and the warehouse, and a day's delivery stamped ahead, never reach it. -#}
{% macro max_ingested_ahead_hours() %}
    {{- return(rerun_safe.whole_number_var('max_ingested_ahead_hours', 0, 87600, 24)) -}}
{% endmacro %}

{% macro source_window() %}
    {%- set value = var('source_window') -%}
    {%- if value not in ['files', 'lookback'] -%}
        {{- rerun_safe.config_error('source_window', "'files' or 'lookback'", value) -}}
    {%- endif -%}
    {{- return(value) -}}
{% endmacro %}

{#- The requested correction as [from, to] (inclusive dates), or none. -#}
{% macro correction_range() %}
    {%- set correct_from = rerun_safe.date_var('correct_from') -%}
    {%- set correct_to = rerun_safe.date_var('correct_to') -%}
    {%- if (correct_from is none) != (correct_to is none) -%}
        {{- exceptions.raise_compiler_error(
            "rerun_safe: var correct_from and var correct_to go together (inclusive UTC dates, YYYY-MM-DD); got only "
            ~ ('correct_from' if correct_to is none else 'correct_to')
        ) -}}
    {%- endif -%}
    {%- if correct_from is none -%}{{ return(none) }}{%- endif -%}
    {%- if correct_from > correct_to -%}
        {{- exceptions.raise_compiler_error(
            "rerun_safe: var correct_from (" ~ correct_from ~ ") is after var correct_to (" ~ correct_to ~ ")"
        ) -}}
    {%- endif -%}
    {{- return([correct_from, correct_to]) -}}
{% endmacro %}

{% macro accept_missing_deliveries() %}
    {{- return(rerun_safe.flag_var('accept_missing_deliveries')) -}}
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

{% macro validate_pipeline_config() %}
    {%- if rerun_safe.writing_command() -%}
        {%- do rerun_safe.require_known_vars(rerun_safe.known_vars()) -%}
        {%- for entry in rerun_safe.pipeline_var_accessors() -%}
            {%- do entry[1]() -%}
        {%- endfor -%}
        {%- do rerun_safe.require_landing_folder(rerun_safe.landing_path()) -%}
        {%- do rerun_safe.require_staged_amounts_within_bound() -%}
    {%- endif -%}
    {{- return('') -}}
{% endmacro %}
