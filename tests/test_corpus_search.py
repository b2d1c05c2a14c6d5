"""Corpus search (labeling.judging.corpus_search): the FTS5 index follows every import, hits are
ranked by BM25 exactly as the formula says, and a pair judged from a search is marked so."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from labeling.errors import InputError
from labeling.files import importers
from labeling.judging import corpus_search, queue
from labeling.workspace import store
from labeling.workspace.migrations import MIGRATIONS, m010_search_and_narratives
from tests import hostile

# Words Porter stemming leaves as they are, so the oracle below can count them by splitting.
CHUNKS = [
    {"id": "c1", "title": "Leave", "text": "annual leave is twenty days of paid leave",
     "doc_id": "d1"},
    {"id": "c2", "title": "Travel", "text": "travel costs are paid back within thirty days",
     "doc_id": "d1"},
    {"id": "c3", "title": "Annual report", "text": "the annual report lists revenue and costs",
     "doc_id": "d2"},
    {"id": "c4", "title": "Security", "text": "laptops need disk encryption and a screen lock",
     "doc_id": "d3"},
    {"id": "c5", "title": "Leave", "text": "parental leave is paid for sixteen weeks",
     "doc_id": "d3"},
]
K1, B = 1.2, 0.75
WEIGHTS = {"title": 2.0, "text": 1.0}


def bm25_oracle(chunks: list[dict], words: list[str]) -> dict[str, float]:
    """FTS5's BM25 written out: idf = ln((N - n + 0.5) / (n + 0.5)) floored at 1e-6, a word's
    frequency weighted by column, D the row's tokens, avgdl over all rows."""
    tokens = {c["id"]: {col: c[col].lower().split() for col in WEIGHTS} for c in chunks}
    lengths = {cid: sum(len(v) for v in cols.values()) for cid, cols in tokens.items()}
    avgdl = sum(lengths.values()) / len(chunks)
    held = {w: sum(1 for c in tokens.values() if any(w in v for v in c.values())) for w in words}
    scores = {}
    for cid, cols in tokens.items():
        score = 0.0
        for word in words:
            hits = held[word]
            if not hits:
                continue
            idf = max(math.log((len(chunks) - hits + 0.5) / (hits + 0.5)), 1e-6)
            f = sum(WEIGHTS[col] * cols[col].count(word) for col in WEIGHTS)
            score += idf * f * (K1 + 1) / (f + K1 * (1 - B + B * lengths[cid] / avgdl))
        if score:
            scores[cid] = score
    return scores


@pytest.fixture
def db(make_workspace):
    return make_workspace(chunks=CHUNKS,
                          queries=[{"id": "q1", "text": "how long is annual leave?"}])


@pytest.mark.parametrize("text", ["annual leave", "paid costs days", "leave encryption report",
                                  "annual leave paid travel laptops revenue weeks"])
def test_hits_are_ranked_by_bm25_as_the_formula_says(db, text):
    hits = corpus_search.search(db, text).hits
    expected = bm25_oracle(CHUNKS, corpus_search.search_terms(text))
    assert {h.chunk_id: h.score for h in hits} == pytest.approx(expected, rel=1e-9)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))


def test_stemming_function_words_and_no_words(db):
    assert [h.chunk_id for h in corpus_search.search(db, "Encrypting LAPTOP disks").hits] == ["c4"]
    assert corpus_search.search_terms("How long is the leave?") == ["long", "leave"]
    assert corpus_search.search_terms("how is it") == ["how", "is", "it"]  # nothing else left
    assert corpus_search.search(db, "?!  ").hits == []
    assert len(corpus_search.search(db, "leave", limit=1).hits) == 1


