{#- Must fail: 2026 has no February 29. (Called when the model runs, as in
    test_whole_number_var_refused.) -#}
select '{{ rerun_safe._timestamp_value('macro_test_instant', '2026-02-29 00:00:00') if execute else '' }}' as instant
