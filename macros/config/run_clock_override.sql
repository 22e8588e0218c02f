{#- The run's clock (var rerun_safe_now, for tests and backfills), as 'YYYY-MM-DD HH:MM:SS', or
    none for the wall clock. start_run records it as the run's started_at, so that a row judged
    against its delivery's first run (stg_landing__events: ingested_in_future) is judged the same
    way by every later run and --full-refresh. -#}
{% macro run_clock_override() %}
    {{- return(rerun_safe._timestamp_value('rerun_safe_now', var('rerun_safe_now', none))) -}}
{% endmacro %}

{#- A UTC instant, YYYY-MM-DDTHH:MM:SSZ or YYYY-MM-DD HH:MM:SS (the contract's two forms; a real
    calendar instant, year 0001 to 9999), returned as 'YYYY-MM-DD HH:MM:SS', or none. YAML reads
    an unquoted 2036-11-01 10:00:00 as a timestamp: one without an offset, or at UTC, is taken
    as that instant; any other offset is refused. -#}
{% macro _timestamp_value(name, value) %}
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
