"""In a real browser with the network off: the HTML scorecard draws its charts and shows a
chunk holding ``<script>`` as text."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from labeling.report import scorecard_report as report
from labeling.workspace import store
from tests.e2e.conftest import offline_page
from tests.workspaces import add_rows

pytestmark = pytest.mark.e2e

PAYLOAD = "<script>window.__injected = 1</script>"


@pytest.fixture(scope="module")
def card_file(build_workspace) -> tuple[Path, str]:
    workspace = build_workspace.path("demo")
    db = store.open_workspace(workspace)
    worst = report.build_scorecard(db, report.report_controls("fusion"), n_worst=1,
                                   n_resamples=200).worst[0]
    # A relevant label the run never retrieved: the chunk is a missed chunk of a worst query.
    add_rows(db, chunks=[{"id": "evil-01", "doc_id": "evil",
                          "text": f"Before {PAYLOAD} after <b>bold?</b>"}],
             judgments=[(worst["query_id"], "evil-01", 3, "alice")])
    card = report.build_scorecard(db, report.report_controls("fusion"), baseline="bm25")
    db.close()
    path = workspace.parent / "card.html"
    report.write_scorecard(card, path)
    return path, worst["query_id"]


def test_html_scorecard_offline(browser, card_file) -> None:
    path, query_id = card_file
    assert PAYLOAD not in path.read_text(encoding="utf-8")
    with offline_page(browser) as (page, requested):
        page.goto(path.as_uri())
        page.locator(".js-plotly-plot .main-svg").first.wait_for()
        assert page.locator(".js-plotly-plot").count() == 2
        assert page.locator(".js-plotly-plot .bars path").count() > 0  # the bars drew
        assert page.evaluate("typeof window.__injected") == "undefined"
        missed = page.locator(".chunk", has_text="window.__injected")
        assert missed.count() == 1
        assert PAYLOAD in missed.inner_text()
        assert page.locator(f"h3:has-text('{query_id}')").count() == 1
        assert page.locator("b", has_text="bold?").count() == 0
        assert requested == []
        if os.environ.get("SCORECARD_SCREENSHOT"):
            page.screenshot(path=os.environ["SCORECARD_SCREENSHOT"])
