"""Several sessions of the real app at once: annotators judging on the Label page while an
admin's run import fails on its last line (and, once, succeeds), and a bounded load test.

Each session is an AppTest of ``app.py`` in its own thread, as Streamlit serves each browser
session from its own script thread. A save the page reports (the card moves on and the
judgment id joins the session's undo list, with no error shown) must be in the file afterwards
with the grade and annotator the page sent; an error is one sentence, never a raw exception.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from streamlit.runtime.runtime import Runtime
from streamlit.runtime.scriptrunner.script_cache import ScriptCache
from streamlit.testing.v1 import AppTest, app_test, local_script_runner

from labeling.judging import pooling, queue
from labeling.workspace import contents, store
from tests.app.conftest import APP

# An exception in a session's thread (a page that failed to draw) fails the test.
pytestmark = pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")

ANNOTATORS = ("ann_a", "ann_b", "ann_c")
IMPORT_QUERIES = 40
IMPORT_CHUNKS_PER_QUERY = 2_500  # 100k rows: the import's transaction stays open for seconds
LOAD_ANNOTATORS = 8
LOAD_SECONDS = float(os.environ.get("SCORECARD_LOAD_SECONDS", "30"))
# A session thread stops after WAIT_SECONDS even if never told to, so no thread outlives its test;
# the joins wait half a minute longer, then fail the test (within pytest-timeout's 300 s).
WAIT_SECONDS = 200
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


@pytest.fixture(autouse=True)
def shared_like_a_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let AppTest sessions run in threads side by side, sharing what one server shares.

    A server compiles each script once in one cache (CPython 3.11's compiler is not safe in
    two threads at once, and AppTest compiles afresh on every run) and has one runtime (AppTest
    swaps a mock runtime in and out of a global around each run, so a run ending in one thread
    would pull it from under another thread's run).
    """
    cache = ScriptCache()
    monkeypatch.setattr(local_script_runner, "ScriptCache", lambda: cache)
    monkeypatch.setattr(app_test, "ScriptCache", lambda: cache)
    seen: list = []
    original = Runtime.instance.__func__

    def instance(cls):
        if cls._instance is not None:
            seen[:] = [cls._instance]
            return cls._instance
        return seen[0] if seen else original(cls)

    monkeypatch.setattr(Runtime, "instance", classmethod(instance))


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


def judge_until(session: Session, stop: threading.Event, log: dict, extra: int = 5) -> None:
    """Grade the card shown, again and again, until ``stop`` (then ``extra`` more); gives up
    with ``log["gave_up"]`` saying so when ``stop`` has not come in ``WAIT_SECONDS``."""
    at = session.at
    deadline = time.monotonic() + WAIT_SECONDS
    while extra > 0:
        if time.monotonic() > deadline:
            log["gave_up"] = f"judging was not told to stop in {WAIT_SECONDS} s"
            return
        if stop.is_set():
            extra -= 1
        pair = at.session_state["label_current"]
        if pair is None:
            break
        grade = len(log["sent"]) % 4
        saved_before = len(at.session_state["label_saved"])
        clicked = time.monotonic()
        at.button(key=f"label_grade_{grade}").click().run()
        log["messages"].extend(session.messages())
        saved = at.session_state["label_saved"]
        if len(saved) == saved_before + 1:  # reported saved: the page moved on
            log["sent"].append((saved[-1], tuple(pair), grade))
            log["times"].append((clicked, time.monotonic()))  # the save, click to page


