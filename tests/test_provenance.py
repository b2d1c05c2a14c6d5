"""Judgment origins, pair sources, the migration of older workspaces and judging pace."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

import pytest

from labeling.errors import InputError
from labeling.files import importers
from labeling.judging import pace, queue
from labeling.workspace import judgments, provenance, store
from labeling.workspace.migrations import MIGRATIONS
from labeling.workspace.store import open_workspace, write_transaction

CHUNKS = [{"id": f"c{i}", "text": f"passage {i}"} for i in (1, 2, 3)]
QUERIES = [{"id": "q1", "text": "question"}]


def _origins(db) -> list[tuple]:
    return db.conn.execute(
        "SELECT annotator, origin, origin_source FROM judgments ORDER BY id").fetchall()


def test_hand_judgment_is_a_person_and_import_is_its_file(make_workspace, tmp_path):
    db = make_workspace(chunks=CHUNKS[:2], queries=QUERIES)
    judgments.add_judgment(db, "q1", "c1", 1, "ana")
    qrels = tmp_path / "team labels.qrels"
    qrels.write_text("q1 0 c2 1\n")
    importers.import_qrels(db, qrels, annotator="reference")
    assert _origins(db) == [("ana", "person", None),
                            ("reference", "import", "team labels.qrels")]


def test_unknown_origin_is_refused_and_nothing_written(make_workspace):
    db = make_workspace(chunks=CHUNKS[:1], queries=QUERIES)
    with pytest.raises(InputError, match="unknown judgment origin 'robot'"):
        judgments.add_judgment(db, "q1", "c1", 1, "ana", origin="robot")
    assert _origins(db) == []
    with pytest.raises(sqlite3.IntegrityError):  # the schema holds even for raw SQL
        db.conn.execute("INSERT INTO judgments (query_id, chunk_id, grade, annotator,"
                        " created_at, origin) VALUES ('q1', 'c1', 1, 'x', 't', 'robot')")


def test_migration_marks_older_rows_unknown_and_generator_rows_generator(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys = ON")
    with conn:
        for migrate in MIGRATIONS[:7]:
            migrate(conn)
        conn.execute("PRAGMA user_version = 7")
        conn.execute("INSERT INTO scale (grade, name) VALUES (0, 'no'), (1, 'yes')")
        conn.execute("INSERT INTO queries (id, text) VALUES ('q1', 'q')")
        conn.execute("INSERT INTO chunks (id, text) VALUES ('c1', 't')")
        conn.execute("INSERT INTO judgments (query_id, chunk_id, grade, annotator, created_at)"
                     " VALUES ('q1', 'c1', 1, 'ana', '2026-01-01T00:00:00+00:00')")
        conn.execute("INSERT INTO judgments (query_id, chunk_id, grade, annotator, created_at,"
                     " flags) VALUES ('q1', 'c1', 1, 'generator', '2026-01-01T00:00:01+00:00',"
                     " '{\"generator\": true}')")
    conn.close()
    db = open_workspace(path)
    assert [row[1] for row in _origins(db)] == ["unknown", "generator"]
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.conn.execute("UPDATE judgments SET grade = 0")


def test_pair_sources_record_pool_depth_only_for_pools(make_workspace):
    db = make_workspace(chunks=CHUNKS[:2], queries=QUERIES)
    with write_transaction(db) as conn:
        assert provenance.add_pair_sources(conn, [("q1", "c1"), ("q1", "c2")], "pool",
                                           pool_depth=10, detail="bm25") == 2
        provenance.add_pair_sources(conn, [("q1", "c2")], "search", detail="leave days")
    rows = db.conn.execute(
        "SELECT chunk_id, source, pool_depth FROM pair_sources ORDER BY id").fetchall()
    assert rows == [("c1", "pool", 10), ("c2", "pool", 10), ("c2", "search", None)]
    for source, depth in (("pool", None), ("search", 5), ("web", None)):
        with pytest.raises(InputError), write_transaction(db) as conn:
            provenance.add_pair_sources(conn, [("q1", "c1")], source, pool_depth=depth)
    assert db.conn.execute("SELECT count(*) FROM pair_sources").fetchone()[0] == 3


def _judge_at(db, annotator: str, seconds: list[float], origin: str = "person") -> None:
    base = 1_700_000_000
    for i, offset in enumerate(seconds):
        at = datetime.fromtimestamp(base + offset, UTC).isoformat()
        judgments.add_judgment(db, "q1", f"c{i % 3 + 1}", 1, annotator, created_at=at,
                               origin=origin)


def test_pace_medians_cards_within_sessions_and_ignores_imports(make_workspace):
    db = make_workspace(chunks=CHUNKS, queries=QUERIES)
    # ana: cards of 10, 20 and 40 s, a two-hour break, then 4 judgments 6 s apart.
    _judge_at(db, "ana", [0, 10, 30, 70, 7270, 7276, 7282, 7288])
    _judge_at(db, "file", [0, 0, 0, 1], origin="import")
    (ana,) = pace.judging_pace(db)
    assert ana.annotator == "ana" and ana.judgments == 8 and ana.cards_timed == 6
    assert ana.seconds_per_card == pytest.approx(8.0)  # median of 10, 20, 40, 6, 6, 6
    assert ana.latest_session_judgments == 4
    assert ana.per_hour == pytest.approx(4 / (18 / 3600))
    assert pace.team_seconds_per_card(db) == pytest.approx(8.0)
    assert pace.hours_for(360, 10.0) == pytest.approx(1.0)


def test_pace_without_history_uses_the_documented_default(make_workspace):
    db = make_workspace(chunks=CHUNKS[:1], queries=QUERIES)
    assert pace.judging_pace(db) == []
    assert pace.team_seconds_per_card(db) == pace.DEFAULT_SECONDS_PER_CARD


def test_pace_leaves_out_the_time_spent_on_skipped_cards(make_workspace, monkeypatch):
    """Issue 26 case 14: ana judges, spends 200 s on a card she skips, judges the next in 10 s,
    and again; her cards took 10 s each, not 210 and 200."""
    db = make_workspace("demo")  # its labels are imported files: nobody is paced yet
    assert pace.judging_pace(db) == []
    base = 1_700_000_000

    def at(offset: float) -> str:
        return datetime.fromtimestamp(base + offset, UTC).isoformat()

    def skip_at(offset: float, chunk: str) -> None:
        monkeypatch.setattr(store, "utc_now", lambda: at(offset))
        queue.skip(db, "q01", chunk, "ana")

    judgments.add_judgment(db, "q01", "leave-01", 1, "ana", created_at=at(0), origin="person")
    skip_at(200, "leave-02")
    judgments.add_judgment(db, "q01", "leave-03", 1, "ana", created_at=at(210), origin="person")
    skip_at(400, "leave-02")  # the skipped card came back and was skipped again
    judgments.add_judgment(db, "q01", "leave-02", 2, "ana", created_at=at(410), origin="person")
    (ana,) = pace.judging_pace(db)
    assert ana.judgments == 3 and ana.cards_timed == 2
    assert ana.seconds_per_card == pytest.approx(10.0)
    assert ana.latest_session_judgments == 3
    assert ana.per_hour == pytest.approx(3 / (20 / 3600))
    assert pace.team_seconds_per_card(db) == pytest.approx(10.0)
