"""What a check is: a subclass of `Check`, generic in the frozen dataclass of its options.

Every hook is a method with a default body, so a check overrides only what it needs: a check
without flags of its own keeps `add_arguments`, one that always applies keeps `applies`; only
`run` has to be written. The options dataclass holds each default once: `add_arguments`
declares its flags with `default=None`, and `options_from` takes the flags given and the
dataclass's defaults for the rest, so `--help`, the CLI and `harness.run_checks` agree.
"""

from __future__ import annotations

import argparse
import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from harness.context import CheckContext
from harness.results import CheckResult

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

OptionsT = TypeVar("OptionsT", bound="DataclassInstance")


@dataclasses.dataclass(frozen=True)
class NoOptions:
    """The options of a check that has no flags of its own."""


class Check(ABC, Generic[OptionsT]):
    """One check of the harness (dbt-duckdb's `BasePlugin` is the model: a hook per method,
    each with a default). A subclass sets the class attributes and overrides `run`."""

    name: ClassVar[str]  # the CLI command (`rerun-safe <name>`) and the result's name
    help: ClassVar[str]  # one line for `--help`
    needs_deliveries: ClassVar[bool] = False  # a command line naming it needs --deliveries
    options_type: type[OptionsT]  # a frozen dataclass: one default per option

    def add_arguments(self, parser: argparse._ActionsContainer) -> None:
        """Declare the check's own flags on `parser` (an argument group of its command and of
        `all`), each with `default=None` and `dest` a field of `options_type`. Default: none."""
        del parser

    def options_from(self, namespace: argparse.Namespace) -> OptionsT:
        """The check's options from parsed command-line flags."""
        return self.options_from_mapping(vars(namespace))

    def options_from_mapping(self, values: Mapping[str, Any]) -> OptionsT:
        """The check's options from values by field name (a flag's name with underscores):
        each field given and not None, the dataclass's default for the rest; names that are no
        field of this check's options are someone else's and left out."""
        given = {
            field.name: values[field.name]
            for field in dataclasses.fields(self.options_type)
            if values.get(field.name) is not None
        }
        return self.options_type(**given)

    def option_names(self) -> frozenset[str]:
        """The field names of the check's options."""
        return frozenset(field.name for field in dataclasses.fields(self.options_type))

    def default_options(self) -> OptionsT:
        """Every option at its default (the check run with no flag of its own)."""
        return self.options_type()

    def applies(self, ctx: CheckContext, options: OptionsT) -> str:
        """ "" when the check can run on this project and these deliveries, else why not (a
        SKIPPED reason under `all`, an ERROR when the check was named). Default: it applies."""
        del ctx, options
        return ""

    @abstractmethod
    def run(self, ctx: CheckContext, options: OptionsT) -> CheckResult:
        """Run the check in its own lanes (`ctx.lane(self.name, ...)`) and say what it found.
        Raising DbtError, ValueError or FileNotFoundError makes the result an ERROR with the
        message (harness.runner)."""


class NeedsDeliveries(Check[OptionsT]):
    """A check that needs delivery batches: it does not apply without --deliveries."""

    needs_deliveries: ClassVar[bool] = True
    without_deliveries: ClassVar[str] = "needs --deliveries DIR"

    def applies(self, ctx: CheckContext, options: OptionsT) -> str:
        """Applies when the run has deliveries."""
        del options
        return "" if ctx.deliveries is not None else self.without_deliveries
