{#- parse_utc_timestamp(): the contract's two forms parse, every other shape and every
    impossible date or time is null. -#}
select
    cases.case_name,
    {{ rerun_safe.parse_utc_timestamp(decode_tokens('cases.input_text')) }} as parsed_at
from {{ ref('data_parse_utc_timestamp') }} as cases
