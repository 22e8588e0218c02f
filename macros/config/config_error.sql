{#- Validation of vars, by name. A var is data: each accessor returns a value of a known shape
    (a whole number in bounds, a flag, a calendar date) or stops with a compiler error that
    names the var and what it accepts ("rerun_safe: var X must be ...; got ..."). Call the
    accessors from on-run-start first, so that bad configuration fails before any write.
    This macro is that error, the same for every accessor (macros/config, macros/pipeline/config). -#}
{% macro config_error(name, accepted, value) %}
    {{- exceptions.raise_compiler_error(
        "rerun_safe: var " ~ name ~ " must be " ~ accepted ~ "; got " ~ (value | string | truncate(80, true, '...'))
    ) -}}
{% endmacro %}
