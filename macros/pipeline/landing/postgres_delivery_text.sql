{#- Postgres: the text of a delivery (SQL expressions of its path, name and id), read once, and
    only when those bytes are the delivery: their MD5 with the name gives its id. Bytes that
    changed since the inspection give null, so no record, and the file is deferred by
    mark_changed_deliveries (not recorded as loaded in any case): the rows staged under an
    identity are always read from the bytes of that identity, and changed bytes are never
    decoded (a byte that is not UTF-8 cannot fail the statement). `offset 0` keeps the read a
    subquery of its own, evaluated once. -#}
{% macro postgres_delivery_text(path, file_name, file_id) -%}
    (
        select case when md5({{ file_name }} || ':' || md5(raw.bytes)) = {{ file_id }} then convert_from(raw.bytes, 'UTF8') end
        from (select pg_read_binary_file({{ path }}) as bytes offset 0) as raw
    )
{%- endmacro %}
