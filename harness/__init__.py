"""rerun_safe harness: prove that re-running a dbt project is safe."""

# The one version of a release: the harness (rerun-safe --version, the package metadata through
# pyproject.toml) and both dbt_project.yml files carry it; tests/test_release.py checks they agree.
__version__ = "0.1.0"
