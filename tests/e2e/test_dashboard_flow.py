"""Browser flow: open the Dashboard, open the worst query, see the relevant chunk it missed."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.e2e


def test_worst_query_shows_its_missed_relevant_chunk(page, app_server, wait_idle):
    page.goto(f"{app_server}/dashboard")
    wait_idle(page)
    page.get_by_role("tab", name="Worst queries").click()
    wait_idle(page)
    # The drill-down opens the first (worst) query of the table by default. Other browser
    # tests may have changed labels, so read which query it is instead of assuming one.
    opened = page.locator("[data-testid='stText']").filter(has_text=re.compile(r"^Query \S+: "))
    opened.first.wait_for()
    query_id = opened.first.inner_text().split(":", 1)[0].removeprefix("Query ")
    missed = page.locator("[data-testid='stText']").filter(has_text=re.compile(r"^Missed: "))
    missed.first.wait_for()
    assert missed.count() >= 1
    if query_id == "q44":  # the demo's worst query under bm25: nothing retrieved
        assert "routewise-releases-06" in missed.first.inner_text()
    assert page.get_by_text("Relevant chunks the run missed").is_visible()
