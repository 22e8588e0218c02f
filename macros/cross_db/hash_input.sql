{#- The text that is hashed: each expression as text, null as '<null>', joined by '|'. -#}
{% macro hash_input(expressions) %}
    {%- set parts = [] -%}
    {%- for e in expressions -%}
        {%- do parts.append("coalesce(cast(" ~ e ~ " as " ~ rerun_safe.text_type() ~ "), '<null>')") -%}
    {%- endfor -%}
    {{- return(parts | join(" || '|' || ")) -}}
{% endmacro %}
