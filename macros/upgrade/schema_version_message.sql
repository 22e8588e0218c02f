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
