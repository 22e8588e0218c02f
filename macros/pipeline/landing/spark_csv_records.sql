{#- The records of a CSV text (an SQL expression, byte-order mark already dropped) on Spark, as
    an array of strings in file order, the header first, each record's fields separated by
    U+E000 and written as in the file (quoted fields keep their quotes: csv_field). The
    Postgres algorithm with Spark's higher-order functions: split the text on `"`; in every
    piece outside quotes (even position) a comma becomes U+E000 and a line break (CRLF, CR,
    LF) U+E001; join the pieces back with `"`, split on U+E001, drop empty records. -#}
{% macro spark_csv_records(content) %}
    {{- return(
        "filter(split(array_join(transform(split(" ~ content ~ ", '\"', -1), (piece, position) -> case when position % 2 = 0"
        ~ " then regexp_replace(replace(piece, ',', '\\uE000'), '\\r\\n|\\r|\\n', '\\uE001') else piece end), '\"'),"
        ~ " '\\uE001', -1), record -> record != '')"
    ) -}}
{% endmacro %}
