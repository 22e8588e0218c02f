"""`rerun-safe init-ci`: write the consumer CI workflow (harness/templates/rerun-safe-pr.yml)
into a dbt project as .github/workflows/rerun-safe.yml, with the harness's git URL and revision
filled in when they are given. It writes one new file and refuses, before writing, a project
folder without dbt_project.yml, a workflow file that already exists, a path through a symbolic
link, and a URL or revision that is not plain."""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from harness.errors import InitCiError

TEMPLATE = "rerun-safe-pr.yml"
DESTINATION = Path(".github") / "workflows" / "rerun-safe.yml"
# The template's line that names the harness to install (its placeholders are replaced).
HARNESS_LINE = 'HARNESS: "rerun-safe-harness @ git+https://github.com/<owner>/rerun_safe.git@<tag or commit>"'
# What may go inside the workflow's double-quoted YAML string and pip's requirement: no quote,
# backslash, space, `$`, `@` in the URL (it ends the URL) or newline.
URL = re.compile(r"(https|ssh|file)://[A-Za-z0-9._~:/%+-]+")
REVISION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")


@dataclass(frozen=True)
class InitCi:
    project_dir: Path
    url: str | None = None
    revision: str | None = None

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> InitCi:
        return cls(project_dir=args.project_dir, url=args.harness_url, revision=args.revision)

    def workflow_text(self) -> str:
        text = (files("harness.templates") / TEMPLATE).read_text(encoding="utf-8")
        if self.url is None and self.revision is None:
            return text
        if self.url is not None and not URL.fullmatch(self.url):
            raise InitCiError(f"--harness-url {self.url!r} is not a plain https://, ssh:// or file:// URL")
        if self.revision is not None and not REVISION.fullmatch(self.revision):
            raise InitCiError(f"--revision {self.revision!r} is not a plain tag, branch or commit")
        url = self.url or "https://github.com/<owner>/rerun_safe.git"
        revision = self.revision or "<tag or commit>"
        line = f'HARNESS: "rerun-safe-harness @ git+{url}@{revision}"'
        assert text.count(HARNESS_LINE) == 1
        return text.replace(HARNESS_LINE, line)

    def destination(self) -> Path:
        project = self.project_dir
        if not (project / "dbt_project.yml").is_file():
            raise InitCiError(f"--project-dir {project} has no dbt_project.yml")
        target = project / DESTINATION
        for path in (target.parent.parent, target.parent, target):
            if path.is_symlink():
                raise InitCiError(f"{path} is a symbolic link: not followed, nothing written")
        if target.exists():
            raise InitCiError(f"{target} exists: not overwritten (remove it to write the template again)")
        return target

    def write(self) -> Path:
        text = self.workflow_text()
        target = self.destination()
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "x", encoding="utf-8") as handle:  # never replaces a file that appeared meanwhile
            handle.write(text)
        return target


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `init-ci` among the CLI's commands."""
    sub = commands.add_parser(
        "init-ci",
        help="write the pull-request CI workflow into a dbt project",
        description=f"Write {DESTINATION} (rerun-safe on the models a pull request changed) into a dbt project.",
    )
    sub.add_argument("--project-dir", type=Path, default=Path("."), metavar="DIR", help="the dbt project (default: .)")
    sub.add_argument(
        "--harness-url",
        default=None,
        metavar="URL",
        help="your fork's git URL of rerun_safe (default: a placeholder to edit)",
    )
    sub.add_argument("--revision", default=None, metavar="REV", help="the tag or commit of it to install")


def run(args: argparse.Namespace) -> int:
    """`rerun-safe init-ci`: 0 written, 2 refused (one line on stderr, nothing written)."""
    init = InitCi.from_args(args)
    try:
        written = init.write()
    except InitCiError as exc:
        print(f"rerun-safe: {exc}", file=sys.stderr)
        return 2
    placeholder = init.url is None or init.revision is None
    to_set = "HARNESS (your fork's URL and a tag or commit), " if placeholder else ""
    print(f"wrote {written}: set {to_set}DELIVERIES or SPLIT_ARGS in its env")
    return 0
