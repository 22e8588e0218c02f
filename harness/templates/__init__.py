"""Files the harness ships as package data: the consumer CI workflow (rerun-safe-pr.yml), which
`rerun-safe init-ci` copies into a dbt project."""
