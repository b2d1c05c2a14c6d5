"""Browser flows, keyboard only: the Label card takes the numeric keypad's digits (Num Lock off,
as Playwright presses them, and on) and letters typed with Shift or Caps Lock; the judge-by-query
grid moves with the arrows and j/k and grades with digits. Everything is read back from the
workspace file."""

from __future__ import annotations

import time
import uuid

import pytest
from playwright.sync_api import expect

from labeling.judging import queue
from labeling.workspace import query_store, store
from tests.e2e.test_label_keyboard import CARD, shown_pair

pytestmark = pytest.mark.e2e

SAVE_SECONDS = 15


def _name_yourself(page, wait_idle, name: str) -> None:
    page.wait_for_function("() => window.__scorecardKeysInstalled === true")
    box = page.get_by_label("Annotator", exact=True)
    box.fill(name)
    box.press("Enter")  # Enter hands the keys back to the page (pages/_keys.py)
    wait_idle(page)
    page.wait_for_function("() => document.activeElement === document.body")


def _keys_bound(page, token: str, widget: str) -> None:
    """Wait until the page's key bindings (pages/_keys.py) are in place."""
    page.wait_for_function("([t, w]) => (window.__scorecardKeys || {})[t] === w",
                           arg=[token, widget])


def _current_row(page, row: int) -> None:
    """Wait until the grid says row ``row`` (1-based) is the current one."""
    page.wait_for_function(
        "n => [...document.querySelectorAll('[data-testid=stCaptionContainer]')]"
        ".some(e => e.innerText.includes('Row ' + n + ' of'))", arg=row)


def _settled(page, wait_idle, button: str) -> None:
    """Idle, with ``button`` on the page and enabled: its key is wired."""
    wait_idle(page)
    expect(page.locator(f".st-key-{button} button")).to_be_enabled()
    page.wait_for_timeout(200)  # React wires a button's shortcut just after drawing it
    wait_idle(page)


def _count(db, name: str) -> int:
    return db.conn.execute("SELECT count(*) FROM judgments WHERE annotator = ?",
                           [name]).fetchone()[0]


def _wait_for_count(db, name: str, count: int) -> None:
    deadline = time.monotonic() + SAVE_SECONDS
    while _count(db, name) < count:
        assert time.monotonic() < deadline, f"{name}: {_count(db, name)} of {count} saved"
        time.sleep(0.05)


def _next_card(page, pair: tuple[str, str]) -> None:
    page.wait_for_function(
        "([selector, q, c]) => { const el = document.querySelector(selector);"
        " if (!el) return false; const t = el.innerText;"
        " return !(t.includes('Query · ' + q) && t.includes('Chunk · ' + c)); }",
        arg=[CARD, pair[0], pair[1]],
    )


def test_keypad_digits_and_shift_or_caps_lock_letters_on_the_label_card(
    page, app_server, app_workspace, wait_idle
):
    name = f"pad-{uuid.uuid4().hex[:8]}"
    db = store.open_workspace(app_workspace)
    fresh = db.conn.execute(
        "SELECT q.id, c.id FROM queries q, chunks c WHERE NOT EXISTS (SELECT 1 FROM judgments j"
        " WHERE j.query_id = q.id AND j.chunk_id = c.id) ORDER BY random() LIMIT 40"
    ).fetchall()
    queue.enqueue_pairs(db, fresh, reason="e2e")
    page.goto(f"{app_server}/label?annotator={name}")  # the name comes back from the address
    wait_idle(page)
    expect(page.get_by_label("Annotator", exact=True)).to_have_value(name)
    page.locator(CARD).wait_for()
    _keys_bound(page, "2", "label_grade_2")
    _settled(page, wait_idle, "label_grade_2")

    expected: dict[tuple[str, str], tuple[int | None, str | None]] = {}
    for i in range(10):
        pair = shown_pair(page)
        grade = i % 4
        if i == 9:  # Num Lock on: the browser says "3" from the keypad; one judgment, not two
            page.evaluate("g => document.body.dispatchEvent(new KeyboardEvent('keydown',"
                          " {key: String(g), code: 'Numpad' + g, bubbles: true}))", grade)
        else:  # Num Lock off (as Playwright presses it): an arrow, Home or End from the keypad
            page.keyboard.press(f"Numpad{grade}")
        _next_card(page, pair)
        expected[pair] = (grade, None)
        _wait_for_count(db, name, len(expected))
        _settled(page, wait_idle, "label_grade_2")

    for i in range(5):
        pair = shown_pair(page)
        reason = f"needs legal advice {i}"
        box = page.get_by_label("Can't judge: why?")
        box.fill(reason)
        box.press("Enter")  # keys work again
        page.wait_for_function("() => document.activeElement === document.body")
        _settled(page, wait_idle, "label_cant_judge")
        page.keyboard.press("Shift+X" if i % 2 == 0 else "X")  # Shift, or Caps Lock's "X"
        _next_card(page, pair)
        expected[pair] = (None, reason)
        _wait_for_count(db, name, len(expected))
        _settled(page, wait_idle, "label_grade_2")

    rows = db.conn.execute(
        "SELECT query_id, chunk_id, grade, note FROM judgments WHERE annotator = ? ORDER BY id",
        [name]).fetchall()
    assert {(q, c): (g, n) for q, c, g, n in rows} == expected
    assert len(rows) == 15  # no key press saved twice
    db.close()


def test_judge_by_query_grid_graded_with_the_keyboard_only(
    page, app_server, app_workspace, wait_idle
):
    name = f"grid-{uuid.uuid4().hex[:8]}"
    db = store.open_workspace(app_workspace)
    query_id = query_store.add_query(  # sorts first: the page opens on it
        db, "which policy covers working from another country", query_id=f"0grid{name[5:]}")
    chunks = [r[0] for r in db.conn.execute("SELECT id FROM chunks ORDER BY id LIMIT 10")]
    queue.enqueue_pairs(db, [(query_id, c) for c in chunks], reason="e2e")
    page.goto(f"{app_server}/judge_by_query")
    wait_idle(page)
    _name_yourself(page, wait_idle, name)
    page.locator(".st-key-jbq_card_0").wait_for()
    _keys_bound(page, "down", "grid_next")
    _settled(page, wait_idle, "grid_grade_3")

    page.keyboard.press("ArrowDown")  # row 2
    _current_row(page, 2)
    _settled(page, wait_idle, "grid_previous")
    page.keyboard.press("k")  # back to row 1
    _current_row(page, 1)
    _settled(page, wait_idle, "grid_grade_3")
    keys = ["3", "Numpad2", "1", "0", "Numpad3", "2", "Numpad1", "0", "3", "Numpad2"]
    expected = {}
    for row, key in enumerate(keys):
        page.keyboard.press(key)
        expected[chunks[row]] = int(key[-1])
        _wait_for_count(db, name, row + 1)
        if row + 1 < len(keys):
            _current_row(page, row + 2)
        _settled(page, wait_idle, "grid_grade_3")
    rows = db.conn.execute("SELECT chunk_id, grade FROM judgments WHERE annotator = ?"
                           " ORDER BY id", [name]).fetchall()
    assert dict(rows) == expected and len(rows) == 10
    db.close()