def test_the_rarest_words_are_searched_for_within_the_budget(db, monkeypatch):
    assert [corpus_search.holding(db, w, 10) for w in ("paid", "laptops", "zebra")] == [3, 1, 0]
    assert corpus_search.holding(db, "paid", 2) == 2  # counted up to the cap, never further
    whole = corpus_search.search(db, "paid leave travel")  # a small corpus: every word
    assert (whole.words, whole.left_out) == (["paid", "leave", "travel"], [])
    monkeypatch.setattr(corpus_search, "POSTINGS_BUDGET", 3)  # travel (1), leave (2) fit
    part = corpus_search.search(db, "paid leave travel")
    assert (part.words, part.left_out) == (["leave", "travel"], ["paid"])
    assert {h.chunk_id: h.score for h in part.hits} == pytest.approx(
        bm25_oracle(CHUNKS, ["leave", "travel"]), rel=1e-9)
    monkeypatch.setattr(corpus_search, "POSTINGS_BUDGET", 0)  # the rarest word always
    assert corpus_search.search(db, "paid leave travel").words == ["travel"]


def test_no_search_text_is_fts5_syntax(db):
    for value in [*(v for v in vars(hostile).values() if isinstance(v, str)),
                  'leave" OR "x', "leave NOT annual", "NEAR(a b)", "title:leave", "lea*", '"']:
        corpus_search.search(db, value)  # no FTS5 syntax error, whatever the text
    assert [h.chunk_id for h in corpus_search.search(db, "title:Security").hits] == ["c4"]


def test_the_index_follows_imports_updates_and_failed_imports(db, tmp_path: Path):
    assert corpus_search.search(db, "quantum").hits == []
    path = tmp_path / "more.jsonl"
    path.write_text('{"id": "c6", "text": "quantum computing notes"}\n'
                    '{"id": "c1", "title": "Leave", "text": "holiday allowance rules"}\n')
    importers.import_chunks(db, path)
    assert [h.chunk_id for h in corpus_search.search(db, "quantum").hits] == ["c6"]
    assert [h.chunk_id for h in corpus_search.search(db, "holiday allowance").hits] == ["c1"]
    old_text = corpus_search.search(db, "twenty").hits
    assert "c1" not in [h.chunk_id for h in old_text]  # the old text is out of the index
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "c7", "text": "zeppelin flights"}\n{"id": "c7", "text": "again"}\n')
    with pytest.raises(InputError):
        importers.import_chunks(db, bad)
    assert corpus_search.search(db, "zeppelin").hits == []  # rolled back with the import
    qrels = tmp_path / "new.qrels"
    qrels.write_text("q1 0 c99 1\n")  # an unknown chunk: a placeholder, no text
    importers.import_qrels(db, qrels)
    db.conn.execute("INSERT INTO chunk_search (chunk_search, rank) VALUES ('integrity-check', 1)")


def test_judging_a_hit_marks_the_pair_found_by_search(db):
    hit = corpus_search.search(db, "parental leave").hits[0]
    judgment = corpus_search.judge_found(db, "q1", hit.chunk_id, 2, "ann",
                                         search_text="parental   leave")
    assert queue.current_grade(db, "q1", hit.chunk_id, "ann") == 2
    assert corpus_search.found_by_search(db, "q1") == {hit.chunk_id}
    assert corpus_search.pair_sources(db, "q1", hit.chunk_id) == ["found by search"]
    corpus_search.judge_found(db, "q1", hit.chunk_id, 3, "bob", search_text="again")
    rows = db.conn.execute("SELECT source, detail FROM pair_sources").fetchall()
    assert rows == [("search", "parental leave")]  # marked once
    assert judgment > 0


def test_a_refused_judgment_marks_nothing(db):
    with pytest.raises(InputError):
        corpus_search.judge_found(db, "q1", "c1", 9, "ann", search_text="leave")  # off the scale
    with pytest.raises(InputError):
        corpus_search.judge_found(db, "q1", "c1", 1, " ", search_text="leave")  # no name
    assert db.conn.execute("SELECT count(*) FROM pair_sources").fetchone()[0] == 0
    assert db.conn.execute("SELECT count(*) FROM judgments").fetchone()[0] == 0


