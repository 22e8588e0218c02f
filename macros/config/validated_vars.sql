{#- Every var the project reads, validated once, by name. A var is data: each accessor returns
    a value of a known shape (a whole number in bounds, one of a few words, a calendar date, a
    path without control characters) or stops with a compiler error that names the var and
    what it accepts. validate_config() runs all of them first thing in on-run-start, so bad
    configuration fails before any write; models call the accessors, never var() directly. -#}

{% macro config_error(name, accepted, value) %}
    {{- exceptions.raise_compiler_error(
        "rerun_safe: var " ~ name ~ " must be " ~ accepted ~ "; got " ~ (value | string | truncate(80, true, '...'))
    ) -}}
{% endmacro %}

{#- A whole number between low and high from an int or a string of digits (not a bool, not 7.5).
    `default` is for vars the project does not declare in dbt_project.yml. -#}
{% macro whole_number_var(name, low, high, default=none) %}
    {%- set value = var(name, default) -%}
    {%- set accepted = 'a whole number from ' ~ low ~ ' to ' ~ high -%}
    {%- if value is sameas true or value is sameas false or value is none -%}
        {{- rerun_safe.config_error(name, accepted, value) -}}
    {%- elif value is number and value == (value | int) -%}
        {%- set parsed = value | int -%}
    {%- elif value is string and modules.re.fullmatch('[0-9]{1,18}', value.strip()) -%}
        {%- set parsed = value.strip() | int -%}
    {%- else -%}
        {{- rerun_safe.config_error(name, accepted, value) -}}
    {%- endif -%}
    {%- if parsed < low or parsed > high -%}
        {{- rerun_safe.config_error(name, accepted, value) -}}
    {%- endif -%}
    {{- return(parsed) -}}
{% endmacro %}

{#- A calendar date YYYY-MM-DD (2026-02-30 is refused), or none. -#}
{% macro date_var(name) %}
    {%- set value = var(name) -%}
    {%- if value is none -%}{{ return(none) }}{%- endif -%}
    {%- set text = value | string -%}
    {%- set accepted = 'a calendar date YYYY-MM-DD' -%}
    {%- set shape = modules.re.fullmatch('([0-9]{4})-([0-9]{2})-([0-9]{2})', text) -%}
    {%- if shape is none -%}{{ rerun_safe.config_error(name, accepted, value) }}{%- endif -%}
    {%- set year, month, day = shape.group(1) | int, shape.group(2) | int, shape.group(3) | int -%}
    {%- set leap = (year % 4 == 0 and year % 100 != 0) or year % 400 == 0 -%}
    {%- set month_days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] -%}
    {%- if year < 1 or month < 1 or month > 12 or day < 1 or day > month_days[month - 1] -%}
        {{- rerun_safe.config_error(name, accepted, value) -}}
    {%- endif -%}
    {{- return(text) -}}
{% endmacro %}

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
    The default, 10^12 cents, keeps any sum of up to 9 million rows inside 64 bits. -#}
{% macro max_amount_cents() %}
    {{- return(rerun_safe.whole_number_var('max_amount_cents', 1, 1000000000000000)) -}}
{% endmacro %}

{#- How far event_time may lie after ingested_at (clock skew) before the row is quarantined as
    event_time_after_ingestion: an event cannot be landed before it happened. -#}
{% macro max_event_time_ahead_hours() %}
    {{- return(rerun_safe.whole_number_var('max_event_time_ahead_hours', 0, 87600)) -}}
{% endmacro %}

{#- How long a run waits for the warehouse lease before it gives up (0: give up at once). -#}
{% macro lock_timeout_seconds() %}
    {{- return(rerun_safe.whole_number_var('rerun_safe_lock_timeout_seconds', 0, 86400, 3600)) -}}
{% endmacro %}

{#- How long a lease holder may show no sign of life before its lease is taken over. -#}
{% macro lease_stale_seconds() %}
    {{- return(rerun_safe.whole_number_var(
        'rerun_safe_lease_stale_seconds', 0, 604800, adapter.dispatch('default_lease_stale_seconds', 'rerun_safe')()
    )) -}}
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

{#- A flag var: true or false only (a typo such as 'yes' is refused, not read as false). -#}
{% macro flag_var(name) %}
    {%- set value = var(name) -%}
    {%- if value is sameas true or value is sameas false -%}{{ return(value) }}{%- endif -%}
    {%- if value is string and value.lower() in ['true', 'false'] -%}{{ return(value.lower() == 'true') }}{%- endif -%}
    {{- rerun_safe.config_error(name, 'true or false', value) -}}
{% endmacro %}

{% macro validate_config() %}
    {%- do rerun_safe.landing_path() -%}
    {%- do rerun_safe.allowed_lateness_hours() -%}
    {%- do rerun_safe.lookback_hours() -%}
    {%- do rerun_safe.max_amount_cents() -%}
    {%- do rerun_safe.max_event_time_ahead_hours() -%}
    {%- do rerun_safe.source_window() -%}
    {%- do rerun_safe.correction_range() -%}
    {%- do rerun_safe.flag_var('accept_missing_deliveries') -%}
    {%- do rerun_safe.lock_timeout_seconds() -%}
    {%- do rerun_safe.lease_stale_seconds() -%}
    {%- set fail_model = var('rerun_safe_fail_model', none) -%}
    {%- if fail_model is not none and fail_model is not string -%}
        {{- rerun_safe.config_error('rerun_safe_fail_model', 'a model name', fail_model) -}}
    {%- endif -%}
{% endmacro %}
