"""The app starts on a fresh workspace (building the demo) and shows what it holds."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from labeling.workspace import contents, store
from tests.markup import shown

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


def test_app_builds_the_demo_when_the_workspace_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "fresh" / "scorecard.db"
    monkeypatch.setenv("SCORECARD_WORKSPACE", str(path))

    at = AppTest.from_file(APP, default_timeout=60).run()

    assert not at.exception
    assert path.exists()
    counts = contents.counts(store.open_workspace(path, create=False))
    assert counts["chunks"] > 50 and counts["queries"] > 30 and counts["runs"] == 3
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Chunks"] == f"{counts['chunks']:,}"
    assert metrics["Judgments"] == f"{counts['judgments']:,}"
    assert str(path) in at.sidebar.text[0].value
    assert f"{counts['queries']} queries" in at.sidebar.caption[1].value


def test_annotator_name_is_kept_across_pages(open_app) -> None:
    at = open_app()
    at.text_input(key="annotator_input").input("carol").run()
    at.switch_page("pages/queries.py").run()

    assert not at.exception
    assert at.text_input(key="annotator_input").value == "carol"
    assert at.session_state["annotator"] == "carol"


def test_every_page_renders(open_app) -> None:
    at = open_app()
    pages = sorted(p.name for p in (ROOT / "pages").glob("[!_]*.py"))
    for page in pages:
        at.switch_page(f"pages/{page}").run()
        assert not at.exception, page


def test_a_workspace_that_cannot_be_opened_is_one_sentence(tmp_path, monkeypatch) -> None:
    from streamlit.testing.v1 import AppTest

    from tests.app.conftest import APP

    broken = tmp_path / "scorecard.db"
    broken.write_bytes(b"this is not an SQLite file, " * 200)
    monkeypatch.setenv("SCORECARD_WORKSPACE", str(broken))
    at = AppTest.from_file(APP, default_timeout=30).run()
    assert not at.exception
    message = shown(at.error[0].value)
    assert len(at.error) == 1 and message.startswith("The workspace cannot be opened.")
    assert "not an SQLite database" in message and "Traceback" not in message


def test_an_empty_workspace_file_is_refused_not_filled(tmp_path, monkeypatch) -> None:
    from streamlit.testing.v1 import AppTest

    from tests.app.conftest import APP

    empty = tmp_path / "scorecard.db"
    empty.touch()
    monkeypatch.setenv("SCORECARD_WORKSPACE", str(empty))
    at = AppTest.from_file(APP, default_timeout=30).run()
    assert not at.exception
    assert "empty (0 bytes)" in shown(at.error[0].value)
    assert empty.stat().st_size == 0
