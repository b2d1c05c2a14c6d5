"""Two browser sessions on one server: an admin's run import fails on its last line while an
annotator judges by keyboard in another session. Every card that moved on is a judgment in the
file; the annotator sees no error; the admin sees one sentence naming the line."""

from __future__ import annotations

import time
import uuid

import pytest

from labeling.judging import queue
from labeling.workspace import contents, store
from tests.e2e.test_label_keyboard import CARD, shown_pair

pytestmark = pytest.mark.e2e

ROWS = 600_000  # the import's transaction stays open for seconds
ALERTS = "[data-testid='stAlertContentError'], [data-testid='stAlertContentSuccess']"


def failing_run(path) -> None:
    with open(path, "w") as out:
        for row in range(ROWS):
            out.write(f"cs-q{row % 50} Q0 cs-c{row} {row // 50 + 1} {1e6 - row} cs\n")
        out.write("cs-q0 Q0 too-few-fields\n")


def sign_as(page, name: str, wait_idle) -> None:
    box = page.get_by_label("Annotator", exact=True)
    box.fill(name)
    box.press("Enter")
    wait_idle(page)


def test_keyboard_judging_during_a_failing_import(
    browser, app_server, app_workspace, wait_idle, tmp_path
) -> None:
    name = f"cs-{uuid.uuid4().hex[:8]}"
    admin_context = browser.new_context(viewport={"width": 1280, "height": 1400})
    judge_context = browser.new_context(viewport={"width": 1280, "height": 1400})
    admin, judge = admin_context.new_page(), judge_context.new_page()
    for page in (admin, judge):
        page.set_default_timeout(60_000)
    try:
        judge.goto(f"{app_server}/label")  # the first page load opens the workspace
        wait_idle(judge)
        judge.get_by_label("Annotator", exact=True).wait_for()  # drawn once the workspace is open
        db = store.open_workspace(app_workspace, create=False)
        fresh = db.conn.execute(
            "SELECT q.id, c.id FROM queries q, chunks c WHERE NOT EXISTS (SELECT 1 FROM judgments"
            " j WHERE j.query_id = q.id AND j.chunk_id = c.id) ORDER BY random() LIMIT 200"
        ).fetchall()
        queue.enqueue_pairs(db, fresh, reason="e2e")
        runs_before = contents.run_names(db)
        judge.reload()
        wait_idle(judge)
        sign_as(judge, name, wait_idle)
        judge.evaluate("document.activeElement && document.activeElement.blur()")
        judge.locator(CARD).wait_for()

        admin.goto(f"{app_server}/data")
        wait_idle(admin)
        admin.get_by_role("tab", name="Run").click()
        panel = admin.get_by_role("tabpanel", name="Run")
        run_file = tmp_path / "big.trec"
        failing_run(run_file)
        with admin.expect_response(lambda r: "upload_file" in r.url and r.ok, timeout=120_000):
            panel.locator("input[type='file']").set_input_files(str(run_file))
        panel.get_by_text("big.trec").wait_for()  # the upload has finished and is shown
        wait_idle(admin)
        panel.get_by_label("Run name").fill(f"big-{name}")
        panel.get_by_label("Run name").press("Enter")
        wait_idle(admin)
        panel.get_by_role("button", name="Import run").click()
        started = time.monotonic()

        pressed: dict[tuple[str, str], int] = {}
        during = extra = 0
        while extra < 3:
            if admin.locator(ALERTS).count():
                extra += 1
            else:
                during += 1
            pair = shown_pair(judge)
            grade = len(pressed) % 4
            judge.keyboard.press(str(grade))
            judge.wait_for_function(  # the card moved on: the page reported the save
                "([selector, q, c]) => { const el = document.querySelector(selector);"
                " if (!el) return false; const t = el.innerText;"
                " return !(t.includes('Query · ' + q) && t.includes('Chunk · ' + c)); }",
                arg=[CARD, pair[0], pair[1]],
            )
            wait_idle(judge)
            pressed[pair] = grade
            assert time.monotonic() - started < 240, "the import never finished"
        wait_idle(admin)
        message = admin.locator(ALERTS).first.inner_text()
        judge_errors = judge.locator(
            "[data-testid='stAlertContentError'], [data-testid='stException']"
        ).count()
    finally:
        admin_context.close()
        judge_context.close()

    assert during > 0, "no key was pressed while the import ran: the test proves nothing"
    assert f"line {ROWS + 1}" in message and "Traceback" not in message, message
    assert judge_errors == 0
    rows = db.conn.execute(
        "SELECT query_id, chunk_id, grade FROM judgments WHERE annotator = ? ORDER BY id", [name]
    ).fetchall()
    assert {(q, c): g for q, c, g in rows} == pressed
    assert contents.run_names(db) == runs_before
    print(f"\n{len(pressed)} saves by keyboard, {during} while the import ran; import said: "
          f"{message[:120]!r}")
