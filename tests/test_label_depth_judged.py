"""Label depth counts what was judged, not what was queued (issue 26, case 6): queueing a
deeper pool changes neither the "R@10 is an upper bound" warning nor the stated depth until a
pair it brought is judged."""

from __future__ import annotations

from labeling.evaluation.inputs import result_cache
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores import label_depth
from labeling.judging import consensus, pooling
from tests.workspaces import add_rows


def test_a_deeper_pool_counts_once_its_pairs_are_judged(make_workspace) -> None:
    db = make_workspace("demo")
    before = label_depth.label_depth(db, Controls("bm25"))
    relevant = int((consensus.consensus_qrels(db, "default")["relevance"] >= 1).sum())
    assert before.pools == {10: relevant} and before.warning("R@10")

    # The issue: a pool of depth 20 queued, nothing judged, and the warning was gone, the
    # sentence saying the labels came from pools of depth 20.
    pooling.build_pool(db, ["bm25", "fusion"], k=20)
    result_cache.clear_cache()
    queued = label_depth.label_depth(db, Controls("bm25"))
    assert queued == before
    assert queued.warning("R@10") == before.warning("R@10")
    assert "pools of depth 10" in queued.sentence() and "depth 20" not in queued.sentence()

    # A pair the deeper pool brought, judged relevant after it was queued, counts at 20.
    judged = set(consensus.consensus_qrels(db, "default")[["query_id", "doc_id"]]
                 .itertuples(index=False, name=None))
    new = next(p for p in pooling.pool_pairs(db, ["bm25"], k=20)[["query_id", "chunk_id"]]
               .itertuples(index=False, name=None) if p not in judged)
    add_rows(db, judgments=[(*new, 3, "carol")])
    result_cache.clear_cache()
    after = label_depth.label_depth(db, Controls("bm25"))
    assert after.pools == {10: relevant, 20: 1}
