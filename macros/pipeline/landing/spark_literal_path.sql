{#- Spark: a path as Spark's file sources take it. They expand Hadoop glob patterns
    (`* ? [ ] { } \`), so each such character is escaped with a backslash and matches only
    itself; the path is a backquoted identifier (`binaryFile.`path``), so a backquote is
    doubled. -#}
{% macro spark_literal_path(path) %}
    {%- set escaped = modules.re.sub('([*?\\[\\]{}\\\\])', '\\\\\\1', path | string) -%}
    {{- return('`' ~ escaped | replace('`', '``') ~ '`') -}}
{% endmacro %}
