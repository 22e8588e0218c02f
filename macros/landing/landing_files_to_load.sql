{#- The delivery files in the landing folder that `target` has not loaded yet, as a list of
    dicts (path, file_name, file_id), sorted by name. A delivery is identified by name, size
    and modification time: a file rewritten in place is a new delivery; an old one is never
    read twice. Progress is derived from the loaded rows themselves (the _file_id values in
    the target), so it commits with them. Empty and header-only files load no rows, so they
    are listed again on every run and cost one empty scan each. -#}
{% macro landing_files_to_load(landing_glob, target, only_new) %}
    {{- return(adapter.dispatch('landing_files_to_load', 'rerun_safe')(landing_glob, target, only_new)) -}}
{% endmacro %}

{% macro duckdb__landing_files_to_load(landing_glob, target, only_new) %}
    {%- if not execute -%}{{ return([]) }}{%- endif -%}
    {%- set sql -%}
        with landed as (
            select
                filename as path,
                parse_filename(filename) as file_name,
                md5(parse_filename(filename) || ':' || cast(size as varchar) || ':' || cast(epoch_ms(last_modified) as varchar)) as file_id
            from read_blob('{{ landing_glob }}')
        )
        select landed.path, landed.file_name, landed.file_id
        from landed
        {%- if only_new %}
        where landed.file_id not in (select distinct loaded._file_id from {{ target }} as loaded)
        {%- endif %}
        order by landed.file_name, landed.file_id
    {%- endset -%}
    {%- set files = [] -%}
    {%- for row in run_query(sql).rows -%}
        {%- do files.append({'path': row[0], 'file_name': row[1], 'file_id': row[2]}) -%}
    {%- endfor -%}
    {{- return(files) -}}
{% endmacro %}
