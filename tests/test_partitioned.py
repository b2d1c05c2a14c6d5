"""Scoring by query-partitioned batches (labeling.metrics.partitioned) equals the engine on the
whole run, per query and in the means, whatever the partitioning and batch boundaries."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from cluster_data import MEASURES, adversarial
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labeling.errors import InputError
from labeling.metrics.engine import evaluate
from labeling.metrics.partitioned import (
    ANSWERED,
    combine,
    score_batch,
    score_sorted,
    score_unified,
    top_rows,
    unified,
)


def _single(qrels: pd.DataFrame, run: pd.DataFrame, **options) -> pd.DataFrame:
    values = evaluate(qrels, run, MEASURES, **options).per_query
    values.index = values.index.astype(str)
    return values.sort_index()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), batches=st.integers(1, 7),
       judged_only=st.booleans(), missing=st.sampled_from(["zero", "skip"]))
def test_batches_by_query_equal_the_whole_run(seed, batches, judged_only, missing):
    qrels, run = adversarial(seed, queries=25, depth=12)
    queries = sorted(set(qrels["query_id"]) | set(run["query_id"]))
    batch_of = dict(zip(queries, np.random.default_rng(seed).integers(0, batches, len(queries)),
                        strict=True))
    scored = [
        score_batch(qrels.loc[qrels["query_id"].map(batch_of) == b],
                    run.loc[run["query_id"].map(batch_of) == b], MEASURES,
                    judged_only=judged_only, missing=missing)
        for b in range(batches)
    ]
    per_query = pd.concat([s.per_query for s in scored]).sort_index()
    whole = _single(qrels, run, judged_only=judged_only, missing=missing)
    pd.testing.assert_frame_equal(per_query, whole, check_exact=True, check_names=False,
                                  check_index_type=False)
    sums, n = combine(scored, MEASURES)
    assert n == len(whole)
    means = evaluate(qrels, run, MEASURES, judged_only=judged_only, missing=missing).mean
    np.testing.assert_allclose((sums / n).to_numpy(), means.to_numpy(), rtol=0, atol=1e-12)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), stream_rows=st.integers(1, 400))
def test_a_sorted_stream_scores_queries_that_straddle_batches(seed, stream_rows):
    qrels, run = adversarial(seed, queries=20, depth=10)
    table = unified(qrels, run).sort_values("query_id", kind="stable", ignore_index=True)
    cuts = [0, *np.sort(np.random.default_rng(seed).integers(0, len(table), size=8)),
            len(table)]
    pieces = [table.iloc[a:b] for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    # batch boundaries anywhere, inside queries too
    streamed = pd.concat(list(score_sorted(iter(pieces), MEASURES, stream_rows=stream_rows)))
    streamed = streamed.set_index("query_id").sort_index()
    pd.testing.assert_frame_equal(streamed.drop(columns=ANSWERED), _single(qrels, run),
                                  check_exact=True, check_names=False, check_index_type=False)
    unanswered = evaluate(qrels, run, MEASURES).unanswered
    assert sorted(streamed.index[~streamed[ANSWERED]]) == sorted(map(str, unanswered))


def test_a_repeated_pair_is_named_not_numbered():
    qrels, run = adversarial(1, queries=5, depth=5)
    twice = pd.concat([run, run.iloc[[3]]], ignore_index=True)
    with pytest.raises(InputError) as error:
        score_unified(unified(qrels, twice), MEASURES)
    query, doc = run.iloc[3]["query_id"], run.iloc[3]["doc_id"]
    assert str(error.value) == f"run: query {query!r} lists doc {doc!r} twice"


def test_top_rows_follow_trec_eval_order():
    run = pd.DataFrame({"query_id": ["b", "a", "a", "a", "b"],
                        "doc_id": ["x", "d1", "d3", "d2", "y"],
                        "score": [1.0, 0.5, 0.5, 0.9, -0.0]})
    top = top_rows(run, 2)
    assert top.to_dict("list") == {"query_id": ["a", "a", "b", "b"],
                                   "doc_id": ["d2", "d3", "x", "y"],
                                   "rank": [1, 2, 1, 2], "score": [0.9, 0.5, 1.0, -0.0]}
