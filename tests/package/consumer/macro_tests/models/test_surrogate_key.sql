{#- surrogate_key() of a pair (null apart from ''); equal inputs, equal keys. -#}
select
    cases.case_name,
    {{ rerun_safe.surrogate_key([decode_tokens('cases.first_value'), decode_tokens('cases.second_value')]) }} as pair_key
from {{ ref('data_surrogate_key') }} as cases