def read_dashboard_until(session: Session, stop: threading.Event, log: dict) -> None:
    """Rerun the dashboard (as a reader refreshing it) until ``stop``, ``WAIT_SECONDS`` at most
    (then ``log["gave_up"]`` says so)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not stop.is_set():
        if time.monotonic() > deadline:
            log["gave_up"] = f"reading was not told to stop in {WAIT_SECONDS} s"
            return
        session.at.run()
        log["messages"].extend(session.messages())
        log["reads"] += 1


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
    runs_before = contents.run_names(db)
    db.close()

    annotators = [Session("label", name) for name in ANNOTATORS]
    admin = Session("data", "admin")
    logs = {name: {"sent": [], "messages": [], "times": []} for name in ANNOTATORS}
    import_log: dict = {}
    stop = threading.Event()

    def importer() -> None:
        try:
            # Start once every annotator is saving, so saves meet the import's window.
            deadline = time.monotonic() + 120
            while not all(log["sent"] for log in logs.values()) and time.monotonic() < deadline:
                time.sleep(0.05)
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
        thread.join(timeout=WAIT_SECONDS + 30)
    assert not any(thread.is_alive() for thread in threads), "a session thread hangs"

    assert not [log["gave_up"] for log in logs.values() if "gave_up" in log]
    reported, lost = reported_saves_lost(workspace, logs)
    raw = [m for log in logs.values() for m in log["messages"]
           if any(w in m for w in RAW_ERROR_WORDS)]
    assert all(log["sent"] for log in logs.values())
    # Saves whose click-to-page span overlaps the import's (those the import's transaction
    # held up end after it, but began during it).
    during = sum(
        began < import_log["end"] and ended > import_log["start"]
        for log in logs.values() for began, ended in log["times"]
    )
    assert during > 0, "no save overlapped the import: the test proves nothing"
    assert (lost, raw) == (0, []), f"{lost} of {reported} reported saves lost; raw: {raw[:3]}"
    check = sqlite3.connect(workspace)
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


def reported_saves_lost(path: Path, logs: dict[str, dict]) -> tuple[int, int]:
    """(reported saves, how many of them are not in the file as the page sent them)."""
    check = sqlite3.connect(path)
    reported = lost = 0
    for name, log in logs.items():
        for judgment_id, pair, grade in log["sent"]:
            row = check.execute(
                "SELECT query_id, chunk_id, grade, annotator FROM judgments WHERE id = ?",
                [judgment_id],
            ).fetchone()
            reported += 1
            lost += row != (*pair, grade, name)
    check.close()
    return reported, lost


def test_load_eight_annotators_a_reader_and_a_failing_import(workspace: Path) -> None:
    """8 annotators judge for LOAD_SECONDS (30 s) through the app while a dashboard reader
    reruns and, halfway, an admin's import fails on its last line: nothing reported saved is
    lost and no session sees a raw error."""
    db = store.open_workspace(workspace)
    chunks = [r[0] for r in db.conn.execute("SELECT id FROM chunks WHERE placeholder = 0")]
    queries = [r[0] for r in db.conn.execute("SELECT id FROM queries WHERE placeholder = 0")]
    queue.enqueue_pairs(db, itertools.product(queries, chunks), reason="load test")
    db.close()

    names = [f"load{n}" for n in range(LOAD_ANNOTATORS)]
    annotators = [Session("label", name) for name in names]
    reader, admin = Session("dashboard", "reader"), Session("data", "admin")
    logs = {name: {"sent": [], "messages": [], "times": []} for name in names}
    reader_log = {"messages": [], "reads": 0}
    import_log: dict = {}
    stop = threading.Event()

    def importer() -> None:
        if not stop.wait(LOAD_SECONDS / 2):
            import_run(admin, run_file(bad_last_line=True), "midway", import_log)

    threads = [
        threading.Thread(target=judge_until, args=(s, stop, logs[n], 1))
        for s, n in zip(annotators, names, strict=True)
    ] + [
        threading.Thread(target=read_dashboard_until, args=(reader, stop, reader_log)),
        threading.Thread(target=importer),
    ]
    for thread in threads:
        thread.start()
    time.sleep(LOAD_SECONDS)
    stop.set()
    for thread in threads:
        thread.join(timeout=WAIT_SECONDS + 30)
    assert not any(thread.is_alive() for thread in threads), "a session thread hangs"

    assert not [log["gave_up"] for log in (*logs.values(), reader_log) if "gave_up" in log]
    reported, lost = reported_saves_lost(workspace, logs)
    messages = [m for log in logs.values() for m in log["messages"]] + reader_log["messages"]
    messages += import_log["import_messages"]
    raw = [m for m in messages if any(w in m for w in RAW_ERROR_WORDS)]
    print(f"load: {reported} saves reported by {LOAD_ANNOTATORS} annotators in "
          f"{LOAD_SECONDS:.0f} s, {reader_log['reads']} dashboard reads, {lost} lost, "
          f"{len(raw)} raw errors")
    assert all(log["sent"] for log in logs.values())
    assert reader_log["reads"] > 0
    assert any("line" in m for m in import_log["import_messages"])  # the import failed, said so
    assert (lost, raw) == (0, []), f"{lost} of {reported} reported saves lost; raw: {raw[:3]}"
