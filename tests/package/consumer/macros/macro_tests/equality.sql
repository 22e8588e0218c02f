{#- Passes when `model` and `compare_model` hold the same rows as multisets: each row as many
    times on one side as on the other, so a duplicated row is a difference. Compares
    `compare_columns`, or every column of `model`. Returns each differing row with the side that
    holds it. (EXCEPT ALL keeps duplicates and treats two nulls as the same value.) -#}
{% test equality(model, compare_model, compare_columns=none) %}
    {%- if compare_columns is none and execute -%}
        {%- set compare_columns = adapter.get_columns_in_relation(model) | map(attribute='name') | list -%}
    {%- endif -%}
    {%- set columns = (compare_columns or ['1']) | map('lower') | join(', ') -%}

    with

    model_rows as (
        select {{ columns }} from {{ model }}
    ),

    compare_rows as (
        select {{ columns }} from {{ compare_model }}
    ),

    only_in_model as (
        select * from model_rows
        except all
        select * from compare_rows
    ),

    only_in_compare_model as (
        select * from compare_rows
        except all
        select * from model_rows
    ),

    final as (
        select 'only in the model' as found, only_in_model.* from only_in_model
        union all
        select 'only in compare_model' as found, only_in_compare_model.* from only_in_compare_model
    )

    select * from final
{% endtest %}
