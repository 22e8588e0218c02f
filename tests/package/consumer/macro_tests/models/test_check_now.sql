{#- check_now() as a post-hook whose check holds: the model builds. -#}
{{ config(materialized='table', post_hook=["{{ rerun_safe.check_now('select ' ~ rerun_safe.raise_error('below -1000') ~ ' from ' ~ this ~ ' where amount < -1000') }}"]) }}
select * from {{ ref('data_check_now') }}
