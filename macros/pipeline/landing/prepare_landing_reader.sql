{#- Postgres: the PL/pgSQL helper the inspection uses, created before the deliveries model
    runs (its pre-hook). Elsewhere nothing to prepare: an empty hook, which dbt skips. -#}
{% macro prepare_landing_reader() %}
    {{- return(adapter.dispatch('prepare_landing_reader', 'rerun_safe')()) -}}
{% endmacro %}

{% macro default__prepare_landing_reader() %}{% endmacro %}

{% macro postgres__prepare_landing_reader() %}
    create or replace function {{ adapter.quote(target.schema) }}.rerun_safe_utf8_or_null(content bytea) returns text
    language plpgsql immutable as $body$
    begin
        return convert_from(content, 'UTF8');
    exception when others then
        return null;
    end
    $body$
{% endmacro %}
