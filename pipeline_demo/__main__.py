"""`python -m pipeline_demo generate | demo | show | report | land ...`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from harness._plumbing import dbt_arguments, dbt_settings
from pipeline_demo import demo, generate, land, report, show


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pipeline_demo",
        description="Sample deliveries and a demo of this repository's pipeline (rerun_safe).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="<command>")
    generate.add_arguments(commands.add_parser("generate", help=generate.HELP, description=generate.HELP))
    demo.add_arguments(commands.add_parser("demo", help=demo.HELP, description=demo.HELP, parents=[dbt_arguments()]))
    report.add_arguments(commands.add_parser("report", help=report.HELP, description=report.HELP))
    show.add_arguments(commands.add_parser("show", help=show.HELP, description=show.HELP))
    land.add_arguments(commands.add_parser("land", help=land.HELP, description=land.HELP))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.command == "generate":
        return generate.run(args)
    if args.command == "report":
        return report.run(args)
    if args.command == "show":
        return show.run(args)
    if args.command == "land":
        return land.run(args)
    settings = dbt_settings(args)
    return 2 if settings is None else demo.run(args, settings)


if __name__ == "__main__":
    raise SystemExit(main())
