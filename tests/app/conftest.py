"""AppTest fixtures: a demo workspace built once, copied per test, and the app's path."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
TIMEOUT = 30


@pytest.fixture
def workspace(demo_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the demo workspace, set as SCORECARD_WORKSPACE."""
    path = tmp_path / "scorecard.db"
    shutil.copyfile(demo_file, path)
    monkeypatch.setenv("SCORECARD_WORKSPACE", str(path))
    return path


@pytest.fixture
def open_app(workspace: Path):
    """Start the app on the workspace copy, optionally switching to a page (``"data"``)."""

    def start(page: str | None = None) -> AppTest:
        at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
        if page:
            at.switch_page(f"pages/{page}.py").run()
        return at

    return start
