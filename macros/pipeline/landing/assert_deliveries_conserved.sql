{#- Post-hook of staging (before COMMIT): in `files` mode every delivery staged this run now
    has exactly its records staged, no more, no fewer (the inspection counted them with an
    exact CSV parser; DuckDB's or Postgres's reader must agree); a rejected delivery has none.
    Fails naming the delivery.
    In lookback mode nothing (an empty hook, which dbt skips).
    The mode is read here, not passed in: dbt renders a hook after the model body, where the
    body's own {% set %} variables are undefined (an argument from there rendered this check to
    nothing, so it never ran). -#}
{% macro assert_deliveries_conserved(deliveries) %}
    {%- if rerun_safe.source_window() == 'files' -%}
    {%- set check -%}
    select {{ rerun_safe.raise_error_expression(
        "'rerun_safe: delivery ' || unbalanced.file_name || ' has ' || cast(unbalanced.records as " ~ rerun_safe.text_type() ~ ")"
        ~ " || ' records but ' || cast(unbalanced.staged as " ~ rerun_safe.text_type() ~ ") || ' staged rows'"
    ) }} as conservation_check
    from (
        select
            delivery.file_name,
            coalesce(delivery.records, 0) as records,
            (select count(*) from {{ this }} as staged where staged._file_id = delivery.file_id) as staged
        from {{ deliveries }} as delivery
        where delivery.file_id in (
            select staged._file_id from {{ this }} as staged
            where staged._loaded_run_seq = {{ rerun_safe.current_run_seq() }}
        )
    ) as unbalanced
    where unbalanced.records != unbalanced.staged
    {%- endset -%}
    {{ rerun_safe.check_now(check) }}
    {%- endif -%}
{% endmacro %}
