"""Browser flow: judge ten pairs with the keyboard only, then read them back from the SQLite
file; measures the time from a key press to the next card (printed, never asserted)."""

from __future__ import annotations

import re
import statistics
import time
import uuid

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from labeling.judging import queue
from labeling.workspace import store

pytestmark = pytest.mark.e2e

CARD = ".st-key-label_card"
PAIR = re.compile(r"Query · (\S+).*?Chunk · (\S+)", re.S)


def shown_pair(page) -> tuple[str, str]:
    # The card element can exist a moment before its text is drawn: wait for the pair in it.
    page.wait_for_function(
        "(selector) => { const el = document.querySelector(selector);"
        " return !!el && /Query · \\S+[\\s\\S]*?Chunk · \\S+/.test(el.innerText); }",
        arg=CARD,
    )
    match = PAIR.search(page.locator(CARD).inner_text())
    assert match, page.locator(CARD).inner_text()
    return match.group(1), match.group(2)


def next_card(page, pair: tuple[str, str], timeout: float) -> None:
    """Wait until the card shows another pair than ``pair``."""
    page.wait_for_function(
        "([selector, q, c]) => { const el = document.querySelector(selector);"
        " if (!el) return false; const t = el.innerText;"
        " return !(t.includes('Query · ' + q) && t.includes('Chunk · ' + c)); }",
        arg=[CARD, pair[0], pair[1]], timeout=timeout,
    )


def test_judge_ten_pairs_with_the_keyboard(page, app_server, app_workspace, wait_idle):
    name = f"kb-{uuid.uuid4().hex[:8]}"
    page.goto(f"{app_server}/label")
    wait_idle(page)
    box = page.get_by_label("Annotator", exact=True)
    box.fill(name)
    box.press("Enter")
    wait_idle(page)
    db = store.open_workspace(app_workspace)
    # Pairs nobody has judged yet: this annotator is served them first.
    fresh = db.conn.execute(
        "SELECT q.id, c.id FROM queries q, chunks c WHERE NOT EXISTS (SELECT 1 FROM judgments j"
        " WHERE j.query_id = q.id AND j.chunk_id = c.id) ORDER BY random() LIMIT 40"
    ).fetchall()
    queue.enqueue_pairs(db, fresh, reason="e2e")
    page.reload()
    wait_idle(page)
    box = page.get_by_label("Annotator", exact=True)
    if box.input_value() != name:  # a reload starts a new browser session
        box.fill(name)
        box.press("Enter")
        wait_idle(page)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.locator(CARD).wait_for()

    pressed: dict[tuple[str, str], int] = {}
    timings = []
    for i in range(10):
        pair = shown_pair(page)
        grade = i % 4
        started = time.perf_counter()
        for attempt in range(3):
            page.keyboard.press(str(grade))
            try:
                next_card(page, pair, 10_000)
                break
            except PlaywrightTimeout:
                # A key pressed while a rerun was still wiring the page's shortcuts is lost (a
                # loaded machine); pressing again is safe only while nothing was saved for it.
                saved = db.conn.execute(
                    "SELECT count(*) FROM judgments WHERE annotator = ? AND query_id = ?"
                    " AND chunk_id = ?", [name, *pair]).fetchone()[0]
                if saved:  # taken, and the page is slow to draw the next card
                    next_card(page, pair, 30_000)
                    break
                assert shown_pair(page) == pair and attempt < 2, f"the {grade} key moved nothing"
        timings.append(time.perf_counter() - started)
        wait_idle(page)
        pressed[pair] = grade
    assert len(pressed) == 10

    rows = db.conn.execute(
        "SELECT query_id, chunk_id, grade FROM judgments WHERE annotator = ? ORDER BY id", [name]
    ).fetchall()
    assert {(q, c): g for q, c, g in rows} == pressed
    print(f"\nkey press to next card: median {statistics.median(timings) * 1000:.0f} ms, "
          f"max {max(timings) * 1000:.0f} ms over {len(timings)} cards")
