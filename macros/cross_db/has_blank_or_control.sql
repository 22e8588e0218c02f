{#- True when text `expression` holds a character that cannot be seen or told apart in a key:
    every character of the Unicode classes Cc (controls), Cf (format characters: soft hyphen,
    bidirectional marks and isolates, zero-width joiners, U+FEFF, tags, ...), Zs (spaces, the
    ASCII space included), Zl and Zp. `c1` and `c1<no-break space>` would otherwise be two
    companies. Null for null. _invisible_key_ranges() is the one list every adapter formats
    (tests/pipeline/test_value_edges.py checks every code point of these classes). -#}
{% macro has_blank_or_control(expression) %}{{ return(adapter.dispatch('has_blank_or_control', 'rerun_safe')(expression)) }}{% endmacro %}

{#- The code point ranges of Cc, Cf, Zs, Zl and Zp (Unicode 15), merged. -#}
{% macro _invisible_key_ranges() %}
    {{- return([
        [0x0, 0x20], [0x7F, 0xA0], [0xAD, 0xAD], [0x600, 0x605], [0x61C, 0x61C], [0x6DD, 0x6DD],
        [0x70F, 0x70F], [0x890, 0x891], [0x8E2, 0x8E2], [0x1680, 0x1680], [0x180E, 0x180E],
        [0x2000, 0x200F], [0x2028, 0x202F], [0x205F, 0x2064], [0x2066, 0x206F], [0x3000, 0x3000],
        [0xFEFF, 0xFEFF], [0xFFF9, 0xFFFB], [0x110BD, 0x110BD], [0x110CD, 0x110CD],
        [0x13430, 0x1343F], [0x1BCA0, 0x1BCA3], [0x1D173, 0x1D17A], [0xE0001, 0xE0001],
        [0xE0020, 0xE007F],
    ]) -}}
{% endmacro %}

{#- A bracket expression of the ranges, each code point written by `escape` (a format string). -#}
{% macro _invisible_key_class(escape, lowest=0) %}
    {%- set parts = [] -%}
    {%- for low, high in rerun_safe._invisible_key_ranges() -%}
        {%- set low = [low, lowest] | max -%}
        {%- if low == high -%}
            {%- do parts.append(rerun_safe._code_point_escape(escape, low)) -%}
        {%- else -%}
            {%- do parts.append(rerun_safe._code_point_escape(escape, low) ~ '-' ~ rerun_safe._code_point_escape(escape, high)) -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return('[' ~ parts | join('') ~ ']') -}}
{% endmacro %}

{#- `escape` is 'braces' (\x{hex}: RE2, Java) or 'postgres' (\uXXXX, \UXXXXXXXX). -#}
{% macro _code_point_escape(escape, code_point) %}
    {%- if escape == 'braces' -%}
        {{- return('\\x{' ~ '%x' | format(code_point) ~ '}') -}}
    {%- elif code_point > 0xFFFF -%}
        {{- return('\\U' ~ '%08x' | format(code_point)) -}}
    {%- else -%}
        {{- return('\\u' ~ '%04x' | format(code_point)) -}}
    {%- endif -%}
{% endmacro %}

{% macro default__has_blank_or_control(expression) %}
    {#- why from U+0001: PostgreSQL text cannot hold NUL, and its regex refuses \u0000 -#}
    {{- return("(" ~ expression ~ ") ~ '" ~ rerun_safe._invisible_key_class('postgres', lowest=1) ~ "'") -}}
{% endmacro %}
{% macro duckdb__has_blank_or_control(expression) %}
    {{- return("regexp_matches(" ~ expression ~ ", '" ~ rerun_safe._invisible_key_class('braces') ~ "')") -}}
{% endmacro %}
{% macro spark__has_blank_or_control(expression) %}
    {#- why the doubled backslash: a Spark SQL string literal unescapes it once before the regex -#}
    {{- return("(" ~ expression ~ ") rlike '" ~ rerun_safe._invisible_key_class('braces') | replace('\\', '\\\\') ~ "'") -}}
{% endmacro %}
