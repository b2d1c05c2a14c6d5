"""The audit sample: stored probabilities that meet the budget, a nested draw per query, the
pairs queued, and blind judging (nobody sees a machine grade of a pair waiting for them)."""

from __future__ import annotations

import numpy as np
import pytest

from labeling.errors import ScorecardError
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.views import drilldown
from labeling.judging import queue, visibility
from labeling.machine_judging import audit_sample as audit
from labeling.workspace import roles
from tests import machine_rows as rows

JUDGE = "tiny@v1"
GRADES = {"dedent": 3, "copytree": 0, "makedirs": 1, "glob": 2}


def machine_labels(pairs=rows.PAIRS) -> list[tuple]:
    return [(q, c, GRADES[c], JUDGE, {"origin": "machine", "origin_source": JUDGE})
            for q, c in pairs]


@pytest.fixture
def db(make_workspace):
    return make_workspace(chunks=rows.CHUNKS, queries=rows.QUERIES, runs=rows.RUNS,
                          judgments=[("q-indent", "dedent", 3, "ada"), *machine_labels()])


def test_the_universe_orders_known_pairs_first_then_by_weight(db):
    universe = audit.plan_universe(db, JUDGE, runs=["lexical", "dense"], relevance=2)
    assert len(universe) == len(rows.PAIRS) and universe["position"].min() == 1
    first = universe.loc[universe["query_id"] == "q-indent"]
    assert first.iloc[0]["chunk_id"] == "dedent" and first.iloc[0]["known"]
    assert first.iloc[0]["weight"] == 0
    for _, group in universe.groupby("query_id"):
        open_ = group.loc[~group["known"], "weight"].to_numpy()
        assert (np.diff(open_) <= 0).all() and (open_ > 0).all()
    # Rank 1 near the threshold (grade 1 or 2 with threshold 2) weighs double rank 1 elsewhere.
    assert audit.weights(np.array([1.0, 1.0, np.nan, 3.0]), np.array([2, 3, 1, 0]), 2) == \
        pytest.approx([2.0, 1.0, 2.0 / np.log2(1 + audit.RANK_CAP), 0.5])


def test_a_draw_stores_its_probabilities_and_queues_the_audited_pairs(db):
    draw = audit.draw_audit(db, JUDGE, 5, runs=["lexical"], relevance=1, seed=3,
                            created_by="ada")
    pairs = audit.sample_pairs(db, draw.sample_id)
    assert (draw.pairs, draw.known, draw.machine_only) == (16, 1, 15)
    assert pairs.loc[~pairs["known"], "inclusion"].sum() == pytest.approx(5)
    assert draw.asked == draw.drawn == 5
    assert pairs.loc[pairs["known"], "inclusion"].eq(1).all()
    for _, group in pairs.groupby("query_id"):
        assert (np.diff(group["inclusion"].to_numpy()) <= 1e-12).all()
        taken = group["sampled"].to_numpy()
        assert (np.diff(taken.astype(int)) <= 0).all()  # a prefix of the audit order
    audited = pairs.loc[pairs["sampled"] & ~pairs["known"]]
    assert len(audited) == draw.drawn == draw.queued
    queued = set(db.conn.execute("SELECT query_id, chunk_id FROM label_queue"
                                 " WHERE reason = 'audit'").fetchall())
    assert queued == set(zip(audited["query_id"], audited["chunk_id"], strict=True))
    machine = pairs.set_index("chunk_id").loc[lambda f: f["query_id"] == "q-tree",
                                              "machine_grade"]
    assert machine.to_dict() == GRADES  # the machine's grade at draw time, kept
    assert audit.audit_progress(db, draw.sample_id).waiting == draw.drawn
    again = audit.draw_audit(db, JUDGE, 5, runs=["lexical"], relevance=1, seed=3)
    assert audit.sample_pairs(db, again.sample_id)["sampled"].equals(pairs["sampled"])


def test_the_nested_draw_audits_each_pair_with_its_stored_probability(db):
    universe = audit.plan_universe(db, JUDGE, runs=["lexical", "dense"], relevance=1)
    taken = np.zeros(len(universe))
    draws = 600
    for seed in range(draws):
        drawn = audit.design(universe, 4, seed)
        assert drawn.loc[~drawn["known"], "sampled"].sum() == 4  # exactly the budget
        taken += drawn["sampled"].to_numpy()
    inclusion = audit.design(universe, 4, 0)["inclusion"].to_numpy()
    assert taken / draws == pytest.approx(inclusion, abs=0.065)  # 3 standard errors


def test_the_budget_is_shared_by_segment(db):
    universe = audit.plan_universe(db, JUDGE, runs=["lexical"], relevance=1)
    segments = {q["id"]: q["topic"] for q in rows.QUERIES}
    drawn = audit.design(universe, 6, 0, segments)
    open_ = drawn.loc[~drawn["known"]]
    per_topic = open_.groupby(open_["query_id"].map(segments))["inclusion"].sum()
    # 3 of the 15 machine-only pairs are about text, 12 about files: 6 * 3/15 = 1.2 and
    # 6 * 12/15 = 4.8 in whole pairs, 1 and 5.
    assert per_topic.to_dict() == pytest.approx({"text": 1, "files": 5})
    taken = open_.loc[open_["sampled"]].groupby(open_["query_id"].map(segments)).size()
    assert taken.to_dict() == {"text": 1, "files": 5}


