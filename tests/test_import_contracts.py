"""The layer contracts of ``pyproject.toml`` hold, and they catch a wrong arrow: a copy of the
package whose metric engine imports the workspace fails ``lint-imports``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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


WRONG_ARROWS = [  # (module of the copy, the import appended to it, what lint-imports says)
    ("metrics/engine.py", "from labeling.workspace import store",
     "labeling.metrics is not allowed to import labeling.workspace"),
    ("workspace/store.py", "from labeling.evaluation import scoring",
     "labeling.workspace is not allowed to import labeling.evaluation"),
]


@pytest.mark.parametrize(("module", "line", "message"), WRONG_ARROWS,
                         ids=["metrics-imports-workspace", "workspace-imports-evaluation"])
def test_a_wrong_arrow_breaks_them(tmp_path: Path, module: str, line: str,
                                   message: str) -> None:
    tree = copy_of_the_package(tmp_path)
    source = tree / "labeling" / module
    source.write_text(source.read_text() + f"\n{line}  # wrong\n")
    done = lint_imports(tree)
    assert done.returncode != 0
    assert message in done.stdout
