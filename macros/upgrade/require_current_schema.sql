{#- on-run-start (begin_run), before any write: a build runs only on a warehouse of the
    version this code builds, or on no warehouse yet (its first build records the version).

    An older warehouse (built by earlier code: version 0 when it records none) fails here with
    the upgrade command; a newer one (upgraded by later code) fails naming its version. Either
    way the run wrote nothing: no run row, no lease, no table. Why a build does not upgrade on
    its own: docs/architecture.md, "Schema version and upgrades". Returns the version found
    (none: no warehouse yet). -#}
{% macro require_current_schema() %}
    {%- set found = rerun_safe.warehouse_schema_version() -%}
    {%- set code = rerun_safe.code_schema_version() -%}
    {%- if found is not none and found != code -%}
        {{- exceptions.raise_compiler_error(rerun_safe.schema_version_message(found, code)) -}}
    {%- endif -%}
    {{- return(found) -}}
{% endmacro %}
