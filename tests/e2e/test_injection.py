"""In a real browser: chunk, query, note and name text carrying HTML, markdown links and
JavaScript is shown as text on every page; no script runs and no element is injected.

The payload sets ``window.__pwned`` if any part of it ever executes. The test writes it into
the app's workspace with the library (new ids that sort last; nothing existing changes, since
the other browser tests share this workspace), then visits every page through the navigation,
looking for any element or handler the payload could have injected.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from labeling import auth, queries_admin, queue, store

pytestmark = pytest.mark.e2e

MARK = "zz-inj"
PAYLOAD = (
    '<img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script> '
    "[click me](javascript:window.__pwned=3) <b>bold</b> **stars** `tick` "
    '<svg onload="window.__pwned=4"></svg> <iframe src="javascript:window.__pwned=5"></iframe>'
)
FORMULA = '=HYPERLINK("http://example.invalid","click")'  # a spreadsheet formula
# What the DOM must never hold, whatever the page.
PROBE = """() => ({
    pwned: typeof window.__pwned,
    img: document.querySelectorAll('img[src="x"]').length,
    svg: document.querySelectorAll('svg[onload]').length,
    iframe: document.querySelectorAll('iframe[src^="javascript" i]').length,
    handlers: document.querySelectorAll('[onerror], [onload]').length,
    jsLinks: document.querySelectorAll('a[href^="javascript" i]').length,
    bold: Array.from(document.querySelectorAll('b')).filter(b => b.textContent === 'bold').length,
    scriptText: Array.from(document.querySelectorAll('script'))
        .filter(s => s.textContent.includes('__pwned')).length,
    shownAsText: document.body.innerText.includes('window.__pwned=2'),
})"""


def _insert_payload(path: str) -> None:
    db = store.open_workspace(path, create=False)
    with auth.acting_as(None):  # the file owner, like the command line
        with store.write_transaction(db) as conn:
            conn.execute(
                "INSERT OR IGNORE INTO chunks (id, doc_id, title, text) VALUES (?, ?, ?, ?)",
                [f"{MARK}-c1", f"{MARK}-doc", PAYLOAD, PAYLOAD],
            )
        if not db.conn.execute("SELECT 1 FROM queries WHERE id = ?", [f"{MARK}-q1"]).fetchone():
            queries_admin.add_query(
                db, PAYLOAD, query_id=f"{MARK}-q1", attributes={"topic": PAYLOAD}
            )
        # two people disagree, with notes: the agreement page shows the pair
        for name, grade in ((f"{MARK} {PAYLOAD}", 0), (f"{MARK}-b", 3)):
            store.add_judgment(db, f"{MARK}-q1", f"{MARK}-c1", grade, name, note=PAYLOAD)
        store.add_judgment(db, f"{MARK}-q1", f"{MARK}-c1", 1, f"{MARK}-c", note=FORMULA)
        queue.enqueue_pairs(db, [(f"{MARK}-q1", f"{MARK}-c1")], reason=PAYLOAD[:40])
    db.close()


def _pages(page) -> list[str]:
    links = page.locator("[data-testid='stSidebarNav'] a")
    links.first.wait_for()
    return [links.nth(i).get_attribute("href") for i in range(links.count())]


def _visit(page, wait_idle, href: str) -> dict:
    """Open a page through the navigation (the session and its sidebar name stay)."""
    page.locator(f"[data-testid='stSidebarNav'] a[href='{href}']").click()
    wait_idle(page)
    return page.evaluate(PROBE)


def _safe(state: dict, where: str) -> None:
    assert state["pwned"] == "undefined", where
    for key in ("img", "svg", "iframe", "handlers", "jsLinks", "bold", "scriptText"):
        assert state[key] == 0, (where, key, state)


def test_untrusted_text_is_shown_as_text_on_every_page(page, wait_idle, app_workspace) -> None:
    path = str(app_workspace)
    titles = _pages(page)
    assert len(titles) >= 3, titles

    _insert_payload(path)
    # a name typed in the sidebar is untrusted too; it stays for the session
    sidebar_name = page.locator("[data-testid='stSidebar'] input[aria-label='Annotator']")
    sidebar_name.fill(f"{MARK}-annotator")
    sidebar_name.press("Enter")
    wait_idle(page)

    shown = []
    for title in titles:
        state = _visit(page, wait_idle, title)
        _safe(state, title)
        if state["shownAsText"]:
            shown.append(title)
        if title.endswith("/judge_by_query"):  # pick the payload query: its text and chunk render
            box = page.locator(".st-key-jbq_query input")
            if box.count():
                box.first.fill(MARK)
                box.first.press("Enter")
                wait_idle(page)
                state = page.evaluate(PROBE)
                _safe(state, f"{title} (payload query)")
                if state["shownAsText"]:
                    shown.append(f"{title} (payload query)")
        if os.environ.get("SCORECARD_SCREENSHOT_DIR"):
            folder = os.environ["SCORECARD_SCREENSHOT_DIR"]
            name = title.rstrip("/").rsplit("/", 1)[-1] or "home"
            page.screenshot(path=os.path.join(folder, f"injection-{name}.png"))
    # the payload was on screen somewhere, as text (not only filtered away)
    assert shown, "the payload text was not shown on any page"
    print("payload shown as text on:", shown)

    # the judgments export carries the text verbatim, and a formula as text
    data_page = next(href for href in titles if href.rstrip("/").endswith("/data"))
    _visit(page, wait_idle, data_page)
    with page.expect_download() as download:
        page.get_by_role("button", name="Judgments (CSV)").click()
    exported = Path(download.value.path()).read_text(encoding="utf-8")
    assert "window.__pwned=2" in exported
    assert "'" + FORMULA.replace('"', '""') in exported
