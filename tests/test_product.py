"""Installed like a product: what the wheel carries, the `scorecard app` command, the extras a
missing engine names, and a parser that imports nothing heavy. (The wheel itself, installed in a
fresh virtualenv and serving the demo to Chromium, is tests/e2e/test_wheel_install.py.)"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from setuptools import find_packages

from labeling import product_files
from labeling.commands import app as app_command
from labeling.commands.cli import build_parser, main
from labeling.commands.extras import ENGINE_EXTRAS

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
HEAVY = ("pandas", "numpy", "pyarrow", "streamlit", "scipy", "sqlite_utils", "plotly")


def test_the_wheel_lists_every_package_of_the_core_and_the_app():
    listed = PYPROJECT["tool"]["setuptools"]["packages"]
    assert sorted(listed) == sorted(find_packages(str(ROOT), include=["labeling*"])
                                    + [product_files.APP_PACKAGE])


def test_the_app_package_is_the_top_of_the_repository_with_its_files():
    setuptools = PYPROJECT["tool"]["setuptools"]
    assert setuptools["package-dir"] == {product_files.APP_PACKAGE: "."}
    packed = {p for pattern in setuptools["package-data"][product_files.APP_PACKAGE]
              for p in ROOT.glob(pattern)}
    wanted = [*ROOT.glob("pages/*.py"), *ROOT.glob("prompts/*.md"),
              ROOT / ".streamlit" / "config.toml", *ROOT.glob("data/*.jsonl"),
              *ROOT.glob("data/runs/*"), *ROOT.glob("data/labels/*")]
    assert set(wanted) <= packed


def test_in_a_checkout_the_files_are_the_checkouts_own():
    assert product_files.product_root() == ROOT
    assert product_files.app_script() == ROOT / "app.py"
    assert (product_files.demo_data() / "chunks.jsonl").is_file()
    assert (product_files.prompts_folder() / "relevance_judge_v1.md").is_file()


def test_building_the_parser_imports_no_heavy_library():
    script = (
        "import sys\nfrom labeling.commands.cli import build_parser\nbuild_parser()\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, check=True, timeout=120)
    assert done.stdout.strip() == "[]"


def test_every_subcommand_is_in_the_parser_and_app_is_one():
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # noqa: SLF001
    assert "app" in commands and "evaluate" in commands


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    qrels, run = tmp_path / "labels.qrels", tmp_path / "system.run"
    qrels.write_text("q1 0 A 1\n")
    run.write_text("q1 Q0 A 1 1.0 tag\n")
    return [str(qrels), str(run)]


@pytest.mark.parametrize(("engine", "module"), [("dask", "distributed"), ("dask", "dask"),
                                                ("spark", "pyspark")])
def test_a_missing_engine_names_the_extra_to_install(engine, module, files, monkeypatch,
                                                     capsys):
    extra = ENGINE_EXTRAS[engine][0]
    for name in list(sys.modules):  # as if the library had never been installed
        if name == module or name.startswith(f"{module}."):
            monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, module, None)
    assert main(["evaluate", *files, "-m", "P@1", "--engine", engine]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert f"pip install 'retrieval-scorecard[{extra}]'" in err and module in err


def test_the_cluster_extra_installs_what_the_dask_engine_imports():
    assert PYPROJECT["project"]["optional-dependencies"]["cluster"] == [
        "dask[dataframe,distributed]>=2025.1"]
    assert "retrieval-scorecard[cluster,spark,docs,postgres]" in (
        PYPROJECT["project"]["optional-dependencies"]["test"])


def test_the_app_passes_every_streamlit_setting_and_serves_the_installed_app(tmp_path):
    command = app_command.streamlit_command(tmp_path / "w.db", "127.0.0.1", 8600)
    assert command[1:5] == ["-m", "streamlit", "run", str(product_files.app_script())]
    settings = tomllib.loads(product_files.streamlit_config().read_text())
    for section, values in settings.items():
        for key in values:
            assert any(arg.startswith(f"--{section}.{key}=") for arg in command), key
    assert command.count("--server.address=127.0.0.1") == 1
    assert "--server.port=8600" in command and "--server.headless=true" in command


def test_the_app_refuses_the_network_for_a_workspace_without_accounts(make_workspace,
                                                                      capsys):
    path = make_workspace.path("empty")
    assert main(["app", "--workspace", str(path), "--host", "0.0.0.0"]) == 2
    err = capsys.readouterr().err
    assert "has no accounts" in err and "scorecard user add" in err


def _third_party_imports(path: Path) -> set[str]:
    """Top-level names of the modules ``path`` imports that are neither ours nor the stdlib."""
    import ast

    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names
            and n not in ("labeling", "pages", "__future__")}


def _distributions(requirements: list[str]) -> set[str]:
    """The distributions ``requirements`` name, with the extras in brackets (``dask[distributed]``
    installs ``distributed``)."""
    names = set()
    for requirement in requirements:
        name, _, rest = requirement.partition("[")
        extras = rest.partition("]")[0].split(",") if rest else []
        names |= {re.split(r"[<>=!~; ]", n, maxsplit=1)[0].strip().lower().replace("_", "-")
                  for n in [name, *extras] if n}
    return names


@pytest.mark.slow  # starts the app and the command line as processes
def test_the_base_install_serves_the_app_and_the_cli():
    """Every library the app and the core import comes with the base install; the distributed
    engines' libraries (only in labeling/cluster) and PostgreSQL's client (only in the
    postgres_fts connection's module, imported when a search runs) come with their extras."""
    from importlib.metadata import packages_distributions

    owners = packages_distributions()
    base = _distributions(PYPROJECT["project"]["dependencies"])
    extras = PYPROJECT["project"]["optional-dependencies"]
    engines = base | _distributions(extras["cluster"] + extras["spark"])
    postgres = base | _distributions(extras["postgres"])
    sources = [ROOT / "app.py", *ROOT.glob("pages/*.py"), *ROOT.glob("labeling/**/*.py")]
    for path in sources:
        allowed = (engines if "cluster" in path.relative_to(ROOT).parts
                   else postgres if path.name == "postgres_search.py" else base)
        for name in _third_party_imports(path):
            dists = {d.lower().replace("_", "-") for d in owners.get(name, [name])}
            assert dists & allowed, f"{path.relative_to(ROOT)} imports {name} ({dists})"


@pytest.mark.parametrize(("options", "problem"), [
    (["--port", "0"], "--port 0: expected a port from 1 to 65535"),
    (["--workspace", "no/such/folder/w.db"], "no such folder"),
])
def test_the_app_refuses_bad_options_in_one_sentence(options, problem, tmp_path, monkeypatch,
                                                     capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["app", *options]) == 2
    err = capsys.readouterr().err
    assert problem in err and len(err.splitlines()) == 1
    assert not list(tmp_path.iterdir())  # nothing built
