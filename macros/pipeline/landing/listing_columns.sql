{#- The candidate deliveries in the landing folder, as a SELECT of (file_name, path, size,
    mtime_ns, ctime_ns, inode, kind): every `*.csv` file (any case) whose name does not start
    with a dot, listed literally (a name is never a pattern). kind is `file`, or `symlink` /
    `other` for entries that are rejected whole (a link may point outside the folder). The
    folder is a validated var and enters SQL only as a string literal. -#}
{% macro listing_columns() %}
    {{- return(['file_name', 'path', 'size', 'mtime_ns', 'ctime_ns', 'inode', 'kind']) -}}
{% endmacro %}
