{#- True when text `expression` holds a character that cannot be seen or told apart in a key:
    a control character, an ASCII space, or a Unicode blank or format character (no-break
    space U+00A0, U+1680, U+2000-U+200F, U+2028-U+202F, U+205F-U+2064, U+3000, U+FEFF).
    `c1` and `c1<no-break space>` would otherwise be two companies. Null for null. -#}
{% macro has_blank_or_control(expression) %}{{ return(adapter.dispatch('has_blank_or_control', 'rerun_safe')(expression)) }}{% endmacro %}
{% macro default__has_blank_or_control(expression) %}
    {{- return("(" ~ expression ~ ") ~ '[\\u0001-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200f\\u2028-\\u202f\\u205f-\\u2064\\u3000\\ufeff]'") -}}
{% endmacro %}
{% macro duckdb__has_blank_or_control(expression) %}
    {{- return("regexp_matches(" ~ expression ~ ", '[\\x00-\\x20\\x7f-\\x{a0}\\x{1680}\\x{2000}-\\x{200f}\\x{2028}-\\x{202f}\\x{205f}-\\x{2064}\\x{3000}\\x{feff}]')") -}}
{% endmacro %}
{% macro spark__has_blank_or_control(expression) %}
    {{- return("(" ~ expression ~ ") rlike '[\\\\x00-\\\\x20\\\\x7f-\\\\xa0\\\\u1680\\\\u2000-\\\\u200f\\\\u2028-\\\\u202f\\\\u205f-\\\\u2064\\\\u3000\\\\ufeff]'") -}}
{% endmacro %}
