{#- stable_hash(): one value, a pair (null apart from ''), a number; equal inputs, equal hashes. -#}
select
    cases.case_name,
    {{ rerun_safe.stable_hash([decode_tokens('cases.first_value')]) }} as first_hash,
    {{ rerun_safe.stable_hash([decode_tokens('cases.first_value'), decode_tokens('cases.second_value')]) }} as pair_hash,
    {{ rerun_safe.stable_hash(['cases.amount']) }} as amount_hash
from {{ ref('data_stable_hash') }} as cases
