"""The import contracts hold on the package, and each one catches what it forbids: a copy of the
package with one planted violation per contract fails ``lint-imports`` with every contract
reported broken, each over its own plant (one run for all of them)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
RUNTIME = "importlinter-runtime.toml"  # the contracts on run-time imports only
# The config files the package keeps (make lint runs both).
KEPT_CONFIGS = ["pyproject.toml", RUNTIME]

# Per contract id: (module of the copy, the lines appended to it, what the contract's report
# then says). Each plant breaks its own contract only.
PLANTS = {
    "layers": [
        # siblings joined by `|` import each other not at all
        ("workspace/ids.py", "from labeling.model_calls import tokens",
         "labeling.workspace.ids -> labeling.model_calls.tokens"),
        # a layer never imports one above it
        ("errors.py", "from labeling import markdown", "labeling.errors -> labeling.markdown"),
    ],
    "acyclic-siblings": [
        # verdict <- scorecard <- card_tables (type import) is already there: a cycle
        ("report/verdict.py", "from labeling.report import card_tables",
         "No cycles are allowed in labeling.report"),
    ],
    "base": [
        ("model_calls/tokens.py", "from labeling.metrics import measures",
         "labeling.model_calls.tokens -> labeling.metrics.measures"),
    ],
    "metrics": [
        ("metrics/engine.py", "import sqlite_utils", "labeling.metrics.engine -> sqlite_utils"),
    ],
    "evaluation": [
        ("evaluation/views/rule_note.py", "from labeling.evaluation.planning import tuning",
         "labeling.evaluation.views.rule_note -> labeling.evaluation.planning.tuning"),
    ],
    "machine-judging": [
        ("machine_judging/machine_judge.py", "from labeling.machine_judging import audit_sample",
         "labeling.machine_judging.machine_judge -> labeling.machine_judging.audit_sample"),
    ],
    "no-streamlit": [
        ("readable_times.py", "import streamlit", "labeling.readable_times -> streamlit"),
    ],
    "sqlite-utils-in-workspace": [
        ("readable_times.py", "import sqlite_utils", "labeling.readable_times -> sqlite_utils"),
    ],
}
# A type-only import the run-time contract lets through.
TYPE_ONLY = ("markdown.py", "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
             "    import sqlite_utils", "labeling.markdown -> sqlite_utils")


def lint_imports(tree: Path, configs: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tree), "COLUMNS": "1000"}  # no wrapped names
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", *configs], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=120)


def contract_names(config: Path) -> dict[str, str]:
    """Contract id -> name, as the config file states them."""
    contracts = tomllib.loads(config.read_text())["tool"]["importlinter"]["contracts"]
    return {contract["id"]: contract["name"] for contract in contracts}


def broken_sections(report: str, names: list[str]) -> dict[str, str]:
    """Each contract's part of the 'Broken contracts' report, by name."""
    broken = report.split("Broken contracts", 1)[-1]
    starts = sorted((broken.find(f"\n{name}\n"), name) for name in names
                    if f"\n{name}\n" in broken)
    ends = [start for start, _ in starts[1:]] + [len(broken)]
    return {name: broken[start:end] for (start, name), end in zip(starts, ends, strict=True)}


def test_the_contracts_hold() -> None:
    done = lint_imports(ROOT, KEPT_CONFIGS)
    assert done.returncode == 0, done.stdout + done.stderr
    names = {n for config in KEPT_CONFIGS for n in contract_names(ROOT / config).values()}
    assert re.search(rf"Contracts: {len(names)} kept, 0 broken", done.stdout), done.stdout


def test_each_contract_breaks_on_its_planted_violation(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "labeling", tree / "labeling",
                    ignore=shutil.ignore_patterns("__pycache__"))
    names: dict[str, str] = {}
    for config in ("pyproject.toml", RUNTIME):
        shutil.copy(ROOT / config, tree / config)
        names |= contract_names(ROOT / config)
    assert set(PLANTS) == set(names)  # every contract has its plant
    for module, line, _ in [p for plants in PLANTS.values() for p in plants] + [TYPE_ONLY]:
        source = tree / "labeling" / module
        source.write_text(source.read_text() + f"\n{line}  # planted\n")
    done = lint_imports(tree, ["pyproject.toml", RUNTIME])
    assert done.returncode != 0
    assert f"Contracts: 0 kept, {len(names)} broken" in done.stdout, done.stdout
    sections = broken_sections(done.stdout, list(names.values()))
    for contract, plants in PLANTS.items():
        for _, _, said in plants:
            assert said in sections[names[contract]], (contract, said)
    assert TYPE_ONLY[2] not in sections[names["sqlite-utils-in-workspace"]]
