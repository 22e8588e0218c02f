{#- try_cast_bigint(): an integer in bigint's range, else null (decimals, exponents, hex,
    digit separators, other scripts' digits and the bounds plus one included). -#}
select
    cases.case_name,
    {{ rerun_safe.try_cast_bigint(decode_tokens('cases.input_text')) }} as parsed
from {{ ref('data_try_cast_bigint') }} as cases
