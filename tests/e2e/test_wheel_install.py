"""The wheel is the product: built from the repository, installed into a fresh virtualenv in an
empty folder outside the checkout, it builds the demo and serves the app, and the Dashboard
renders in Chromium with numbers.

The wheel goes in with ``--no-deps``; the fresh virtualenv sees this environment's installed
libraries (pandas, Streamlit, ...) through a ``.pth`` line, which appends their folder after the
virtualenv's own, so the virtualenv's copy of ``labeling`` and of the app comes first (the test
checks that it does: every file the product reads is under the virtualenv).
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.e2e.conftest import _free_port, _wait_idle, wait_until_healthy

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
# Top-level folders of a checkout that are not sources (the app's workspace, caches, builds).
NOT_SOURCES = {".git", ".venv", "build", "dist", "workspace", "site", ".pytest_cache",
               ".ruff_cache", ".hypothesis", "benchmarks", "tests"}


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _build(folder: Path) -> tuple[Path, Path]:
    """``python -m build`` on a copy of the source tree (the build writes its egg-info beside
    the sources): an sdist, then the wheel built from that sdist (so the sdist holds everything
    the product needs too)."""
    source, out = folder / "source", folder / "dist"
    shutil.copytree(ROOT, source, ignore=_not_sources)
    _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)],
         folder, _without_checkout())
    return next(out.glob("*.tar.gz")), next(out.glob("*.whl"))


def _not_sources(folder: str, names: list[str]) -> set[str]:
    at_top = Path(folder) == ROOT
    return {n for n in names if (at_top and n in NOT_SOURCES) or n == "__pycache__"
            or n.endswith(".egg-info")}


def _without_checkout() -> dict[str, str]:
    """This environment without the checkout on the import path."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SCORECARD_WORKSPACE")}


def _fresh_venv(folder: Path, wheel: Path) -> Path:
    """A virtualenv with the wheel installed; returns its ``bin`` folder."""
    _run([sys.executable, "-m", "venv", "--without-pip", str(folder)], folder.parent,
         _without_checkout())
    python = folder / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
          "--no-index", "--quiet", str(wheel)], folder.parent, _without_checkout())
    inner = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()"
                            "['purelib'])"], capture_output=True, text=True, check=True,
                           timeout=120)
    # This environment's libraries, after the virtualenv's own site-packages (written after
    # the install: pip would otherwise take this environment's own install for the wheel's).
    Path(inner.stdout.strip(), "libraries.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n")
    return folder / "bin"


def _dashboard_means(browser, url: str) -> list[float]:
    """The means of the Dashboard's scorecard table (first tab), as its Download CSV button
    gives them, once the table is on screen (the table itself is drawn on a canvas)."""
    context = browser.new_context(viewport={"width": 1280, "height": 1400},
                                  accept_downloads=True)
    try:
        page = context.new_page()
        page.set_default_timeout(120_000)  # a first render on a busy machine
        page.goto(f"{url}/dashboard")
        _wait_idle(page)
        page.locator("[data-testid='stDataFrame']").first.wait_for()
        with page.expect_download() as download:
            page.get_by_role("button", name="Download CSV").first.click()
        rows = csv.DictReader(io.StringIO(Path(download.value.path()).read_text()))
        return [float(row["mean"]) for row in rows]
    finally:
        context.close()


def test_wheel_in_a_fresh_virtualenv_serves_the_demo(tmp_path: Path, browser) -> None:
    sdist, wheel = _build(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    for packed in ("scorecard_app/app.py", "scorecard_app/pages/dashboard.py",
                   "scorecard_app/.streamlit/config.toml", "scorecard_app/data/chunks.jsonl",
                   "scorecard_app/prompts/relevance_judge_v1.md"):
        assert packed in names
    assert sdist.stat().st_size > 0
    bin_folder = _fresh_venv(tmp_path / "venv", wheel)
    empty = tmp_path / "empty"
    empty.mkdir()
    env = _without_checkout()

    where = _run([str(bin_folder / "python"), "-c",
                  "import sys, labeling, labeling.product_files as p\n"
                  "print(labeling.__file__); print(p.app_script()); print(p.demo_data());"
                  "print(p.prompts_folder()); print(*sys.path, sep='\\n')"], empty, env)
    files, search_path = where.splitlines()[:4], where.splitlines()[4:]
    venv = str(tmp_path / "venv")
    assert all(line.startswith(venv) for line in files), files  # not the checkout's copies
    assert str(ROOT) not in search_path
    prompts = _run([str(bin_folder / "python"), "-c",
                    "from labeling.machine_judging.judge_prompts import prompt_versions\n"
                    "print(*prompt_versions())"], empty, env)
    assert prompts.split(), "the installed machine judge lists no prompts"

    _run([str(bin_folder / "scorecard"), "init", "--demo", "demo.db"], empty, env)
    assert (empty / "demo.db").is_file()
    port = _free_port()
    with open(tmp_path / "app.log", "wb") as log:
        server = subprocess.Popen(
            [str(bin_folder / "scorecard"), "app", "--workspace", "demo.db", "--port", str(port),
             "--no-browser"],
            cwd=empty, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_healthy(server, url, tmp_path / "app.log")
        means = _dashboard_means(browser, url)
        assert means and all(0 <= mean <= 1 for mean in means), means
    finally:
        os.killpg(server.pid, signal.SIGTERM)  # the server and anything it started
        server.wait(timeout=20)