def test_people_judging_the_audit_never_see_the_machine_grade(db, make_workspace):
    queue.enqueue_pairs(db, [("q-tree", "glob")], reason="pool")  # waiting before the draw
    assert queue.next_card(db, "carol", lease=False).pair == ("q-tree", "glob")
    draw = audit.draw_audit(db, JUDGE, 15, runs=["lexical"], relevance=1, seed=0)
    assert draw.drawn == 15  # the budget covers every machine-only pair
    # Audit pairs are served from the audit queue only, not mixed into the labeling queue.
    assert queue.next_card(db, "carol") is None
    assert queue.progress(db, "carol").pooled == 0
    assert queue.progress(db, "carol", queue.AUDIT).left_for_me == 15
    # The local user of a workspace without accounts sees everything but this.
    card = queue.next_card(db, "carol", queue_name=queue.AUDIT)
    history = queue.pair_history(db, card.query_id, card.chunk_id)
    assert any(r["origin"] == "machine" for r in history)
    seen = visibility.sight(db, "carol", None, query_id=card.query_id)
    shown = visibility.visible_judgments(history, seen)
    assert not any(r["origin"] == "machine" for r in shown)
    # Scores on machine labels hide the waiting pairs' grades in the drill-down too.
    controls = Controls("lexical", label_source="machine", judge=JUDGE)
    ranked, _ = drilldown.drill_down(db, controls, card.query_id, sight=seen.hiding_waiting())
    assert (ranked.set_index("chunk_id").loc[card.chunk_id, "grade_name"]
            == drilldown.HIDDEN)
    # Once carol has judged it, the pair no longer waits for her: the machine's grade shows.
    queue.save_judgment(db, card.query_id, card.chunk_id, 2, "carol")
    seen = visibility.sight(db, "carol", None, query_id=card.query_id)
    assert any(r["origin"] == "machine" for r in visibility.visible_judgments(
        queue.pair_history(db, card.query_id, card.chunk_id), seen))
    assert audit.audit_progress(db, draw.sample_id).judged == 1
    assert queue.progress(db, "carol", queue.AUDIT).mine == 1


def test_an_admin_does_not_see_it_either(make_workspace, fast_hashes):
    db = make_workspace(chunks=rows.CHUNKS, queries=rows.QUERIES, runs=rows.RUNS,
                        judgments=machine_labels(rows.PAIRS[:4]),
                        accounts={"ada": "admin", "bob": "annotator"})
    with roles.acting_as("ada"):
        audit.draw_audit(db, JUDGE, 4, runs=["lexical"], relevance=1)
    for name, role in (("ada", "admin"), ("bob", "annotator")):
        history = queue.pair_history(db, "q-indent", "dedent")
        seen = visibility.sight(db, name, role, query_id="q-indent")
        assert visibility.visible_judgments(history, seen) == []


def test_a_viewer_cannot_draw_and_a_judge_without_labels_is_refused(make_workspace,
                                                                     fast_hashes):
    db = make_workspace(chunks=rows.CHUNKS, queries=rows.QUERIES, runs=rows.RUNS,
                        judgments=machine_labels(rows.PAIRS[:2]),
                        accounts={"ada": "admin", "vic": "viewer"})
    with roles.acting_as("vic"), pytest.raises(roles.AccessDenied, match="audit sample"):
        audit.draw_audit(db, JUDGE, 1, runs=["lexical"], relevance=1)
    with pytest.raises(ScorecardError, match="no labels to audit"):
        audit.draw_audit(db, "nobody@v0", 1, runs=["lexical"], relevance=1)
    with pytest.raises(ScorecardError, match="above 0"):
        audit.draw_audit(db, JUDGE, 0, runs=["lexical"], relevance=1)
    with pytest.raises(ScorecardError, match="whole number"):
        audit.draw_audit(db, JUDGE, 2.5, runs=["lexical"], relevance=1)


def test_the_audit_is_drawn_at_its_exact_size(db):
    """Issue 30 (8): the budget is the number of pairs drawn, whatever the seed (it used to
    be an expected size)."""
    for seed in range(12):
        draw = audit.draw_audit(db, JUDGE, 6, runs=["lexical"], relevance=1, seed=seed)
        pairs = audit.sample_pairs(db, draw.sample_id)
        assert draw.drawn == 6 == int((pairs["sampled"] & ~pairs["known"]).sum())
        assert pairs.loc[~pairs["known"], "inclusion"].sum() == pytest.approx(6)
        assert "6 pair(s) to verify among 15 machine-only pair(s)" in draw.summary()


def test_exact_draws_take_prefixes_with_their_stated_probabilities():
    """The exact-size nested draw: a prefix per query, the size always the one asked, and each
    pair audited as often as its conditional probability says (3 standard errors)."""
    from labeling.metrics import prediction_powered as ppi

    rng = np.random.default_rng(1)
    first = np.sort(rng.random((6, 4)), axis=1)[:, ::-1]
    first[0, 2:] = 0
    size = int(round(first.sum()))
    counts, draws = np.zeros_like(first), 4000
    for seed in range(draws):
        drawn = ppi.draw_exact(first, size, np.random.default_rng(seed))
        assert drawn.sizes.sum() == size and drawn.size == size
        counts += np.arange(first.shape[1]) < drawn.sizes[:, None]
    assert drawn.inclusion.sum() == pytest.approx(size)
    assert (drawn.inclusion[0, 2:] == 0).all()
    error = 3 * np.sqrt(drawn.inclusion * (1 - drawn.inclusion) / draws) + 1e-9
    assert (np.abs(counts / draws - drawn.inclusion) <= error).all()
    # Queries of two pairs with equal probabilities: only even sizes exist.
    even = ppi.draw_exact(np.full((3, 2), 0.5), 3, np.random.default_rng(0))
    assert (even.size, even.asked) == (2, 3) and even.sizes.sum() == 2
