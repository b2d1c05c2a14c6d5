"""The app (``app.py``, ``pages/``) imports the library only through its package facades: the
public names ``labeling`` and ``labeling.<package>`` list (``labeling.lazy_names``), never a
module path; the facades import nothing until a name is used, and every name they list
resolves."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APP_FILES = sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]
FACADES = ["labeling"] + sorted(
    f"labeling.{p.parent.name}" for p in (ROOT / "labeling").glob("*/__init__.py")
    if p.parent.name != "commands"  # the command line's package, not the app's
)


def library_imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, module, names) of every import of ``labeling`` in ``path``, at any depth
    (``import labeling.x`` gives the module and no names)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name, []) for a in node.names
                      if a.name.split(".")[0] == "labeling"]
        elif (isinstance(node, ast.ImportFrom) and not node.level and node.module
              and node.module.split(".")[0] == "labeling"):
            found.append((node.lineno, node.module, [a.name for a in node.names]))
    return found


def test_pages_import_only_public_names_of_the_facades() -> None:
    wrong = []
    for path in APP_FILES:
        for line, module, names in library_imports(path):
            where = f"{path.relative_to(ROOT)}:{line}"
            if module not in FACADES:
                wrong.append(f"{where} imports {module}, not a facade")
            elif not names:
                wrong.append(f"{where}: 'import {module}' (import its public names instead)")
            else:
                public = set(getattr(importlib.import_module(module), "__all__", ()))
                wrong += [f"{where}: {name} is not a public name of {module}"
                          for name in names if name not in public]
    assert not wrong, "\n".join(wrong)


def test_importing_the_facades_imports_none_of_their_modules() -> None:
    code = ("import sys\n" + "".join(f"import {name}\n" for name in FACADES)
            + "print(sorted(m for m in sys.modules if m.startswith('labeling.')"
            " or m.split('.')[0] in ('pandas', 'numpy', 'sqlite_utils')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    loaded = set(eval(done.stdout))  # a printed list of module names
    assert loaded <= set(FACADES) | {"labeling.lazy_names"}


@pytest.mark.parametrize("facade", FACADES)
def test_every_public_name_resolves(facade: str) -> None:
    package = importlib.import_module(facade)
    for name in getattr(package, "__all__", []):
        assert getattr(package, name) is not None, f"{facade}.{name}"
