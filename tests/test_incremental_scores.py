"""Labels, per-query values and scorecards kept up to date judgment by judgment equal a full
recompute (the reference consensus through the workspace's view, the engine on the stored run)
after any sequence of judgments, corrections, can't-judge, adjudications, generator votes,
transferred and machine labels, under every label source and with queries without results
skipped; and after the first full evaluation no judgment evaluates the whole run again."""

from __future__ import annotations

from unittest import mock

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labeling.evaluation.inputs import (
    judgment_copy,
    label_sets,
    ranked_runs,
    result_cache,
    segmenting,
)
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores import label_depth, scoring
from labeling.judging import consensus, pooling
from labeling.metrics.engine import evaluate, evaluate_ranked
from labeling.metrics.ranking import rank_rows
from labeling.workspace.judgments import add_judgment
from labeling.workspace.store import open_workspace

QUERIES = [f"q{i}" for i in range(5)]
JUDGE = "model@v1"
CHUNKS = [f"c{i}" for i in range(8)]
RUN = [(q, c, float(s)) for q, c, s in [
    ("q0", "c0", 3), ("q0", "c1", 2), ("q0", "c2", 2), ("q0", "c3", 1), ("q0", "c5", 1),
    ("q1", "c4", 1), ("q1", "c5", 1), ("q1", "c6", 0.5), ("q1", "c0", 0.25),
    ("q2", "c7", 2), ("q2", "c1", 2), ("q2", "c3", 2), ("q3", "c2", 1), ("q3", "c6", 0.0),
]]  # q4 is never answered
CONTROLS = [
    Controls("r", measures=("R@3", "RR", "nDCG@5", "AP")),
    Controls("r", measures=("P@2", "nDCG@3"), unit="document", policy="judged_only",
             rule="strict"),
    Controls("r", measures=("Success@2", "AP"), rule="lenient", relevance=2),
    Controls("r", measures=("R@3", "nDCG@5"), missing="skip", label_source="people+machine"),
    Controls("r", measures=("RR", "AP"), label_source="machine", judge=JUDGE),
]

operation = st.tuples(
    st.sampled_from(["judge", "judge", "cant", "adjudicate", "generator", "transferred",
                     "machine", "machine"]),
    st.sampled_from(QUERIES), st.sampled_from(CHUNKS), st.integers(0, 3),
    st.sampled_from(["ann", "bob", "cy"]),
)


def _workspace(build_workspace):
    chunks = [{"id": c, "text": f"text {c}", "doc_id": f"d{i // 3}" if i % 4 else None}
              for i, c in enumerate(CHUNKS)]
    queries = [{"id": q, "text": q, "topic": "ab"[i % 2]} for i, q in enumerate(QUERIES)]
    path = build_workspace.path(chunks=chunks, queries=queries, runs={"r": RUN},
                                judgments=[("q0", "c0", 2, "ann"), ("q1", "c5", 1, "bob")])
    db = open_workspace(path)
    pooling.build_pool(db, ["r"], 2)  # pairs with a pool depth, for the label depth
    return db


def _apply(db, op):
    kind, query, chunk, grade, annotator = op
    if kind == "cant":
        add_judgment(db, query, chunk, None, annotator, flags={"cant_judge": True})
    elif kind == "adjudicate":
        add_judgment(db, query, chunk, grade, "lead", flags={"adjudicated": True})
    elif kind == "generator":
        add_judgment(db, query, chunk, grade, "generator", flags={"generator": True})
    elif kind == "transferred":
        add_judgment(db, query, chunk, grade, "small-chunks", origin="transferred")
    elif kind == "machine":
        judge = JUDGE if annotator != "cy" else "other@v2"
        add_judgment(db, query, chunk, grade, judge, origin="machine")
    else:
        add_judgment(db, query, chunk, grade, annotator)


def _reference_labels(db, rule, source="people", judge=""):
    """The consensus through the workspace's view, by pandas, people's and machines' apart."""
    current = consensus.current_judgments_frame(db)
    machine = current["origin"] == "machine"
    people = consensus.consensus(current.loc[~machine], rule)
    machines = current.loc[machine & ((current["annotator"] == judge) if judge else True)]
    machines = consensus.consensus(machines, rule, machine=True)
    pairs = {"people": people, "machine": machines}.get(source)
    if pairs is None:
        known = pd.MultiIndex.from_frame(people[["query_id", "chunk_id"]])
        gaps = machines.loc[~pd.MultiIndex.from_frame(machines[["query_id", "chunk_id"]])
                            .isin(known)]
        pairs = pd.concat([people, gaps]).sort_values(["query_id", "chunk_id"],
                                                      ignore_index=True)
    return pairs.rename(columns={"chunk_id": "doc_id", "grade": "relevance"})


