{#- Pre-hook of every model, inside its transaction: fail unless this invocation holds the
    lease. -#}
{% macro lease_guard() %}{{ return(adapter.dispatch('lease_guard', 'rerun_safe')()) }}{% endmacro %}
{% macro default__lease_guard() %}
    {{- return(rerun_safe._lease_guard_sql('')) -}}
{% endmacro %}
{% macro spark__lease_guard() %}
    {{- return(rerun_safe.check_now(rerun_safe._lease_guard_sql(''))) -}}
{% endmacro %}
{% macro postgres__lease_guard() %}
    {#- FOR SHARE: models of the same run share the row; a take-over (FOR UPDATE) waits for the
        model to commit. -#}
    {{- return(rerun_safe._lease_guard_sql(' for share')) -}}
{% endmacro %}
{% macro _lease_guard_sql(locking) %}
    select case
        when count(*) = 0 then {{ rerun_safe.raise_error(
            'rerun_safe: this run (' ~ invocation_id ~ ') does not hold the warehouse lease (rerun_safe_lease); '
            ~ 'another run took it over or on-run-start did not take it, so ' ~ this.identifier ~ ' writes nothing'
        ) }}
    end as rerun_safe_lease_guard
    from (
        select held.lease_name
        from {{ rerun_safe.lease_relation() }} as held
        where held.holder_invocation_id = '{{ invocation_id }}'{{ locking }}
    ) as lease_held
{% endmacro %}
