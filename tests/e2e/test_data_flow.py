"""In a real browser: upload a TREC run on the Data page and see it counted."""

from __future__ import annotations

import os

import pytest

pytestmark = pytest.mark.e2e

RUN = b"q01 Q0 leave-01 1 12.5 e2e\nq01 Q0 leave-02 2 9.0 e2e\nq02 Q0 leave-02 1 7.25 e2e\n"


def test_upload_run_on_the_data_page(page, wait_idle, tmp_path) -> None:
    page.get_by_role("link", name="Data").click()
    wait_idle(page)
    page.get_by_role("tab", name="Run").click()

    run_file = tmp_path / "e2e.trec"
    run_file.write_bytes(RUN)
    panel = page.get_by_role("tabpanel", name="Run")
    panel.locator("input[type='file']").set_input_files(str(run_file))
    wait_idle(page)
    panel.get_by_label("Run name").fill("e2e-run")
    panel.get_by_label("Run name").press("Enter")
    wait_idle(page)
    panel.get_by_role("button", name="Import run").click()
    wait_idle(page)

    success = page.locator("[data-testid='stAlertContentSuccess']")
    success.wait_for()
    assert "imported 3 run rows" in success.inner_text()
    assert "+3 run_results" in success.inner_text()
    if os.environ.get("SCORECARD_SCREENSHOT"):
        page.screenshot(path=os.environ["SCORECARD_SCREENSHOT"])
