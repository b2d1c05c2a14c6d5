"""Several sessions of the real app at once: annotators judging on the Label page while an
admin's run import fails on its last line (and, once, succeeds).

Each session is an AppTest of ``app.py`` in its own thread, as Streamlit serves each browser
session from its own script thread. A save the page reports (the card moves on and the
judgment id joins the session's undo list, with no error shown) must be in the file afterwards
with the grade and annotator the page sent; an error is one sentence, never a raw exception.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from labeling import pooling, store
from tests.app.conftest import APP

ANNOTATORS = ("ann_a", "ann_b", "ann_c")
IMPORT_QUERIES = 40
IMPORT_CHUNKS_PER_QUERY = 2_500  # 100k rows: the import's transaction stays open for seconds
RAW_ERROR_WORDS = ("savepoint", "Traceback", "OperationalError", "ProgrammingError", "Unexpected")


def run_file(bad_last_line: bool) -> bytes:
    """A TREC run over new placeholder queries and chunks, optionally ending in a bad line."""
    lines = [
        f"imp-q{q} Q0 imp-c{q}-{c} {c + 1} {1000 - c / 10:.2f} big"
        for q in range(IMPORT_QUERIES)
        for c in range(IMPORT_CHUNKS_PER_QUERY)
    ]
    if bad_last_line:
        lines.append("imp-q0 Q0 only-four-fields")
    return ("\n".join(lines) + "\n").encode()


class Session:
    """One browser session: an AppTest of the app on one page, driven from a thread."""

    def __init__(self, page: str, annotator: str) -> None:
        self.at = AppTest.from_file(APP, default_timeout=120)
        self.at.session_state["annotator"] = annotator
        self.at.run()
        self.at.switch_page(f"pages/{page}.py").run()

    def messages(self) -> list[str]:
        at = self.at
        shown = [e.value for e in (*at.error, *at.warning, *at.exception)]
        return [str(m) for m in shown]


def judge_until(session: Session, stop: threading.Event, log: dict) -> None:
    """Grade the card shown, again and again, until ``stop`` (then a few more)."""
    at = session.at
    extra = 5
    while extra > 0:
        if stop.is_set():
            extra -= 1
        pair = at.session_state["label_current"]
        if pair is None:
            break
        grade = len(log["sent"]) % 4
        saved_before = len(at.session_state["label_saved"])
        at.button(key=f"label_grade_{grade}").click().run()
        log["messages"].extend(session.messages())
        saved = at.session_state["label_saved"]
        if len(saved) == saved_before + 1:  # reported saved: the page moved on
            log["sent"].append((saved[-1], tuple(pair), grade))
            log["times"].append(time.monotonic())


def import_run(session: Session, data: bytes, name: str, log: dict) -> None:
    at = session.at
    at.file_uploader(key="upload_run_0").set_value((f"{name}.trec", data, "text/plain"))
    at.text_input(key="run_name").input(name)
    log["start"] = time.monotonic()
    at.button(key="import_run").click().run()
    log["end"] = time.monotonic()
    log["import_messages"] = session.messages() + [s.value for s in at.success]


@pytest.mark.parametrize("bad_last_line", [True, False], ids=["failing-import", "good-import"])
def test_saves_survive_a_concurrent_import(workspace: Path, bad_last_line: bool) -> None:
    db = store.open_workspace(workspace)
    pooling.build_pool(db, ["bm25", "fusion"], 10)
    runs_before = store.run_names(db)
    db.close()

    annotators = [Session("label", name) for name in ANNOTATORS]
    admin = Session("data", "admin")
    logs = {name: {"sent": [], "messages": [], "times": []} for name in ANNOTATORS}
    import_log: dict = {}
    stop = threading.Event()

    def importer() -> None:
        try:
            import_run(admin, run_file(bad_last_line), "big", import_log)
        finally:
            stop.set()

    threads = [
        threading.Thread(target=judge_until, args=(s, stop, logs[s.at.session_state["annotator"]]))
        for s in annotators
    ] + [threading.Thread(target=importer)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads)

    check = sqlite3.connect(workspace)
    reported = lost = 0
    raw: list[str] = []
    for name, log in logs.items():
        assert log["sent"], f"{name} saved nothing"
        raw += [m for m in log["messages"] if any(w in m for w in RAW_ERROR_WORDS)]
        for judgment_id, pair, grade in log["sent"]:
            row = check.execute(
                "SELECT query_id, chunk_id, grade, annotator FROM judgments WHERE id = ?",
                [judgment_id],
            ).fetchone()
            reported += 1
            lost += row != (*pair, grade, name)
    during = sum(
        import_log["start"] < t < import_log["end"] for log in logs.values() for t in log["times"]
    )
    assert during > 0, "no save overlapped the import: the test proves nothing"
    assert (lost, raw) == (0, []), f"{lost} of {reported} reported saves lost; raw: {raw[:3]}"
    stored_runs = [r[0] for r in check.execute("SELECT name FROM runs ORDER BY id")]
    check.close()
    messages = import_log["import_messages"]
    assert not any(w in m for m in messages for w in RAW_ERROR_WORDS), messages
    if bad_last_line:
        assert stored_runs == runs_before
        assert any("line" in m and str(IMPORT_QUERIES * IMPORT_CHUNKS_PER_QUERY + 1) in m
                   for m in messages), messages
    else:
        assert stored_runs == [*runs_before, "big"], messages
