"""Sub-commands of ``scorecard``; each module defines ``register(subparsers)``."""

from __future__ import annotations

import argparse

# The names of ``labeling.judging.consensus.RULES``, listed here so that building the parser does
# not
# import the store (a test keeps the two in step).
CONSENSUS_RULES = ("default", "strict", "lenient")


def add_consensus_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--consensus",
        choices=CONSENSUS_RULES,
        default="default",
        help="how several annotators' grades become one: default (adjudicated, else majority, "
        "else the mean rounded half up), strict (the lowest) or lenient (the highest)",
    )
