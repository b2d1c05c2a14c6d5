"""Pooling: the union of the top k of the chosen runs, by the metric engine's ranking."""

from __future__ import annotations

import pytest

from labeling.errors import InputError, ScorecardError
from labeling.judging import consensus, pooling, queue
from tests.queue_rows import queued_pairs


@pytest.fixture
def db(make_workspace):
    return make_workspace(
        queries=[{"id": "q1", "text": "alpha", "split": "dev", "topic": "hr"},
                 {"id": "q2", "text": "beta", "split": "test", "topic": "it"}],
        chunks=[{"id": f"c{i}", "text": f"text {i}"} for i in range(8)],
        runs={  # scores only: a: q1 c0 > c1 > c2 (c2 ties c3; c3 wins, higher id), q2 c4 > c5
            "a": [("q1", "c0", 9.0), ("q1", "c1", 8.0), ("q1", "c2", 7.0), ("q1", "c3", 7.0),
                  ("q2", "c4", 5.0), ("q2", "c5", 4.0)],
            "b": [("q1", "c6", 3.0), ("q1", "c0", 2.0), ("q2", "c7", 1.0)],
        },
    )


def pairs(frame):
    return sorted(zip(frame["query_id"], frame["chunk_id"], strict=True))


def test_union_of_top_k(db):
    top2 = pooling.pool_pairs(db, ["a", "b"], k=2)
    assert pairs(top2) == [("q1", "c0"), ("q1", "c1"), ("q1", "c6"),
                           ("q2", "c4"), ("q2", "c5"), ("q2", "c7")]
    assert pairs(pooling.pool_pairs(db, ["a"], k=3)) == [
        ("q1", "c0"), ("q1", "c1"), ("q1", "c3"), ("q2", "c4"), ("q2", "c5")]  # tie: c3


def test_ranks_agree_with_the_metric_engine(db):
    run = consensus.run_frame(db, "a")
    top = run.loc[run["rank"] <= 3]
    assert pairs(pooling.pool_pairs(db, ["a"], k=3)) == sorted(
        zip(top["query_id"], top["doc_id"], strict=True))


def test_split_and_segment_filters(db):
    assert {q for q, _ in pairs(pooling.pool_pairs(db, ["a", "b"], 10, split="test"))} == {"q2"}
    frame = pooling.pool_pairs(db, ["a", "b"], 10, segment=("topic", ["hr"]))
    assert {q for q, _ in pairs(frame)} == {"q1"}


def test_build_pool_queues_blind(db):
    result = pooling.build_pool(db, ["a", "b"], k=2)
    assert (result.pooled, result.new) == (6, 6)
    assert pooling.build_pool(db, ["a", "b"], k=3).new == 1
    rows = queued_pairs(db)
    assert {r["reason"] for r in rows} == {"pool"}
    assert set(rows[0]) == {"query_id", "chunk_id", "reason", "needed", "judged"}
    listed = pooling.queued_queries(db)
    assert listed["pairs"].tolist() == [4, 3]
    by_query = pooling.pairs_of_query(db, "q1", "carol")
    assert by_query["chunk_id"].tolist() == sorted(by_query["chunk_id"].tolist())
    queue.save_judgment(db, "q1", "c0", 2, "carol")
    by_query = pooling.pairs_of_query(db, "q1", "carol")
    assert by_query.set_index("chunk_id").loc["c0", "my_grade"] == 2


def test_bad_input(db):
    with pytest.raises(ScorecardError):
        pooling.pool_pairs(db, ["nope"])
    with pytest.raises(InputError):
        pooling.pool_pairs(db, ["a"], k=0)
    with pytest.raises(InputError):
        pooling.pool_pairs(db, [])


def test_pool_counts_are_consistent_on_the_demo(make_workspace):
    """Issue 26, case 7: the Label page said "Pooled 668 pairs; 1281 new in the queue": the
    count of new pairs took every row the queue's triggers wrote. New pairs are the pool's
    pairs that were not queued before, at most the pairs pooled; pooling again adds none."""
    db = make_workspace("demo")

    def queued() -> int:
        return db.conn.execute("SELECT count(*) FROM label_queue").fetchone()[0]

    before = queued()
    result = pooling.build_pool(db, ["bm25", "fusion"], k=20)
    assert result.pooled == len(pooling.pool_pairs(db, ["bm25", "fusion"], k=20))
    assert 0 < result.new == queued() - before <= result.pooled
    assert result.already == result.pooled - result.new
    sentence = result.sentence()
    assert sentence.startswith(f"Pooled {result.pooled} (query, chunk) pairs from the top 20 "
                               "of bm25, fusion")
    assert (f"{result.new} of them were not in the labeling queue and are added; "
            f"{result.already} were queued already") in sentence
    again = pooling.build_pool(db, ["bm25"], k=10)
    assert again.new == 0 and again.already == again.pooled
