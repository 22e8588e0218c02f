{#- has_blank_or_control(): any space, control or format character, in any plane; visible
    letters of any script are not. -#}
select
    cases.case_name,
    {{ rerun_safe.has_blank_or_control(decode_tokens('cases.input_text')) }} as has_invisible
from {{ ref('data_has_blank_or_control') }} as cases
