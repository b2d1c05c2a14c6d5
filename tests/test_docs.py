"""The README documents every command, and its Python example runs as written."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

from labeling.commands.cli import build_parser

README = Path(__file__).resolve().parents[1] / "README.md"


def _commands() -> list[str]:
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    return sorted(subparsers.choices)


@pytest.mark.parametrize("command", _commands())
def test_every_command_is_in_the_readme_and_has_help(command, capsys):
    assert re.search(rf"scorecard {command}\b", README.read_text()), command
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args([command, "--help"])
    assert exit_info.value.code == 0
    assert "usage: scorecard" in capsys.readouterr().out


def test_readme_python_examples_run():
    failures, tried = doctest.testfile(str(README), module_relative=False)
    assert tried > 0
    assert failures == 0
