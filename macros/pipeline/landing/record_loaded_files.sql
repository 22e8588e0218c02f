{% macro record_loaded_files(deliveries) %}
    insert into {{ rerun_safe.loaded_files_relation() }} (file_id, run_seq)
    select
        delivery.file_id,
        {{ rerun_safe.current_run_seq() }}
    from {{ deliveries }} as delivery
    where
        delivery.status = 'accepted'
        and delivery.file_id in (
            select staged._file_id from {{ this }} as staged
            where staged._loaded_run_seq = {{ rerun_safe.current_run_seq() }}
        )
        and delivery.records = (
            select count(*) from {{ this }} as staged
            where staged._file_id = delivery.file_id
        )
{% endmacro %}
