"""Sub-commands of ``scorecard``; each module defines ``register(subparsers)``."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

# The names of ``labeling.judging.consensus.RULES``, listed here so that building the parser does
# not import the store (a test keeps the two in step).
CONSENSUS_RULES = ("default", "strict", "lenient")
# The keys of ``labeling.judging.label_sources.LABEL_SOURCES`` (a test keeps them in step).
LABEL_SOURCES = ("people", "machine", "people+machine")
DB_HELP = "workspace file (SQLite)"

# What a sub-command runs: parsed arguments in, exit status out.
Handler = Callable[[argparse.Namespace], int]


def add_command(
    subparsers: argparse._SubParsersAction,
    name: str,
    help: str,
    description: str,
    handler: Handler | None = None,
    *,
    db: bool = True,
) -> argparse.ArgumentParser:
    """Add sub-command ``name``; with ``db`` its first argument is the workspace file (``DB``)."""
    parser = subparsers.add_parser(name, help=help, description=description)
    if db:
        add_db_argument(parser)
    if handler is not None:
        parser.set_defaults(handler=handler)
    return parser


def read_json_object(path: str | Path) -> dict:
    """The JSON object in the file ``path``; ``InputError`` naming the file otherwise."""
    import json

    from labeling.errors import InputError

    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except ValueError as error:
        raise InputError(f"not JSON: {error}", source=str(path)) from error
    if not isinstance(data, dict):
        raise InputError("the file holds one JSON object", source=str(path))
    return data


def add_db_argument(parser: argparse.ArgumentParser) -> None:
    """The workspace file as the positional argument ``DB``."""
    parser.add_argument("db", metavar="DB", type=Path, help=DB_HELP)


def add_consensus_option(parser: argparse.ArgumentParser) -> None:
    """``--consensus RULE``: how several annotators' grades become one."""
    parser.add_argument(
        "--consensus",
        choices=CONSENSUS_RULES,
        default="default",
        help="how several annotators' grades become one: default (adjudicated, else majority, "
        "else the mean rounded half up), strict (the lowest) or lenient (the highest)",
    )


def add_label_source_options(parser: argparse.ArgumentParser) -> None:
    """``--label-source`` and ``--judge``: whose labels the scores are made of."""
    parser.add_argument(
        "--label-source", choices=LABEL_SOURCES, default="people",
        help="people (default: machine labels left out), machine (a machine judge's labels "
        "only) or people+machine (people's, with the machine's where no person judged)",
    )
    parser.add_argument("--judge", default="", metavar="MODEL@VERSION",
                        help="the machine judge to use (default: every machine judge)")
