{#- One field as written -> its value: `"a,""b"""` -> `a,"b"`; unquoted text as is. The same
    SQL on Postgres and Spark, the two engines that split CSV text in SQL. -#}
{% macro csv_field(raw) -%}
    case
        when length({{ raw }}) >= 2 and left({{ raw }}, 1) = '"' and right({{ raw }}, 1) = '"'
            then replace(substr({{ raw }}, 2, length({{ raw }}) - 2), '""', '"')
        else {{ raw }}
    end
{%- endmacro %}
