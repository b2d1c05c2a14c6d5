"""The ``scorecard`` command line: parses arguments and calls the library.

Each sub-command lives in a module of ``labeling.commands`` that defines ``register(subparsers)``;
the handler it registers returns the process exit status.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from labeling import __version__
from labeling.errors import ScorecardError

# One module per group of sub-commands, in the order `scorecard --help` lists them.
COMMAND_MODULES = [
    "labeling.commands.evaluate",
    "labeling.commands.workspace",
    "labeling.commands.access",
    "labeling.commands.report",
    "labeling.commands.synthetic",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scorecard",
        description="Label, score and share the scorecard of a search or RAG retriever.",
    )
    parser.add_argument("--version", action="version", version=f"scorecard {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except ScorecardError as error:
        print(f"scorecard: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
