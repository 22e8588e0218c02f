{#- Must fail, naming the var and what it accepts: 7.5 is no whole number. (Called when the
    model runs, not while dbt parses the project: a parse error would stop the whole build.) -#}
select {{ rerun_safe.whole_number_var('macro_test_unset', 1, 10, default='7.5') if execute else 1 }} as whole_number
