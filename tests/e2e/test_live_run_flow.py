"""In a real browser (issue 31): create a retriever connection on the Data page, run it, change
one parameter, run again, see the change with its interval, queue the new results."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


@pytest.fixture
def live_app(serve_app, build_workspace, monkeypatch):
    workspace = build_workspace.path("demo")
    # The Python retriever (tests/bm25_adapter.py) indexes this workspace's chunks.
    monkeypatch.setenv("SCORECARD_BM25_WORKSPACE", str(workspace))
    with serve_app(workspace) as url:
        yield url


def _run(page, wait_idle, name: str, params: str) -> str:
    page.get_by_label("Run name (a new one per version)").fill(name)
    page.get_by_label("Run name (a new one per version)").press("Enter")
    wait_idle(page)
    page.get_by_label("Parameters (NAME=VALUE, one a line)").fill(params)
    page.get_by_label("Parameters (NAME=VALUE, one a line)").press("Control+Enter")
    wait_idle(page)
    page.get_by_role("button", name="Run live").click()
    wait_idle(page)
    success = page.locator("[data-testid='stAlertContentSuccess']").filter(has_text=name)
    success.wait_for()
    return success.inner_text()


def test_a_tuning_loop_in_the_browser(browser, live_app, wait_idle):
    context = browser.new_context(viewport={"width": 1280, "height": 1600})
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        page.goto(live_app)
        wait_idle(page)
        page.get_by_role("link", name="Data").click()
        wait_idle(page)
        page.get_by_label("Name", exact=True).fill("bm25")
        page.get_by_label("Service").click()
        page.get_by_role("option", name="Python module:callable").click()
        page.get_by_label("Endpoint, or module:callable").fill("tests.bm25_adapter:search")
        page.get_by_role("button", name="Store the retriever").click()
        wait_idle(page)
        stored = page.locator("[data-testid='stAlertContentSuccess']")
        stored.wait_for()
        assert "Stored the retriever bm25" in stored.inner_text()

        assert "; complete" in _run(page, wait_idle, "bm25-v1", "k1=1.5")
        assert "; complete" in _run(page, wait_idle, "bm25-v2", "k1=0.2")
        change = page.get_by_text("bm25-v2 against the previous version bm25-v1")
        change.wait_for()
        assert "k1 1.5 → 0.2" in change.inner_text()
        assert "bootstrap interval" in change.inner_text()
        table = page.locator("[data-testid='stDataFrame']").last
        table.wait_for()
        queue = page.get_by_role("button", name="new unjudged result(s) of bm25-v2")
        label = queue.inner_text()
        queued = int(label.split()[1])
        assert queued > 0
        queue.click()
        wait_idle(page)
        done = page.locator("[data-testid='stAlertContentSuccess']").filter(
            has_text=f"Queued {queued} new unjudged result(s) of bm25-v2")
        done.wait_for()
    finally:
        context.close()
