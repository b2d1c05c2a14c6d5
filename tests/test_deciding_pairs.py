"""Which pairs decide between two runs (``labeling.evaluation.views.deciding_pairs``): leverage
against a brute-force re-scoring, the order, the narrowing, the queue and the replayed history."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.views import deciding_pairs
from labeling.judging import consensus, queue
from labeling.metrics.engine import evaluate
from labeling.workspace import roles
from labeling.workspace.roles import AccessDenied

pytestmark = pytest.mark.usefixtures("fresh_result_cache")


def _random_workspace(make_workspace, seed: int, queries: int = 6, chunks: int = 10):
    """Two runs ranking the same ten chunks per query in different orders, a third of the
    pairs judged on the graded scale."""
    rng = np.random.default_rng(seed)
    rows = {"base": [], "cand": []}
    judgments = []
    chunk_rows = []
    for q in range(queries):
        ids = [f"c{q}-{i}" for i in range(chunks)]
        chunk_rows += [{"id": c, "text": f"passage {c}"} for c in ids]
        for run in rows:
            scores = rng.permutation(chunks)
            rows[run] += [(f"q{q}", c, float(s)) for c, s in zip(ids, scores, strict=True)]
        for c in rng.choice(ids, size=chunks // 3, replace=False):
            judgments.append((f"q{q}", str(c), int(rng.integers(0, 4)), "ann"))
    return make_workspace(chunks=chunk_rows,
                          queries=[{"id": f"q{q}", "text": f"question {q}"}
                                   for q in range(queries)],
                          runs=rows, judgments=judgments)


def _runs(db) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The baseline's and the candidate's rows, read once per test (the brute force below
    scores them again for every pair)."""
    return consensus.run_frame(db, "base"), consensus.run_frame(db, "cand")


def _mean_difference(runs, qrels: pd.DataFrame, measure: str, judged_only: bool = False) -> float:
    values = [evaluate(qrels, run, [measure], judged_only=judged_only).per_query[measure]
              for run in runs]
    return float((values[1] - values[0]).mean())


@pytest.mark.parametrize(("measure", "policy"), [
    ("nDCG@5", "nonrelevant"), ("RR", "nonrelevant"), ("R@5", "nonrelevant"),
    ("AP", "judged_only"),
])
def test_leverage_is_the_move_of_the_mean_difference(make_workspace, measure, policy):
    db = _random_workspace(make_workspace, seed=3)
    controls = Controls("base", k=5, policy=policy)
    state, pairs = deciding_pairs.comparison(db, controls, "cand", measure)
    qrels = consensus.consensus_qrels(db)
    judged_only = policy == "judged_only"
    runs = _runs(db)
    assert state.difference == pytest.approx(_mean_difference(runs, qrels, measure, judged_only))
    assert len(pairs) == state.in_play > 0
    for pair in pairs.itertuples():
        moved = []
        for grade in (3, 0):
            extra = pd.DataFrame({"query_id": [pair.query_id], "doc_id": [pair.chunk_id],
                                  "relevance": [grade]})
            moved.append(_mean_difference(runs, pd.concat([qrels, extra]), measure, judged_only))
        assert pair.leverage == pytest.approx(moved[0] - moved[1], abs=1e-12)


def test_pairs_the_runs_disagree_on_near_the_top_come_first(make_workspace):
    db = _random_workspace(make_workspace, seed=5)
    _, pairs = deciding_pairs.comparison(db, Controls("base", k=5), "cand", "P@5")
    size = pairs["leverage"].abs().to_numpy()
    assert np.all(size[:-1] >= size[1:])
    best = pairs[["baseline_rank", "candidate_rank"]].min(axis=1).to_numpy()
    for value in np.unique(size):  # within one size, the better rank first
        ranks = best[size == value]
        assert np.all(ranks[:-1] <= ranks[1:])
    both = pairs.dropna(subset=["baseline_rank", "candidate_rank"])
    assert (both["leverage"] == 0).all()  # in both top fives: P@5 cannot tell them apart
    single = pairs.loc[pairs[["baseline_rank", "candidate_rank"]].isna().any(axis=1)]
    assert len(single) and np.allclose(single["leverage"].abs(), 1 / 5 / 6)


