"""A transaction belongs to the caller that opened it: nested writes of the same thread join
it, anything else on that connection is refused before it writes (never silently joined)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from labeling.workspace import contents, judgments, store


@pytest.fixture
def db(make_workspace):
    return make_workspace("demo")


def pair(db) -> tuple[str, str]:
    return db.conn.execute("SELECT query_id, chunk_id FROM judgments LIMIT 1").fetchone()


def count(db) -> int:
    return contents.counts(db)["judgments"]


def test_nested_write_in_the_same_thread_joins_and_rolls_back_with_it(db) -> None:
    before = count(db)
    with pytest.raises(RuntimeError), store.write_transaction(db):
        judgments.add_judgment(db, *pair(db), 1, "nested")  # a savepoint of the outer transaction
        raise RuntimeError("the outer caller fails")
    assert count(db) == before


def test_a_thread_cannot_write_inside_another_threads_transaction(db) -> None:
    before = count(db)
    opened, finish = threading.Event(), threading.Event()
    outcome: dict = {}

    def holder() -> None:
        try:
            with store.write_transaction(db):
                opened.set()
                finish.wait(10)
                raise RuntimeError("the holder rolls back")
        except RuntimeError:
            pass

    thread = threading.Thread(target=holder)
    thread.start()
    assert opened.wait(10)
    try:
        judgments.add_judgment(db, *pair(db), 2, "intruder")
        outcome["saved"] = True
    except store.ConnectionShared as error:
        outcome["error"] = str(error)
    finish.set()
    thread.join(10)
    assert "saved" not in outcome  # before the fix this save joined and vanished
    assert "connection of its own" in outcome["error"]
    assert count(db) == before
    judgments.add_judgment(db, *pair(db), 2, "after")  # the connection is free again
    assert count(db) == before + 1


def test_a_transaction_not_opened_by_write_transaction_is_not_joined(db) -> None:
    db.conn.execute("BEGIN")
    with pytest.raises(store.ConnectionShared):
        judgments.add_judgment(db, *pair(db), 1, "x")
    db.conn.execute("ROLLBACK")


def test_only_workspace_connections_are_accepted(tmp_path: Path) -> None:
    import sqlite_utils

    plain = sqlite_utils.Database(sqlite3.connect(tmp_path / "plain.db"))
    with pytest.raises(store.ScorecardError, match="open_workspace"):
        with store.write_transaction(plain):
            pass


def test_connections_of_their_own_serialize_and_keep_every_save(db, tmp_path: Path) -> None:
    path = db.conn.execute("PRAGMA database_list").fetchone()[2]
    q, c = pair(db)
    before = count(db)
    ids: list[int] = []
    lock = threading.Lock()

    def annotator(name: str) -> None:
        own = store.open_workspace(path)
        for i in range(50):
            judgment_id = judgments.add_judgment(own, q, c, i % 4, name)
            with lock:
                ids.append(judgment_id)
        own.close()

    threads = [threading.Thread(target=annotator, args=(f"t{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert count(db) == before + 200
    rows = db.conn.execute(
        f"SELECT count(*) FROM judgments WHERE id IN ({','.join('?' * len(ids))})", ids
    ).fetchone()[0]
    assert rows == len(set(ids)) == 200  # every id returned is that save's own row
