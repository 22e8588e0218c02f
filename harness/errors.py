"""Every exception the harness raises on purpose derives from `RerunSafeError`, so a caller can
catch the harness's refusals in one clause. Each also keeps the builtin class callers caught
before (`ValueError` for input the harness cannot take, `RuntimeError` for a run that cannot go
on, `FileNotFoundError`, `KeyError`), so an existing `except ValueError` still catches it.

`rerun-safe` exits 2 on each of these (it could not run), 1 only when a check found a problem.
"""

from __future__ import annotations


class RerunSafeError(Exception):
    """The root of the harness's own exceptions."""


class InputError(RerunSafeError, ValueError):
    """A flag's value, a delivery or the project's `meta.rerun_safe` is not one the harness can
    work with (the message names which)."""


class UsageError(InputError):
    """The arguments do not describe a run the harness can start (nothing was built)."""


class InitCiError(InputError):
    """`rerun-safe init-ci`: a flag or the project refused before anything was written (one line)."""


class MissingInput(RerunSafeError, FileNotFoundError):
    """A file or folder the run needs is not there (the message names it)."""


class NotFound(RerunSafeError, KeyError):
    """A lookup by name found nothing: a check that did not run, a table not compared."""


class DbtError(RerunSafeError, RuntimeError):
    """dbt could not run at all, or a selection matched nothing."""


class NothingSelected(DbtError):
    """The selection matched no model, seed or snapshot."""


class Refused(RerunSafeError, RuntimeError):
    """The harness will not build: it cannot guarantee that it writes only where it created."""


class EngineError(RerunSafeError, RuntimeError):
    """The warehouse could not be reached, or did not do what the store asked of it."""


class ChildLogError(RerunSafeError, RuntimeError):
    """The child's log file is not dbt's JSON log (was --log-format-file json overridden?)."""


class FaultIgnored(RerunSafeError, RuntimeError):
    """The project did not fail the model the fault var named."""
