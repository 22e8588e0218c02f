{#- Validation of vars, by name. A var is data: each accessor returns a value of a known shape
    (a whole number in bounds, a flag, a calendar date) or stops with a compiler error that
    names the var and what it accepts ("rerun_safe: var X must be ...; got ..."). Call the
    accessors from on-run-start first, so that bad configuration fails before any write. -#}

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

{#- A UTC instant, YYYY-MM-DDTHH:MM:SSZ or YYYY-MM-DD HH:MM:SS (the contract's two forms; a real
    calendar instant, year 0001 to 9999), returned as 'YYYY-MM-DD HH:MM:SS', or none. YAML reads
    an unquoted 2036-11-01 10:00:00 as a timestamp: one without an offset, or at UTC, is taken
    as that instant; any other offset is refused. -#}
{% macro timestamp_value(name, value) %}
    {%- if value is none -%}{{ return(none) }}{%- endif -%}
    {%- set accepted = 'a UTC timestamp YYYY-MM-DDTHH:MM:SSZ or YYYY-MM-DD HH:MM:SS' -%}
    {%- if value is sameas true or value is sameas false or value is number -%}
        {{- rerun_safe.config_error(name, accepted, value) -}}
    {%- endif -%}
    {%- set text = value | string -%}
    {%- set shape = modules.re.fullmatch(
        '([0-9]{4})-([0-9]{2})-([0-9]{2})(?:T([0-9]{2}):([0-9]{2}):([0-9]{2})Z| ([0-9]{2}):([0-9]{2}):([0-9]{2}))',
        text
    ) if value is string else modules.re.fullmatch(
        '([0-9]{4})-([0-9]{2})-([0-9]{2}) ([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\\+00:00)?', text
    ) -%}
    {%- if shape is none -%}{{ rerun_safe.config_error(name, accepted, value) }}{%- endif -%}
    {%- set fields = [] -%}
    {%- for group in shape.groups() if group is not none -%}{%- do fields.append(group | int) -%}{%- endfor -%}
    {%- set year, month, day, hour, minute, second = fields -%}
    {%- set leap = (year % 4 == 0 and year % 100 != 0) or year % 400 == 0 -%}
    {%- set month_days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] -%}
    {%- if year < 1 or month < 1 or month > 12 or day < 1 or day > month_days[month - 1]
        or hour > 23 or minute > 59 or second > 59 -%}
        {{- rerun_safe.config_error(name, accepted, value) -}}
    {%- endif -%}
    {{- return('%04d-%02d-%02d %02d:%02d:%02d' | format(year, month, day, hour, minute, second)) -}}
{% endmacro %}

{#- The run's clock (var rerun_safe_now, for tests and backfills), as 'YYYY-MM-DD HH:MM:SS', or
    none for the wall clock. start_run records it as the run's started_at, so that a row judged
    against its delivery's first run (stg_landing__events: ingested_in_future) is judged the same
    way by every later run and --full-refresh. -#}
{% macro run_clock_override() %}
    {{- return(rerun_safe.timestamp_value('rerun_safe_now', var('rerun_safe_now', none))) -}}
{% endmacro %}

{#- The run's clock as SQL: the validated rerun_safe_now as a quoted timestamp literal, or now. -#}
{% macro run_clock() %}
    {%- set override = rerun_safe.run_clock_override() -%}
    {%- if override is none -%}{{ return(rerun_safe.utc_now()) }}{%- endif -%}
    {{- return("cast(" ~ rerun_safe.string_literal(override) ~ " as timestamp)") -}}
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

{#- A flag var: true or false only (a typo such as 'yes' is refused, not read as false). -#}
{% macro flag_var(name) %}
    {%- set value = var(name) -%}
    {%- if value is sameas true or value is sameas false -%}{{ return(value) }}{%- endif -%}
    {%- if value is string and value.lower() in ['true', 'false'] -%}{{ return(value.lower() == 'true') }}{%- endif -%}
    {{- rerun_safe.config_error(name, 'true or false', value) -}}
{% endmacro %}

{#- The vars the audit family reads (begin_run validates them before its first write). -#}
{% macro validate_run_vars() %}
    {%- do rerun_safe.lock_timeout_seconds() -%}
    {%- do rerun_safe.lease_stale_seconds() -%}
    {%- set fail_model = var('rerun_safe_fail_model', none) -%}
    {%- if fail_model is not none and fail_model is not string -%}
        {{- rerun_safe.config_error('rerun_safe_fail_model', 'a model name', fail_model) -}}
    {%- endif -%}
    {%- do rerun_safe.run_clock_override() -%}
{% endmacro %}

{#- The vars the audit family reads (validate_run_vars checks their values). -#}
{% macro run_var_names() %}
    {{- return(['rerun_safe_fail_model', 'rerun_safe_lease_stale_seconds', 'rerun_safe_lock_timeout_seconds', 'rerun_safe_now']) -}}
{% endmacro %}

{#- The vars given on the command line (--vars), as a mapping: dbt 1.11 gives a dict; a YAML
    text is read the way dbt reads it. -#}
{% macro cli_vars() %}
    {%- set given = invocation_args_dict.get('vars') -%}
    {%- if given is none or given == '' -%}{{ return({}) }}{%- endif -%}
    {%- if given is string -%}{%- set given = fromyaml(given) -%}{%- endif -%}
    {{- return(given if given is mapping else {}) -}}
{% endmacro %}

{#- Levenshtein distance (insertions, deletions, substitutions: one each) between two texts. -#}
{% macro edit_distance(a, b) %}
    {%- set previous = namespace(row=range(b | length + 1) | list) -%}
    {%- for i in range(1, a | length + 1) -%}
        {%- set current = [i] -%}
        {%- for j in range(1, b | length + 1) -%}
            {%- set substitution = previous.row[j - 1] + (0 if a[i - 1] == b[j - 1] else 1) -%}
            {%- do current.append([previous.row[j] + 1, current[j - 1] + 1, substitution] | min) -%}
        {%- endfor -%}
        {%- set previous.row = current -%}
    {%- endfor -%}
    {{- return(previous.row[b | length]) -}}
{% endmacro %}

{#- The known name nearest to `name` (fewest edits; ties: the first in sorted order). -#}
{% macro nearest_name(name, known) %}
    {%- set best = namespace(name=none, distance=none) -%}
    {%- for candidate in known | sort -%}
        {%- set distance = rerun_safe.edit_distance(name | string, candidate) -%}
        {%- if best.distance is none or distance < best.distance -%}
            {%- set best.name = candidate -%}
            {%- set best.distance = distance -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return(best.name) -}}
{% endmacro %}

{#- Every var given on the command line must be one of `known` (a typo would otherwise run
    silently with the default): the error names each unknown var and the nearest known one. -#}
{% macro require_known_vars(known) %}
    {%- set unknown = [] -%}
    {%- for name in rerun_safe.cli_vars() -%}
        {%- if name not in known -%}{%- do unknown.append(name | string) -%}{%- endif -%}
    {%- endfor -%}
    {%- if unknown -%}
        {%- set named = [] -%}
        {%- for name in unknown | sort -%}
            {%- do named.append("var " ~ (name | truncate(80, true, '...')) ~ " (did you mean " ~ rerun_safe.nearest_name(name, known) ~ "?)") -%}
        {%- endfor -%}
        {{- exceptions.raise_compiler_error(
            "rerun_safe: unknown " ~ named | join(', ') ~ ": this project reads no such var; the vars it reads: "
            ~ known | sort | join(', ')
        ) -}}
    {%- endif -%}
{% endmacro %}
