"""The layer contracts of ``pyproject.toml`` hold, and they catch a wrong arrow: a copy of the
package whose metric engine imports the workspace fails ``lint-imports``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(tree: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache"], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=120)


def copy_of_the_package(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "labeling", tree / "labeling",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    return tree


def test_the_contracts_hold(tmp_path: Path) -> None:
    done = lint_imports(copy_of_the_package(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 kept, 0 broken" in done.stdout


def test_a_metrics_module_importing_the_workspace_breaks_them(tmp_path: Path) -> None:
    tree = copy_of_the_package(tmp_path)
    engine = tree / "labeling" / "metrics" / "engine.py"
    engine.write_text(engine.read_text() + "\nfrom labeling.workspace import store  # wrong\n")
    done = lint_imports(tree)
    assert done.returncode != 0
    assert "labeling.metrics is not allowed to import labeling.workspace" in done.stdout
    assert "labeling.metrics.engine -> labeling.workspace.store" in done.stdout


def test_a_workspace_module_importing_the_evaluation_breaks_them(tmp_path: Path) -> None:
    tree = copy_of_the_package(tmp_path)
    store = tree / "labeling" / "workspace" / "store.py"
    store.write_text(store.read_text() + "\nfrom labeling.evaluation import scoring  # wrong\n")
    done = lint_imports(tree)
    assert done.returncode != 0
    assert "labeling.workspace is not allowed to import labeling.evaluation" in done.stdout
