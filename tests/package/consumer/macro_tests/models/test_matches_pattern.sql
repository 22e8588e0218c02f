{#- matches_pattern(): the whole value must match the whole pattern (an alternation
    included, not one branch at one end). -#}
select
    cases.case_name,
    {{ rerun_safe.matches_pattern(decode_tokens('cases.input_text'), '[a-z]+[0-9]*') }} as is_word,
    {{ rerun_safe.matches_pattern(decode_tokens('cases.input_text'), 'a|bc') }} as is_a_or_bc
from {{ ref('data_matches_pattern') }} as cases
