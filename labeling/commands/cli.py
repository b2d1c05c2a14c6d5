"""The ``scorecard`` command line: parses arguments and calls the library.

Each sub-command lives in a module of ``labeling.commands`` that defines ``register(subparsers)``;
the handler it registers returns the process exit status.
"""

from __future__ import annotations

import argparse
import importlib
import sqlite3
import sys

from labeling import __version__
from labeling.errors import ScorecardError, storage_problem

# One module per group of sub-commands, in the order `scorecard --help` lists them.
COMMAND_MODULES = [
    "labeling.commands.app",
    "labeling.commands.evaluate",
    "labeling.commands.workspace",
    "labeling.commands.access",
    "labeling.commands.report",
    "labeling.commands.threshold",
    "labeling.commands.plan",
    "labeling.commands.gate",
    "labeling.commands.synthetic",
    "labeling.commands.judge",
    "labeling.commands.connection",
    "labeling.commands.retrieve",
    "labeling.commands.chunking",
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
    """Run one command; a refusal or a failure of the file system or of SQLite is one line on
    stderr and exit status 2, never a traceback."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except ScorecardError as error:
        return _fail(str(error))
    except OSError as error:  # a file the command writes or reads outside the readers
        where = error.filename if error.filename is not None else "file"
        return _fail(f"{where}: {error.strerror or error}")
    except sqlite3.Error as error:  # a write that failed after the workspace opened
        where = getattr(args, "db", None) or "workspace"
        return _fail(f"{where}: {storage_problem(error)}")
    except KeyboardInterrupt:
        return 130


def _fail(sentence: str) -> int:
    one_line = " ".join(sentence.splitlines())  # a raw library message may hold line breaks
    print(f"scorecard: {one_line}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
