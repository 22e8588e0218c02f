{#- Every var given on the command line must be one of `known` (a typo would otherwise run
    silently with the default): the error names each unknown var and the nearest known one. -#}
{% macro require_known_vars(known) %}
    {%- set unknown = [] -%}
    {%- for name in rerun_safe._cli_vars() -%}
        {%- if name not in known -%}{%- do unknown.append(name | string) -%}{%- endif -%}
    {%- endfor -%}
    {%- if unknown -%}
        {%- set named = [] -%}
        {%- for name in unknown | sort -%}
            {%- do named.append("var " ~ (name | truncate(80, true, '...')) ~ " (did you mean " ~ rerun_safe._nearest_name(name, known) ~ "?)") -%}
        {%- endfor -%}
        {{- exceptions.raise_compiler_error(
            "rerun_safe: unknown " ~ named | join(', ') ~ ": this project reads no such var; the vars it reads: "
            ~ known | sort | join(', ')
        ) -}}
    {%- endif -%}
{% endmacro %}

{#- The vars given on the command line (--vars), as a mapping: dbt 1.11 gives a dict; a YAML
    text is read the way dbt reads it. -#}
{% macro _cli_vars() %}
    {%- set given = invocation_args_dict.get('vars') -%}
    {%- if given is none or given == '' -%}{{ return({}) }}{%- endif -%}
    {%- if given is string -%}{%- set given = fromyaml(given) -%}{%- endif -%}
    {{- return(given if given is mapping else {}) -}}
{% endmacro %}

{#- Levenshtein distance (insertions, deletions, substitutions: one each) between two texts. -#}
{% macro _edit_distance(a, b) %}
    {%- set previous = namespace(row=range(b | length + 1) | list) -%}
    {%- for i in range(1, a | length + 1) -%}
        {%- set current = [i] -%}
        {%- for j in range(1, b | length + 1) -%}
            {%- set substitution = previous.row[j - 1] + (0 if a[i - 1] == b[j - 1] else 1) -%}
            {%- do current.append([previous.row[j] + 1, current[j - 1] + 1, substitution] | min) -%}
        {%- endfor -%}
        {%- set previous.row = current -%}
    {%- endfor -%}
    {{- return(previous.row[b | length]) -}}
{% endmacro %}

{#- The known name nearest to `name` (fewest edits; ties: the first in sorted order). -#}
{% macro _nearest_name(name, known) %}
    {%- set best = namespace(name=none, distance=none) -%}
    {%- for candidate in known | sort -%}
        {%- set distance = rerun_safe._edit_distance(name | string, candidate) -%}
        {%- if best.distance is none or distance < best.distance -%}
            {%- set best.name = candidate -%}
            {%- set best.distance = distance -%}
        {%- endif -%}
    {%- endfor -%}
    {{- return(best.name) -}}
{% endmacro %}
