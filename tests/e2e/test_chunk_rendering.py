"""In a real browser: a chunk holding a markdown table shows a table on the judging card, and a
chunk holding ``<img src=x onerror=...>`` and a script shows them as text: no element, no
handler, no script runs, no dialog opens. The test runs its own server on a workspace of its own.
"""

from __future__ import annotations

import pytest

from labeling.judging import queue
from labeling.workspace import store

pytestmark = pytest.mark.e2e

TABLE = ("Leave allowances by plan:\n\n| Plan | Days | Notes |\n|:---|---:|---|\n"
         "| Starter | 20 | carry over 5 |\n| Pro | 25 | carry over 10 |\n\nAsk HR for more.")
EVIL = ('Before <img src=x onerror="window.__pwned = 1; alert(1)"> after '
        "<script>window.__pwned = 2</script> and [a link](javascript:alert(3)) "
        "or hr@example.com")
CARD = ".st-key-label_card"
CHUNK = ".st-key-label_chunk"


@pytest.fixture
def rendering_app(serve_workspace, make_workspace):
    workspace = make_workspace.path(
        "empty",
        chunks=[{"id": "table-chunk", "title": "Plans", "text": TABLE, "doc_id": "d1"},
                {"id": "evil-chunk", "title": "Evil", "text": EVIL, "doc_id": "d1"}],
        queries=[{"id": "q1", "text": "how many leave days on the starter plan"}],
    )
    db = store.open_workspace(workspace)
    queue.enqueue_pairs(db, [("q1", "table-chunk"), ("q1", "evil-chunk")], reason="e2e")
    db.close()
    return serve_workspace(workspace)


def test_tables_render_and_html_stays_text(browser, rendering_app, wait_idle):
    context = browser.new_context(viewport={"width": 1280, "height": 1400})
    page = context.new_page()
    page.set_default_timeout(30_000)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"{rendering_app}/label?annotator=renderer")
    wait_idle(page)
    page.reload()  # a fresh server's first page load runs twice (pages/_common.page_setup)
    wait_idle(page)
    seen = set()
    for _ in range(2):
        page.locator(CHUNK).wait_for()
        chunk = page.locator(CHUNK)
        card_text = page.locator(CARD).inner_text()
        if "table-chunk" in card_text:
            seen.add("table")
            table = chunk.locator("table")
            assert table.count() == 1
            cells = table.locator("td").all_inner_texts()
            assert [c.strip() for c in cells] == ["Starter", "20", "carry over 5", "Pro", "25",
                                                  "carry over 10"]
            assert [h.strip() for h in table.locator("th").all_inner_texts()] == [
                "Plan", "Days", "Notes"]
            assert "Ask HR for more." in chunk.inner_text()
        else:
            seen.add("evil")
            shown = chunk.inner_text()
            assert '<img src=x onerror="window.__pwned = 1; alert(1)">' in shown
            assert "<script>window.__pwned = 2</script>" in shown
            assert chunk.locator("img, script, a, iframe, [onerror]").count() == 0
            assert "hr@example.com" in shown.replace("\u2060", "")
        wait_idle(page)
        page.locator(".st-key-label_grade_1 button").click()  # the next card
        page.wait_for_function(
            "([selector, before]) => { const el = document.querySelector(selector);"
            " return !el || el.innerText !== before; }", arg=[CARD, card_text])
        wait_idle(page)
    assert seen == {"table", "evil"}
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert dialogs == []
    context.close()
