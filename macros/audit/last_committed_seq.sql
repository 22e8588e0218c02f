{#- A model's progress: the highest run sequence number it committed. The run-log row that
    records it is written by the model's own post-hook, inside the model's transaction, so the
    progress can never run ahead of (or fall behind) the data. Rendered as a literal (read when
    the model runs, before its transaction) so stamp filters prune by zone maps; only the
    model itself writes its own progress rows. -#}
{% macro last_committed_seq(model_name=none) %}
    {%- set name = model_name or this.identifier -%}
    {%- set run_log = rerun_safe.run_log_relation() -%}
    {%- if execute and load_relation(run_log) is not none -%}
        {%- set found = run_query("select coalesce(max(run_seq), 0) from " ~ run_log ~ " where model = '" ~ name ~ "'") -%}
        {{- return(found.rows[0][0] | string) -}}
    {%- endif -%}
    {{- return("0") -}}
{% endmacro %}
