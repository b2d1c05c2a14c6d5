"""A locked test split freezes what its labels describe, and its hash covers those texts.

On the demo workspace (27 test queries, 83 chunks judged for them): while the test split is
locked, imports and Queries-page edits that would change a test query's text, source, segment
attributes or split, or the title or text of a chunk judged for a test query, are refused whole
with one sentence naming the first offending id (and the file and line); the same changes to
dev queries and to chunks not judged for test queries go through.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from labeling.errors import InputError, ScorecardError
from labeling.evaluation.inputs import label_sets, locked_splits, result_cache
from labeling.files import importers as imports
from labeling.workspace import contents, judgments, query_store

TEST_QUERY = "q02"  # in the demo's test split, topic "hr"
DEV_QUERY = "q01"


@pytest.fixture
def db(make_workspace):
    result_cache.clear_cache()
    return make_workspace("demo")


def _contents(db) -> list[list[tuple]]:
    """Everything the checks guard, to compare before and after a refused write."""
    return [
        db.conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
        for table in ("queries", "query_attributes", "chunks")
    ]


def _query_record(db, qid: str, **changes) -> dict:
    qid_, text, source, split = db.conn.execute(
        "SELECT id, text, source, split FROM queries WHERE id = ?", [qid]
    ).fetchone()
    record = {"id": qid_, "text": text, "source": source, "split": split}
    record.update(dict(db.conn.execute(
        "SELECT name, value FROM query_attributes WHERE query_id = ?", [qid]
    ).fetchall()))
    record.update(changes)
    return {k: v for k, v in record.items() if v is not None}


def _chunk_record(db, cid: str, **changes) -> dict:
    cid_, doc_id, title, text = db.conn.execute(
        "SELECT id, doc_id, title, text FROM chunks WHERE id = ?", [cid]
    ).fetchone()
    return {"id": cid_, "doc_id": doc_id, "title": title, "text": text} | changes


def _jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _chunk_judged_for(db, split: str, only: bool) -> str:
    """A chunk judged for a query of ``split`` (``only``: and for no query of another split)."""
    other = " AND NOT EXISTS (SELECT 1 FROM judgments k JOIN queries p ON p.id = k.query_id" \
            " WHERE k.chunk_id = c.id AND p.split IS NOT ?)" if only else ""
    return db.conn.execute(
        "SELECT c.id FROM chunks c WHERE EXISTS (SELECT 1 FROM judgments j JOIN queries q"
        f" ON q.id = j.query_id WHERE j.chunk_id = c.id AND q.split = ?){other} ORDER BY c.id",
        [split, split] if only else [split],
    ).fetchone()[0]


def _dev_only_chunk(db) -> str:
    return _chunk_judged_for(db, "dev", only=True)


# ---------------------------------------------------------------------------------------------
# Imports


QUERY_CHANGES = {
    "text": {"text": "How many leave days roll over?"},
    "segment attribute 'topic'": {"topic": "finance"},
    "segment attribute 'lang'": {"lang": "en"},  # a new attribute is a change too
    "source": {"source": "real"},
    "split": {"split": "dev"},
}


@pytest.mark.parametrize("change", QUERY_CHANGES)
def test_import_changing_a_test_query_is_refused_whole(db, tmp_path, change):
    locked_splits.lock_split(db, "lead", rule="default")
    path = _jsonl(tmp_path / "queries.jsonl", [
        _query_record(db, DEV_QUERY, text="a new wording of a dev query"),  # allowed alone
        _query_record(db, "q03"),  # a test query, unchanged
        _query_record(db, TEST_QUERY, **QUERY_CHANGES[change]),
    ])
    before = _contents(db)
    with pytest.raises(InputError) as refused:
        imports.import_queries(db, path)
    message = str(refused.value)
    assert message.startswith(f"{path}, line 3: query '{TEST_QUERY}' is in the locked test split")
    assert f"would change its {change}" in message and "unlock the test split first" in message
    assert _contents(db) == before  # nothing written, not even the dev query on line 1


def test_import_adding_a_query_to_the_locked_split_is_refused(db, tmp_path):
    locked_splits.lock_split(db, "lead", rule="default")
    path = _jsonl(tmp_path / "q.jsonl", [{"id": "new1", "text": "new", "split": "test"}])
    with pytest.raises(InputError, match="line 1: query 'new1' cannot join the locked test"):
        imports.import_queries(db, path)


def test_reimporting_unchanged_test_queries_and_changing_dev_ones_is_allowed(db, tmp_path):
    locked_splits.lock_split(db, "lead", rule="default")
    test_ids = [r[0] for r in db.conn.execute("SELECT id FROM queries WHERE split = 'test'")]
    records = [_query_record(db, qid) for qid in test_ids]
    records.append(_query_record(db, DEV_QUERY, text="reworded", topic="it", split="dev"))
    records.append({"id": "new-dev", "text": "a new dev query", "split": "dev"})
    digest = locked_splits.split_hash(db, rule="default")
    result = imports.import_queries(db, _jsonl(tmp_path / "q.jsonl", records))
    assert result.rows == len(test_ids) + 2
    assert contents.query_segments(db, "topic")[DEV_QUERY] == "it"
    assert locked_splits.split_hash(db, rule="default") == digest
    assert locked_splits.split_lock(db)["snapshot_hash"] == digest


@pytest.mark.parametrize("field", ["text", "title"])
def test_import_changing_a_chunk_judged_for_a_test_query_is_refused(db, tmp_path, field):
    locked_splits.lock_split(db, "lead", rule="default")
    judged = _chunk_judged_for(db, "test", only=False)
    path = _jsonl(tmp_path / "chunks.jsonl", [
        _chunk_record(db, _dev_only_chunk(db), text="dev-only chunk, rewritten"),
        _chunk_record(db, judged, **{field: "rewritten"}),
    ])
    before = _contents(db)
    with pytest.raises(InputError) as refused:
        imports.import_chunks(db, path)
    message = str(refused.value)
    assert message.startswith(f"{path}, line 2: chunk '{judged}' is judged for query 'q")
    assert f"of the locked test split, and this would change its {field}" in message
    assert _contents(db) == before


def test_chunks_not_judged_for_the_test_split_may_change(db, tmp_path):
    locked_splits.lock_split(db, "lead", rule="default")
    judged = _chunk_judged_for(db, "test", only=False)
    dev_only = _dev_only_chunk(db)
    path = _jsonl(tmp_path / "chunks.jsonl", [
        _chunk_record(db, judged),  # unchanged
        {"id": "brand-new-chunk", "doc_id": "new-doc", "title": "New", "text": "a new chunk"},
        _chunk_record(db, dev_only, text="rewritten"),
    ])
    assert imports.import_chunks(db, path).rows == 3
    assert db.conn.execute("SELECT text FROM chunks WHERE id = ?", [dev_only]).fetchone() == (
        "rewritten",
    )


def test_unlocking_lets_the_same_import_through(db, tmp_path):
    locked_splits.lock_split(db, "lead", rule="default")
    path = _jsonl(tmp_path / "q.jsonl", [_query_record(db, TEST_QUERY, text="reworded")])
    with pytest.raises(InputError):
        imports.import_queries(db, path)
    locked_splits.unlock_split(db)
    assert imports.import_queries(db, path).rows == 1


# ---------------------------------------------------------------------------------------------
# Queries page (library functions behind it)


def _edited(db, qid: str, **changes) -> pd.DataFrame:
    table = query_store.queries_table(db)
    row = table.loc[table["id"] == qid].copy()
    for column, value in changes.items():
        row[column] = value
    return row


@pytest.mark.parametrize(
    ("changes", "what"),
    [({"topic": "finance"}, "segment attribute 'topic'"), ({"topic": None},
     "segment attribute 'topic'"), ({"source": "real"}, "source"), ({"split": "dev"}, "split")],
)
def test_editing_a_test_query_is_refused(db, changes, what):
    locked_splits.lock_split(db, "lead", rule="default")
    before = _contents(db)
    edited = pd.concat([_edited(db, DEV_QUERY, topic="it"), _edited(db, TEST_QUERY, **changes)])
    with pytest.raises(InputError, match=rf"^queries: query '{TEST_QUERY}' is in the locked test "
                       rf"split, and this would change its {what}"):
        query_store.update_queries(db, edited)
    assert _contents(db) == before


def test_moving_or_adding_a_query_into_the_locked_split_is_refused(db):
    locked_splits.lock_split(db, "lead", rule="default")
    before = _contents(db)
    with pytest.raises(InputError, match=f"query '{DEV_QUERY}' cannot join the locked test"):
        query_store.update_queries(db, _edited(db, DEV_QUERY, split="test"))
    with pytest.raises(InputError, match="^new query: query 'u001' cannot join the locked test"):
        query_store.add_query(db, "a new test query", split="test")
    with pytest.raises(InputError, match="^split: query 'q.*' is in the locked test split"):
        query_store.assign_split(db, 0.5, 7)
    assert _contents(db) == before
    assert query_store.update_queries(db, _edited(db, DEV_QUERY, topic="it")) == 1
    assert query_store.add_query(db, "a new dev query", split="dev") == "u001"


# ---------------------------------------------------------------------------------------------
# The split's snapshot hash


def test_split_hash_covers_the_texts_its_labels_describe(db, tmp_path):
    """Changes with a test query's text or attributes and a judged chunk's text, not with
    dev queries or chunks judged only for them; the label-only hash does not see texts."""
    labels_only = label_sets.label_snapshot(db, "default").snapshot
    digest = locked_splits.split_hash(db, rule="default")
    changes = [
        ("queries", _query_record(db, DEV_QUERY, text="dev reworded"), False),
        ("chunks", _chunk_record(db, _dev_only_chunk(db), text="dev-only rewritten"), False),
        ("queries", _query_record(db, TEST_QUERY, text="test reworded"), True),
        ("queries", _query_record(db, "q03", topic="finance"), True),
        ("chunks", _chunk_record(db, _chunk_judged_for(db, "test", False), text="new"), True),
    ]
    for number, (kind, record, moves) in enumerate(changes):
        path = _jsonl(tmp_path / f"{number}.jsonl", [record])
        (imports.import_queries if kind == "queries" else imports.import_chunks)(db, path)
        now = locked_splits.split_hash(db, rule="default")
        assert (now != digest) == moves, record
        digest = now
    assert label_sets.label_snapshot(db, "default").snapshot == labels_only


def test_judgments_of_a_locked_split_still_refused(db):
    locked_splits.lock_split(db, "lead", rule="default")
    with pytest.raises(ScorecardError, match="locked"):
        judgments.add_judgment(db, TEST_QUERY, _chunk_judged_for(db, "test", False), 0, "ann")


def test_import_moving_judged_chunks_to_another_document_is_refused(db, tmp_path):
    locked_splits.lock_split(db, "lead", rule="default")
    judged = [r[0] for r in db.conn.execute(
        "SELECT DISTINCT j.chunk_id FROM judgments j JOIN queries q ON q.id = j.query_id"
        " WHERE q.split = 'test' ORDER BY j.chunk_id")]
    path = _jsonl(tmp_path / "chunks.jsonl", [
        _chunk_record(db, _dev_only_chunk(db), doc_id="elsewhere"),  # may move
        *(_chunk_record(db, cid, doc_id=f"moved-{cid}") for cid in judged),
    ])
    before = _contents(db)
    with pytest.raises(InputError) as refused:
        imports.import_chunks(db, path)
    message = str(refused.value)
    assert message.startswith(f"{path}, line 2: {len(judged)} chunks '{judged[0]}', ")
    assert f"and {len(judged) - 5} more are judged for queries of the locked test split" in message
    assert "doc_id" in message and message.count(".") <= 2  # one sentence
    assert _contents(db) == before
    same = _jsonl(tmp_path / "same.jsonl", [_chunk_record(db, cid) for cid in judged])
    assert imports.import_chunks(db, same).rows == len(judged)  # unchanged: allowed