@pytest.mark.parametrize("measure", ["P@5", "DCG@5"])
@pytest.mark.parametrize("seed", [11, 12, 13])
def test_each_judgment_narrows_the_range_by_its_leverage(make_workspace, measure, seed):
    """For measures that add up over ranks the label range is exactly the sum of the
    leverages, and judging a pair (any grade) takes its leverage off the width."""
    db = _random_workspace(make_workspace, seed)
    controls = Controls("base", k=5)
    rng = np.random.default_rng(seed)
    for _ in range(6):
        state, pairs = deciding_pairs.comparison(db, controls, "cand", measure)
        lev = pairs["leverage"]
        assert state.label_low == pytest.approx(state.difference + lev[lev < 0].sum())
        assert state.label_high == pytest.approx(state.difference + lev[lev > 0].sum())
        decisive = deciding_pairs.decisive(pairs)
        if decisive.empty:
            break
        first = decisive.iloc[0]
        queue.save_judgment(db, first.query_id, first.chunk_id, int(rng.integers(0, 4)), "bob")
        after, _ = deciding_pairs.comparison(db, controls, "cand", measure)
        assert (after.label_high - after.label_low) == pytest.approx(
            state.label_high - state.label_low - abs(first.leverage))
        assert after.in_play == state.in_play - 1


def test_decisive_pairs_go_to_the_queue_with_their_source(make_workspace):
    db = make_workspace("demo", accounts={"vic": "viewer"})
    controls = Controls("bm25")
    _, pairs = deciding_pairs.comparison(db, controls, "fusion", "R@10")
    before = db.conn.execute("SELECT max(id) FROM pair_sources").fetchone()[0]  # the demo pool
    with roles.acting_as("vic"), pytest.raises(AccessDenied):
        deciding_pairs.send_deciding_pairs(db, controls, "fusion", "R@10", limit=5)
    assert db.conn.execute("SELECT count(*) FROM label_queue").fetchone()[0] == 0
    assert db.conn.execute("SELECT max(id) FROM pair_sources").fetchone()[0] == before
    assert deciding_pairs.send_deciding_pairs(db, controls, "fusion", "R@10", limit=5) == 5
    queued = db.conn.execute(
        "SELECT query_id, chunk_id, reason FROM label_queue ORDER BY rowid").fetchall()
    expected = deciding_pairs.decisive(pairs).head(5)
    assert {(q, c) for q, c, _ in queued} == set(zip(expected["query_id"], expected["chunk_id"],
                                                     strict=True))
    assert {reason for _, _, reason in queued} == {"decide"}
    sources = db.conn.execute("SELECT source, detail, pool_depth FROM pair_sources WHERE id > ?",
                              [before]).fetchall()
    assert len(sources) == 5
    assert set(sources) == {("queue", "decide bm25 vs fusion on R@10", None)}
    # Sent again: the same pairs are already queued and recorded, nothing new.
    assert deciding_pairs.send_deciding_pairs(db, controls, "fusion", "R@10", limit=5) == 0
    assert db.conn.execute("SELECT count(*) FROM pair_sources WHERE id > ?",
                           [before]).fetchone()[0] == 5


def test_history_replays_the_labels_of_each_moment(make_workspace):
    db = make_workspace("demo")
    total = db.conn.execute("SELECT count(*), max(id) FROM judgments").fetchone()
    for rule in ("default", "strict", "lenient"):
        replayed = deciding_pairs.qrels_as_of(db, rule, total[1])
        pd.testing.assert_frame_equal(replayed.reset_index(drop=True),
                                      consensus.consensus_qrels(db, rule).reset_index(drop=True))
    assert deciding_pairs.qrels_as_of(db, "default", 0).empty
    points = deciding_pairs.checkpoints(db, 8)
    assert len(points) == 8 and points[-1] == (total[0], total[1])
    history = deciding_pairs.history(db, Controls("bm25"), "fusion", "R@10", points=8)
    assert list(history["judgments"]) == [count for count, _ in points]
    now, _ = deciding_pairs.comparison(db, Controls("bm25"), "fusion", "R@10")
    last = history.iloc[-1]
    for field in ("n", "difference", "low", "high", "label_low", "label_high", "in_play"):
        assert last[field] == pytest.approx(getattr(now, field))
    assert history["n"].is_monotonic_increasing  # queries join as their first label comes


def test_the_same_run_cannot_be_its_own_candidate(make_workspace):
    db = make_workspace("demo")
    with pytest.raises(Exception, match="other than the baseline"):
        deciding_pairs.comparison(db, Controls("bm25"), "bm25", "R@10")
