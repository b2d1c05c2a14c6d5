"""MkDocs hook: the CLI reference page is generated from the ``scorecard`` parsers at build time.

``docs/cli-reference.md`` holds the marker ``<!-- cli-reference -->``; this hook replaces it with
every sub-command's ``--help`` text (nested sub-commands such as ``user add`` included), so the
page lists exactly the commands and flags the parser accepts and is never typed by hand.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MARKER = "<!-- cli-reference -->"
HELP_WIDTH = "100"  # argparse wraps help at $COLUMNS


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # noqa: SLF001 (argparse has no public accessor)
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            return dict(action.choices)
    return {}


def _sections(parser: argparse.ArgumentParser, name: str, level: int) -> list[str]:
    """Markdown for ``name`` and, below it, each of its own sub-commands."""
    lines = [f"{'#' * level} `{name}`", "", "```text", parser.format_help().rstrip(), "```", ""]
    for child, child_parser in _subcommands(parser).items():
        lines += _sections(child_parser, f"{name} {child}", level + 1)
    return lines


def cli_markdown() -> str:
    """The reference: ``scorecard --help``, then every sub-command in the parser's order."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    os.environ["COLUMNS"] = HELP_WIDTH
    from labeling.commands.cli import build_parser

    parser = build_parser()
    lines = ["```text", parser.format_help().rstrip(), "```", ""]
    for name, subparser in _subcommands(parser).items():
        lines += _sections(subparser, f"scorecard {name}", 2)
    return "\n".join(lines)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 (MkDocs API)
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, cli_markdown())