def test_an_older_workspace_gets_its_chunks_indexed(tmp_path: Path):
    """A workspace made before the index: the migration indexes every chunk it holds."""
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys = ON")
    before = MIGRATIONS.index(m010_search_and_narratives.migrate)
    with conn:
        for migrate in MIGRATIONS[:before]:
            migrate(conn)
        conn.execute(f"PRAGMA user_version = {before}")
        conn.executemany("INSERT INTO chunks (id, title, text) VALUES (?, ?, ?)",
                         [(c["id"], c["title"], c["text"]) for c in CHUNKS])
        conn.execute("INSERT INTO chunks (id, placeholder) VALUES ('p1', 1)")
        conn.execute("INSERT INTO queries (id, text) VALUES ('q1', 'leave')")
    conn.close()
    db = store.open_workspace(path)
    try:
        placeholder = {"id": "p1", "title": "", "text": ""}  # indexed empty: counts in N
        assert {h.chunk_id: h.score for h in corpus_search.search(db, "annual leave").hits} == \
            pytest.approx(bm25_oracle([*CHUNKS, placeholder], ["annual", "leave"]), rel=1e-9)
        assert db.conn.execute("SELECT narrative FROM queries").fetchall() == [(None,)]
        db.conn.execute(
            "INSERT INTO chunk_search (chunk_search, rank) VALUES ('integrity-check', 1)")
    finally:
        db.close()


def test_searches_within_a_budget_rank_by_bm25_over_the_words_searched(make_workspace,
                                                                       monkeypatch):
    """Seeded: 400 chunks of Zipf-distributed words, 60 queries, small budgets. The words
    searched for are the rarest, within the budget; the hits are the top of BM25 over them."""
    rng = np.random.default_rng(3)
    vocabulary = [f"w{i}x" for i in range(400)]
    p = 1 / np.arange(1, 401)
    p /= p.sum()
    chunks = [{"id": f"k{i:03d}", "title": " ".join(rng.choice(vocabulary, 3, p=p)),
               "text": " ".join(rng.choice(vocabulary, int(rng.integers(5, 40)), p=p))}
              for i in range(400)]
    db = make_workspace(chunks=chunks)
    held = {w: sum(w in c["title"].split() or w in c["text"].split() for c in chunks)
            for w in vocabulary}
    left_out_seen = 0
    for _ in range(60):
        words = list(dict.fromkeys(rng.choice(vocabulary, int(rng.integers(2, 6)), p=p)))
        budget = int(rng.integers(0, 150))
        monkeypatch.setattr(corpus_search, "POSTINGS_BUDGET", budget)
        found = corpus_search.search(db, " ".join(words), limit=5)
        assert sorted(found.words + found.left_out) == sorted(words)
        total = sum(held[w] for w in found.words)
        assert total <= budget or len(found.words) == 1
        if found.left_out:
            left_out_seen += 1
            assert min(held[w] for w in found.left_out) >= max(held[w] for w in found.words)
        oracle = bm25_oracle(chunks, found.words)
        best = sorted(oracle.values(), reverse=True)[:5]
        assert [h.score for h in found.hits] == pytest.approx(best, rel=1e-9)
        for hit in found.hits:
            assert hit.score == pytest.approx(oracle[hit.chunk_id], rel=1e-9)
    assert 10 < left_out_seen < 60  # budgets that left words out, and some that did not


def test_a_large_chunk_import_leaves_the_index_in_one_segment(make_workspace, tmp_path: Path):
    db = make_workspace(chunks=[{"id": f"a{i}", "text": f"alpha {i}"} for i in range(100)])

    def segments() -> int:
        return db.conn.execute(
            "SELECT count(DISTINCT segid) FROM chunk_search_idx").fetchone()[0]

    def import_chunks(name: str, ids: range) -> None:
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(f'{{"id": "{name}{i}", "text": "beta {i}"}}\n' for i in ids))
        importers.import_chunks(db, path)

    assert segments() == 1
    import_chunks("small", range(5))  # 5 of 105: left to FTS5's own merging
    assert segments() > 1
    import_chunks("large", range(20))  # 20 of 125: merged
    assert segments() == 1
    assert len(corpus_search.search(db, "beta", limit=50).hits) == 25
    db.conn.execute("INSERT INTO chunk_search (chunk_search, rank) VALUES ('integrity-check', 1)")
