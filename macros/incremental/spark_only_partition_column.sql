{#- The partition column of spark_only_partition_by in a model's select: `<expression> as
    <column>,` on Spark, nothing elsewhere (see spark_only_partition_by). -#}
{% macro spark_only_partition_column(expression, column) %}
    {{- return(adapter.dispatch('spark_only_partition_column', 'rerun_safe')(expression, column)) -}}
{% endmacro %}

{% macro default__spark_only_partition_column(expression, column) %}
    {{- return('') -}}
{% endmacro %}

{% macro spark__spark_only_partition_column(expression, column) %}
    {{- return(expression ~ ' as ' ~ column ~ ',') -}}
{% endmacro %}
