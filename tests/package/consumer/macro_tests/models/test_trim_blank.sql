{#- trim_blank(): blanks (space, tab, CR, LF) around a value go, a blank-only value is null;
    blanks inside and other white space (no-break, zero-width) stay. -#}
select
    cases.case_name,
    {{ encode_tokens(rerun_safe.trim_blank(decode_tokens('cases.input_text'))) }} as trimmed
from {{ ref('data_trim_blank') }} as cases
