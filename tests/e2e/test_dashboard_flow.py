"""Browser flow: open the Dashboard, open the worst query, see the relevant chunk it missed.

The test runs its own server on a fresh copy of the demo, which no other test changes, so the
worst query is known: q44 under bm25, which retrieves nothing of its relevant chunk.
"""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def dashboard_app(serve_app, build_workspace):
    with serve_app(build_workspace.path("demo")) as url:
        yield url


def test_worst_query_shows_its_missed_relevant_chunk(browser, dashboard_app, wait_idle):
    context = browser.new_context(viewport={"width": 1280, "height": 1400})
    page = context.new_page()
    page.set_default_timeout(30_000)
    try:
        page.goto(dashboard_app)  # as the shared `page` fixture: the home first, then the page
        wait_idle(page)
        page.goto(f"{dashboard_app}/dashboard")
        wait_idle(page)
        page.get_by_role("tab", name="Worst queries").click()
        wait_idle(page)
        # The drill-down opens the first (worst) query of the table by default.
        opened = page.locator("[data-testid='stText']").filter(
            has_text=re.compile(r"^Query \S+: "))
        opened.first.wait_for()
        assert opened.first.inner_text().startswith("Query q44: ")
        missed = page.locator("[data-testid='stText']").filter(has_text=re.compile(r"^Missed: "))
        missed.first.wait_for()
        assert "routewise-releases-06" in missed.first.inner_text()
        assert page.get_by_text("Relevant chunks the run missed").is_visible()
    finally:
        context.close()
