{#- json_object(): text, number and boolean values, escaped quotes and newlines, nulls, and
    the empty object. -#}
select
    cases.case_name,
    {{ rerun_safe.json_object({'label': decode_tokens('cases.label'), 'amount': 'cases.amount', 'is_final': 'cases.is_final'}) }} as payload,
    {{ rerun_safe.json_object({}) }} as empty_payload
from {{ ref('data_json_object') }} as cases
