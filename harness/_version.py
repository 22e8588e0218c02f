"""The one version of a release, in a module that imports nothing: the package metadata
(pyproject.toml reads it), `rerun-safe --version`, `harness.__version__` and harness.compat take
it from here, and both dbt_project.yml files carry it (tests/test_release.py checks they agree)."""

__version__ = "0.1.0"
