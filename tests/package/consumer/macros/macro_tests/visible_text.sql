{#- The macro tests' seeds write characters that a CSV file hides or loses as <name> tokens:
    dbt loads a blank or empty cell as null, and a tab or a no-break space cannot be seen.
    decode_tokens turns the tokens of a text column into the characters, encode_tokens turns
    a result back (all but a space, which a cell keeps unless the value is only blanks), so the
    expected seeds stay readable. -#}
{% macro text_tokens() %}
    {{- return({
        'sp': 32, 'tab': 9, 'lf': 10, 'cr': 13, 'bell': 7, 'del': 127, 'nbsp': 160, 'shy': 173,
        'zwsp': 8203, 'ideographic_space': 12288, 'bom': 65279, 'tag_a': 917569,
    }) -}}
{% endmacro %}

{% macro decode_tokens(expression) %}
    {%- set decoded = namespace(sql="replace(" ~ expression ~ ", '<empty>', '')") -%}
    {%- for name, code_point in text_tokens().items() -%}
        {%- set decoded.sql = "replace(" ~ decoded.sql ~ ", '<" ~ name ~ ">', chr(" ~ code_point ~ "))" -%}
    {%- endfor -%}
    {{- return(decoded.sql) -}}
{% endmacro %}

{% macro encode_tokens(expression) %}
    {%- set encoded = namespace(sql=expression) -%}
    {%- for name, code_point in text_tokens().items() if name != 'sp' -%}
        {%- set encoded.sql = "replace(" ~ encoded.sql ~ ", chr(" ~ code_point ~ "), '<" ~ name ~ ">')" -%}
    {%- endfor -%}
    {{- return("case when " ~ expression ~ " = '' then '<empty>' else " ~ encoded.sql ~ " end") -}}
{% endmacro %}
