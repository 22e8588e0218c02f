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

{% macro schema_version_message(found, code) %}
    {%- set where = "the warehouse " ~ (target.schema if target.type != 'duckdb' else target.path) -%}
    {%- if found < code -%}
        {{- return(
            "rerun_safe: " ~ where ~ " has schema version " ~ found ~ (" (built before versions were recorded)" if found == 0 else "")
            ~ ", and this code needs version " ~ code ~ "; this " ~ flags.WHICH ~ " wrote nothing. Upgrade it once, keeping the ledger, "
            ~ "the correction log, the deliveries and the run log, with: dbt run-operation rerun_safe_upgrade "
            ~ "(the same --target and profile as the build), then build again. "
            ~ "(--full-refresh is no upgrade: it never rebuilds the ledger or the correction log.)"
        ) -}}
    {%- endif -%}
    {{- return(
        "rerun_safe: " ~ where ~ " has schema version " ~ found ~ ", newer than this code (version " ~ code
        ~ "): it was upgraded by a later rerun_safe; run that version (this " ~ flags.WHICH ~ " wrote nothing)"
    ) -}}
{% endmacro %}
