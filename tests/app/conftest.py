"""AppTest fixtures: a copy of the demo workspace per test (from ``make_workspace``,
tests/conftest.py), the app's path, and the downloads the pages offer."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
TIMEOUT = 30


@pytest.fixture
def workspace(make_workspace, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the demo workspace, set as SCORECARD_WORKSPACE."""
    path = make_workspace.path("demo")
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


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bytes]]:
    """(file name, bytes) of every download the pages offer while the test runs, caught where
    Streamlit stores them; a deferred download (a callable) is generated at once."""
    caught: list[tuple[str, bytes]] = []
    add, add_deferred = MediaFileManager.add, MediaFileManager.add_deferred

    def as_bytes(data) -> bytes:
        return data.encode("utf-8") if isinstance(data, str) else bytes(data)

    def record(self, path_or_data, mimetype, coordinates, file_name=None, **kwargs):
        if kwargs.get("is_for_static_download"):
            caught.append((file_name or "", as_bytes(path_or_data)))
        return add(self, path_or_data, mimetype, coordinates, file_name, **kwargs)

    def record_deferred(self, data_callable, mimetype, coordinates, file_name=None, **kwargs):
        caught.append((file_name or "", as_bytes(data_callable())))
        return add_deferred(self, data_callable, mimetype, coordinates, file_name, **kwargs)

    monkeypatch.setattr(MediaFileManager, "add", record)
    monkeypatch.setattr(MediaFileManager, "add_deferred", record_deferred)
    return caught