def _reference_values(db, controls):
    qrels = _reference_labels(db, controls.rule, controls.label_source, controls.judge)
    run = consensus.run_frame(db, "r")
    if qrels.empty:  # nothing is evaluated before the first label
        return pd.DataFrame({m: pd.Series(dtype="float64") for m in controls.measures},
                            index=pd.Index([], dtype="string", name="query_id"))
    if controls.unit == "chunk":
        values = evaluate(qrels, run, controls.measures, judged_only=controls.judged_only,
                          missing=controls.missing)
        per_query = values.per_query
    else:
        chunk_rows = rank_rows(qrels, run)
        doc_qrels, doc_run = ranked_runs._documents(qrels, run, chunk_rows,
                                                    ranked_runs.chunk_documents(db))
        per_query = evaluate_ranked(rank_rows(doc_qrels, doc_run), controls.measures,
                                    judged_only=controls.judged_only).per_query
    per_query.index = per_query.index.astype("string")
    return per_query.sort_index()


@pytest.mark.slow  # a workspace per example, every control per step: ~20 s
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])
@given(operations=st.lists(operation, min_size=1, max_size=8))
def test_kept_up_to_date_equals_a_full_recompute(build_workspace, operations):
    db = _workspace(build_workspace)
    result_cache.clear_cache()
    queries = segmenting.query_table(db)
    full = mock.Mock(wraps=scoring._evaluate)
    try:
        with mock.patch.object(scoring, "_evaluate", full):
            for controls in CONTROLS:  # the first evaluation of each: the whole run
                scoring.segment_scorecard(db, controls, "topic", queries=queries)
            first = full.call_count
            for op in operations:
                _apply(db, op)
                for controls in CONTROLS:
                    labels = label_sets.labels_for(db, controls)
                    reference = _reference_labels(db, controls.rule, controls.label_source,
                                                  controls.judge)
                    pd.testing.assert_frame_equal(labels.qrels, reference)
                    assert labels.snapshot == label_sets.snapshot_hash(reference)
                    expected = _reference_values(db, controls)
                    values = scoring.per_query(db, controls)
                    pd.testing.assert_frame_equal(values.sort_index(), expected, rtol=0,
                                                  atol=1e-12, check_names=False)
                    card = scoring.segment_scorecard(db, controls, "topic", queries=queries)
                    pd.testing.assert_frame_equal(
                        card, scoring.scorecard(expected, queries, "topic"))
                    kept = label_depth.label_depth(db, controls)
                    state = dict(label_depth._KEPT.items)
                    label_depth._KEPT.clear()  # the same from nothing kept
                    assert kept == label_depth.label_depth(db, controls)
                    label_depth._KEPT.items.update(state)
            assert full.call_count == first  # no judgment evaluated the whole run again
    finally:
        db.close()


def test_the_columnar_copy_of_judgments_is_extended_and_dropped_when_stale(
        build_workspace, monkeypatch):
    monkeypatch.setattr(judgment_copy, "JUDGMENT_COPY_ROWS", 1)
    db = _workspace(build_workspace)
    try:
        folder = label_sets._cache_dir(db)
        result_cache.clear_cache()
        label_sets.label_snapshot(db, "default")
        (first,) = folder.glob("judgments-*.arrow")
        for op in [("judge", "q2", "c7", 3, "ann"), ("adjudicate", "q0", "c0", 0, "bob"),
                   ("cant", "q1", "c5", 0, "bob")]:
            _apply(db, op)
        for path in folder.glob("labels-*.parquet"):
            path.unlink()  # the labels themselves must come from the judgments
        result_cache.clear_cache()
        labels = label_sets.label_snapshot(db, "default")
        pd.testing.assert_frame_equal(labels.qrels, _reference_labels(db, "default"))
        (second,) = folder.glob("judgments-*.arrow")
        assert second != first  # extended to the newest judgment, the old copy gone
        stale = folder / f"judgments-{second.stem.split('-')[1]}-{b'then'.hex()}.arrow"
        second.rename(stale)  # as if judgment n had another time: another history
        for path in folder.glob("labels-*.parquet"):
            path.unlink()
        result_cache.clear_cache()
        labels = label_sets.label_snapshot(db, "default")
        pd.testing.assert_frame_equal(labels.qrels, _reference_labels(db, "default"))
        assert not stale.exists()
        result_cache.clear_cache()  # now from the labels' parquet cache, hashes included
        cached = label_sets.label_snapshot(db, "default")
        assert list(folder.glob("labels-default-*.parquet"))
        pd.testing.assert_frame_equal(cached.qrels, labels.qrels)
        assert cached.snapshot == label_sets.snapshot_hash(_reference_labels(db, "default"))
    finally:
        db.close()
