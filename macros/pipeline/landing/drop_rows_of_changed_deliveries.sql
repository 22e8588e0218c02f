{#- The rows this run staged from a delivery whose verdict is now `rejected` (changed_while_read:
    a rejected delivery is never read), removed before the conservation check. -#}
{% macro drop_rows_of_changed_deliveries(deliveries) %}
    {{- return(adapter.dispatch('drop_rows_of_changed_deliveries', 'rerun_safe')(deliveries)) -}}
{% endmacro %}

{% macro default__drop_rows_of_changed_deliveries(deliveries) %}{% endmacro %}

{% macro duckdb__drop_rows_of_changed_deliveries(deliveries) %}
    {{- rerun_safe.drop_rows_of_changed_deliveries_sql(deliveries) -}}
{% endmacro %}

{% macro postgres__drop_rows_of_changed_deliveries(deliveries) %}
    {{- rerun_safe.drop_rows_of_changed_deliveries_sql(deliveries) -}}
{% endmacro %}

{% macro drop_rows_of_changed_deliveries_sql(deliveries) %}
    delete from {{ this }}
    where
        _loaded_run_seq = {{ rerun_safe.current_run_seq() }}
        and _file_id in (
            select delivery.file_id from {{ deliveries }} as delivery
            where delivery.status = 'rejected'
        )
{% endmacro %}
