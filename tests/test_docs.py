"""The documentation (README.md, the front door, and the MkDocs site in docs/) documents every
command, its examples run as written, its CLI reference is the parser's, and the site builds.

Code blocks: a ```python block with ``>>>`` runs as a doctest; a ```sh block runs line by line
(every line a ``scorecard`` command) in a fresh folder holding the demo workspace as
``demo.db``, unless the line before the fence is ``<!-- no-run: why -->``; ```text blocks are
synopses and do not run.
"""

from __future__ import annotations

import argparse
import doctest
import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from labeling.commands.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
FENCE = re.compile(r"(?P<before>[^\n]*)\n```(?P<lang>[a-z]*)\n(?P<body>.*?)\n\s*```", re.S)
NO_RUN = "<!-- no-run"
KINDS = {"sh", "python", "text", "yaml", "mermaid"}


def _commands() -> list[str]:
    parser = build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command")
    return sorted(subparsers.choices)


def _written_text() -> str:
    """Every page a person wrote (the CLI reference is generated, so it does not count)."""
    return "\n".join(p.read_text() for p in PAGES if p.name != "cli-reference.md")


def _shell_blocks(page: Path) -> list[list[str]]:
    """The command lines of ``page``'s runnable ```sh blocks (indented fences included)."""
    blocks = []
    for match in FENCE.finditer("\n" + page.read_text()):
        if match["lang"] == "sh" and NO_RUN not in match["before"]:
            lines = [line.strip() for line in match["body"].splitlines()]
            blocks.append([line for line in lines if line and not line.startswith("#")])
    return blocks


def _load_cli_reference_hook():
    spec = importlib.util.spec_from_file_location(
        "cli_reference_hook", DOCS / "hooks" / "cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("command", _commands())
def test_every_command_is_in_the_docs_and_has_help(command, capsys):
    assert re.search(rf"scorecard {command}\b", _written_text()), command
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args([command, "--help"])
    assert exit_info.value.code == 0
    assert "usage: scorecard" in capsys.readouterr().out


@pytest.mark.parametrize("page", [p for p in PAGES if ">>> " in p.read_text()],
                         ids=lambda p: p.name)
def test_python_examples_run(page):
    failures, tried = doctest.testfile(str(page), module_relative=False)
    assert tried > 0
    assert failures == 0


def test_every_code_block_says_what_it_is():
    """A block is run (sh, python), or says why not (no-run), or is a synopsis (text) or a
    file (yaml) or a diagram (mermaid): none is left unclassified."""
    for page in PAGES:
        opening = re.findall(r"^\s*```(\S*)\s*\n(?:.*?\n)*?\s*```\s*$", page.read_text(), re.M)
        assert set(opening) <= KINDS, (page.name, set(opening) - KINDS)


def test_there_are_python_examples():
    assert any(">>> " in page.read_text() for page in PAGES)


@pytest.mark.slow  # each line is a new scorecard process
@pytest.mark.parametrize("page", [p for p in PAGES if _shell_blocks(p)], ids=lambda p: p.name)
def test_shell_examples_run(page, tmp_path, make_workspace):
    commands = [line for block in _shell_blocks(page) for line in block]
    if not any(line.startswith("scorecard init --demo demo.db") for line in commands):
        make_workspace.path("demo", at=tmp_path / "demo.db")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for line in commands:
        words = shlex.split(line, comments=True)
        assert words[0] == "scorecard", f"{page.name}: {line!r} is not a scorecard command; " \
            f"mark its block {NO_RUN}: why -->"
        done = subprocess.run([sys.executable, "-m", "labeling.commands.cli", *words[1:]],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{page.name}: {line}\n{done.stdout}\n{done.stderr}"


def test_the_readme_is_a_front_door():
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    assert "pip install retrieval-scorecard" in text and "scorecard app" in text
    assert (ROOT / "docs" / "images" / "dashboard.png").is_file()
    assert "](docs/images/dashboard.png)" in text


def test_the_cli_reference_lists_every_subcommand_and_flag():
    reference = _load_cli_reference_hook().cli_markdown()

    def check(parser, name: str) -> None:
        assert f"`{name}`" in reference or name == "scorecard", name
        for action in parser._actions:
            if action.help == argparse.SUPPRESS:  # hidden from --help on purpose
                continue
            for flag in action.option_strings:
                assert flag in reference, f"{name} {flag}"
            if isinstance(action, argparse._SubParsersAction):
                for child, child_parser in action.choices.items():
                    check(child_parser, f"{name} {child}")

    check(build_parser(), "scorecard")


def test_the_cli_reference_page_is_generated_not_typed():
    page = (DOCS / "cli-reference.md").read_text()
    hook = _load_cli_reference_hook()
    assert hook.MARKER in page
    assert "usage: scorecard" not in page


def test_benchmark_figures_are_included_not_typed():
    """The performance page includes the benchmarks' own output; no other page repeats a
    measured time."""
    performance = (DOCS / "performance.md").read_text()
    assert '--8<-- "benchmarks/results/cli_help.md"' in performance
    assert '--8<-- "benchmarks/README.md"' in performance
    timing = re.compile(r"\b\d+(\.\d+)? ?(ms|seconds)\b|\b\d+\.\d+ s\b|\d(\.\d+)?×")
    for page in PAGES:
        if page.name != "performance.md":
            assert not timing.search(page.read_text()), (page.name, timing.search(
                page.read_text()))


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=280,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "scorecard app" in (tmp_path / "cli-reference" / "index.html").read_text()
