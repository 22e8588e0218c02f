"""rerun_safe harness: prove that re-running a dbt project is safe."""
