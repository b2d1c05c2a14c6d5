"""Every worked example of the two seed documents, with the convention each document uses.

Seed 000 (the product's source document on the metric simulator; its examples are copied
here as numbers): its AP divides by the relevant items found in the top K
(``AP(denom=retrieved)@K``) and its IDCG re-sorts the retrieved grades
(``nDCG(ideal=retrieved)@K``). Seed 001 (the source document on evaluation practice) follows
trec_eval's defaults.

Values are checked both as printed (rounded half up, as the documents round) and, where a
fraction exists, exactly.
"""

from __future__ import annotations

import itertools
import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeling.metrics.engine import evaluate
from labeling.metrics.measures import KINDS


def printed(value: float, digits: int) -> str:
    """``value`` as a document prints it: rounded half up to ``digits`` decimals."""
    return str(Decimal(repr(float(value))).quantize(Decimal(1).scaleb(-digits), ROUND_HALF_UP))


def exact(value: float, fraction: Fraction) -> bool:
    return math.isclose(value, float(fraction), rel_tol=0, abs_tol=1e-12)


def frames(stacks: dict[str, list[int | None]], unretrieved: dict[str, list[int]] | None = None):
    """qrels and run for ranked stacks of grades (None: unlabeled), one stack per query.

    The item at rank i gets score ``len(stack) - i`` so the run order is the stack order.
    ``unretrieved`` adds labeled items the run did not return (e.g. the rest of N relevant).
    """
    qrels, run = [], []
    for query, grades in stacks.items():
        for rank, grade in enumerate(grades, start=1):
            doc = f"{query}-r{rank}"
            run.append((query, doc, float(len(grades) - rank)))
            if grade is not None:
                qrels.append((query, doc, grade))
    for query, grades in (unretrieved or {}).items():
        for i, grade in enumerate(grades):
            qrels.append((query, f"{query}-missed{i}", grade))
    return (
        pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
        pd.DataFrame(run, columns=["query_id", "doc_id", "score"]),
    )


# ---------------------------------------------------------------------------------------------
# Seed 000: "Evaluative Mechanics: Demystifying Retrieval Metrics for RAG"
# ---------------------------------------------------------------------------------------------

# Relevant at ranks 1, 3 and 5 of K=5; N=6 relevant items in the database.
SCREEN = {"q": [1, 0, 1, 0, 1]}
SCREEN_MISSED = {"q": [1, 1, 1]}


def test_seed000_precision_at_5():
    """Three relevant in the top five: Precision@5 = 3/5 = 0.60."""
    qrels, run = frames(SCREEN, SCREEN_MISSED)
    ev = evaluate(qrels, run, ["P@5"])
    value = ev.per_query.loc["q", "P@5"]
    assert printed(value, 2) == "0.60"
    assert exact(value, Fraction(3, 5))
    assert ev.parts.loc["q", "P@5.relevant_retrieved"] == 3


def test_seed000_recall_at_5():
    """N = 6: Recall@5 = 3/6 = 0.50."""
    qrels, run = frames(SCREEN, SCREEN_MISSED)
    ev = evaluate(qrels, run, ["R@5", "Recall@5"])
    for column in ("R@5", "Recall@5"):
        value = ev.per_query.loc["q", column]
        assert printed(value, 2) == "0.50"
        assert exact(value, Fraction(3, 6))
        assert ev.parts.loc["q", f"{column}.relevant_retrieved"] == 3
        assert ev.parts.loc["q", f"{column}.relevant"] == 6


def test_seed000_example_screen():
    """The simulator's binary figures: P 0.60 3/5, R 0.50 3/6, Hit 1, RR 1.00 1/1, AP 0.76."""
    qrels, run = frames(SCREEN, SCREEN_MISSED)
    written = ["P@5", "R@5", "HitRate@5", "RR", "AP(denom=retrieved)@5"]
    ev = evaluate(qrels, run, written)
    row, parts = ev.per_query.loc["q"], ev.parts.loc["q"]

    assert printed(row["P@5"], 2) == "0.60"
    assert (parts["P@5.relevant_retrieved"], 5) == (3, 5)  # "3 / 5"

    assert printed(row["R@5"], 2) == "0.50"
    assert (parts["R@5.relevant_retrieved"], parts["R@5.relevant"]) == (3, 6)  # "3 / 6"

    assert row["HitRate@5"] == 1  # "1"
    assert printed(row["HitRate@5"], 2) == "1.00"

    assert printed(row["RR"], 2) == "1.00"
    assert parts["RR.first_relevant_rank"] == 1  # "1 / 1"

    # "(1.0+0.67+0.6)/3"
    ap = row["AP(denom=retrieved)@5"]
    assert printed(ap, 2) == "0.76"
    assert exact(ap, (Fraction(1) + Fraction(2, 3) + Fraction(3, 5)) / 3)
    assert exact(parts["AP(denom=retrieved)@5.sum_precision"], Fraction(34, 15))
    assert parts["AP(denom=retrieved)@5.denominator"] == 3


def test_seed000_example_screen_ndcg_line():
    """'NDCG@K 0.96, DCG: 3.50 / IDCG: 3.63' is the [3, 0, 1] stack of the NDCG walk-through."""
    qrels, run = frames({"q": [3, 0, 1]})
    name = "nDCG(ideal=retrieved)@3"
    ev = evaluate(qrels, run, [name])
    assert printed(ev.per_query.loc["q", name], 2) == "0.96"
    assert printed(ev.parts.loc["q", f"{name}.dcg"], 2) == "3.50"
    assert printed(ev.parts.loc["q", f"{name}.idcg"], 2) == "3.63"


def test_seed000_average_precision_good_and_bad():
    """AP_Good (ranks 1, 3, 5) = (1.00 + 0.67 + 0.60) / 3 = 0.76; AP_Bad (4, 5) = 0.33."""
    qrels, run = frames({"good": [1, 0, 1, 0, 1], "bad": [0, 0, 0, 1, 1]})
    name = "AP(denom=retrieved)@5"
    ev = evaluate(qrels, run, [name])
    good, bad = ev.per_query.loc["good", name], ev.per_query.loc["bad", name]
    assert printed(good, 2) == "0.76"
    assert exact(good, Fraction(34, 45))
    assert printed(bad, 2) == "0.33"
    assert exact(bad, (Fraction(1, 4) + Fraction(2, 5)) / 2)
    assert exact(ev.parts.loc["bad", f"{name}.sum_precision"], Fraction(13, 20))
    assert ev.parts.loc["bad", f"{name}.denominator"] == 2
    # Its per-rank precisions: P@1 1.00, P@3 0.67, P@5 0.60 and P@4 0.25, P@5 0.40.
    per_rank = evaluate(qrels, run, ["P@1", "P@3", "P@4", "P@5"]).per_query
    assert [printed(per_rank.loc["good", c], 2) for c in ("P@1", "P@3", "P@5")] == [
        "1.00", "0.67", "0.60"]
    assert [printed(per_rank.loc["bad", c], 2) for c in ("P@4", "P@5")] == ["0.25", "0.40"]
    # "MAP successfully penalizes queries that delay relevant results."
    assert good > bad
    assert exact(ev.mean[name], (Fraction(34, 45) + Fraction(13, 40)) / 2)


def test_seed000_hit_rate_over_three_queries():
    """K=3: [✓, ×, ×] → 1, [×, ×, ×] → 0, [×, ✓, ×] → 1; average (1 + 0 + 1) / 3 ≈ 0.67."""
    qrels, run = frames(
        {"q1": [1, 0, 0], "q2": [0, 0, 0], "q3": [0, 1, 0]},
        {"q2": [1]},  # query 2 has a relevant document; it just was not retrieved
    )
    for name in ("Hit@3", "HitRate@3", "Success@3"):
        ev = evaluate(qrels, run, [name])
        assert ev.per_query[name].to_dict() == {"q1": 1.0, "q2": 0.0, "q3": 1.0}
        assert printed(ev.mean[name], 2) == "0.67"
        assert exact(ev.mean[name], Fraction(2, 3))


def test_seed000_hit_rate_query_without_any_relevant_label_counts_as_zero():
    qrels, run = frames({"q1": [1, 0, 0], "q2": [0, 0, 0], "q3": [0, 1, 0]})
    ev = evaluate(qrels, run, ["Hit@3"])
    assert exact(ev.mean["Hit@3"], Fraction(2, 3))


def test_seed000_mrr_of_two_queries():
    """Query A: first relevant at rank 3 (RR 0.33, later hits ignored); B at rank 1 (RR 1.00)."""
    qrels, run = frames({"A": [0, 0, 1, 1, 1], "B": [1, 0, 1, 0, 0]})
    ev = evaluate(qrels, run, ["RR", "MRR"])
    for name in ("RR", "MRR"):
        assert printed(ev.per_query.loc["A", name], 2) == "0.33"
        assert exact(ev.per_query.loc["A", name], Fraction(1, 3))
        assert printed(ev.per_query.loc["B", name], 2) == "1.00"
        assert printed(ev.mean[name], 2) == "0.67"
        assert exact(ev.mean[name], Fraction(2, 3))
    assert ev.parts.loc["A", "RR.first_relevant_rank"] == 3
    assert ev.parts.loc["B", "RR.first_relevant_rank"] == 1


def test_seed000_rr_is_zero_without_a_relevant_document():
    """'If no relevant document is retrieved, the score is 0.'"""
    qrels, run = frames({"q": [0, 0, 0]}, {"q": [1]})
    assert evaluate(qrels, run, ["RR"]).per_query.loc["q", "RR"] == 0


def test_seed000_ndcg_walk_through():
    """[3, 0, 1]: CG 4, DCG 3/1 + 0 + 1/2 = 3.5, ideal [3, 1, 0]: IDCG ≈ 3.63, NDCG ≈ 0.96."""
    qrels, run = frames({"q": [3, 0, 1]})
    name = "nDCG(ideal=retrieved)@3"
    ev = evaluate(qrels, run, ["CG@3", "DCG@3", name])
    row, parts = ev.per_query.loc["q"], ev.parts.loc["q"]
    assert row["CG@3"] == 4
    assert row["DCG@3"] == 3.5
    assert parts[f"{name}.dcg"] == 3.5
    idcg = 3 + 1 / math.log2(3)
    assert parts[f"{name}.idcg"] == pytest.approx(idcg, abs=1e-12)
    assert printed(parts[f"{name}.idcg"], 2) == "3.63"
    assert row[name] == pytest.approx(3.5 / idcg, abs=1e-12)
    assert printed(row[name], 2) == "0.96"


def test_seed000_ideal_list_is_the_retrieved_grades_re_sorted():
    """The simulator's IDCG sorts the retrieved documents; labeled items not retrieved do not
    enter it (trec_eval's default ``ideal=judged`` would count them)."""
    qrels, run = frames({"q": [3, 0, 1]}, {"q": [3, 2]})
    name = "nDCG(ideal=retrieved)@3"
    ev = evaluate(qrels, run, [name, "nDCG@3"])
    assert printed(ev.parts.loc["q", f"{name}.idcg"], 2) == "3.63"
    assert printed(ev.per_query.loc["q", name], 2) == "0.96"
    judged_idcg = 3 + 3 / math.log2(3) + 2 / 2
    assert ev.parts.loc["q", "nDCG@3.idcg"] == pytest.approx(judged_idcg, abs=1e-12)
    assert ev.per_query.loc["q", "nDCG@3"] < ev.per_query.loc["q", name]


def test_seed000_cg_ignores_order():
    """'If you shuffle the list to [0, 1, 3], the CG remains 4' (DCG does change)."""
    qrels, run = frames({"a": [3, 0, 1], "b": [0, 1, 3]})
    ev = evaluate(qrels, run, ["CG@3", "DCG@3", "nDCG(ideal=retrieved)@3"])
    assert ev.per_query.loc["a", "CG@3"] == ev.per_query.loc["b", "CG@3"] == 4
    assert ev.per_query.loc["b", "DCG@3"] == pytest.approx(1 / math.log2(3) + 3 / 2, abs=1e-12)
    assert ev.per_query.loc["b", "DCG@3"] < ev.per_query.loc["a", "DCG@3"]
    assert ev.per_query.loc["b", "nDCG(ideal=retrieved)@3"] < 1


def test_seed000_perfect_ranking_scores_one():
    """'A perfect ranking scores 1.0.'"""
    qrels, run = frames({"q": [3, 1, 0]})
    ev = evaluate(qrels, run, ["nDCG(ideal=retrieved)@3", "nDCG@3", "nDCG"])
    assert (ev.per_query.loc["q"] == 1.0).all()


def test_seed000_graded_labels_map_to_binary_relevance():
    """'Scores of 1, 2 and 3 are mapped to relevant (1) for binary metrics, 0 to irrelevant.'"""
    graded_q, graded_r = frames({"q": [3, 0, 1, 2, 0]})
    binary_q, binary_r = frames({"q": [1, 0, 1, 1, 0]})
    written = ["P@5", "R@5", "Hit@5", "RR", "AP(denom=retrieved)@5", "AP"]
    graded = evaluate(graded_q, graded_r, written).per_query
    binary = evaluate(binary_q, binary_r, written).per_query
    pd.testing.assert_frame_equal(graded, binary)
    assert exact(graded.loc["q", "P@5"], Fraction(3, 5))


def test_seed000_knowledge_check_swap_ranks_2_and_5():
    """Swapping ranks 2 and 5 changes MAP and NDCG, not Precision@5, Recall@5, Hit Rate@5."""
    before = [3, 2, 0, 1, 0]
    after = [3, 0, 0, 1, 2]
    qrels, run = frames({"before": before, "after": after}, {"before": [1], "after": [1]})
    insensitive = ["P@5", "R@5", "Hit@5", "CG@5"]
    sensitive = ["AP", "AP(denom=retrieved)@5", "nDCG@5", "nDCG(ideal=retrieved)@5", "DCG@5"]
    ev = evaluate(qrels, run, insensitive + sensitive).per_query
    for name in insensitive:
        assert ev.loc["before", name] == ev.loc["after", name], name
    for name in sensitive:
        assert ev.loc["before", name] > ev.loc["after", name], name


def test_seed000_formulas_on_a_sample_list():
    """The 'How are these values calculated?' formulas, term by term, on one graded list."""
    grades = [2, 0, 3, 1, 0, 1]
    qrels, run = frames({"q": grades}, {"q": [2, 0]})
    k = 5
    top = grades[:k]
    rel = [int(g >= 1) for g in top]
    n_relevant = sum(g >= 1 for g in grades) + 1
    written = [f"P@{k}", f"R@{k}", f"Hit@{k}", "RR", f"AP(denom=retrieved)@{k}",
               f"nDCG(ideal=retrieved)@{k}", f"DCG@{k}", f"CG@{k}"]
    row = evaluate(qrels, run, written).per_query.loc["q"]
    dcg = sum(g / math.log2(i + 1) for i, g in enumerate(top, start=1))
    idcg = sum(g / math.log2(i + 1) for i, g in enumerate(sorted(top, reverse=True), start=1))
    precisions = [sum(rel[:i]) / i for i in range(1, k + 1)]
    expected = {
        f"P@{k}": sum(rel) / k,
        f"R@{k}": sum(rel) / n_relevant,
        f"Hit@{k}": float(sum(rel) > 0),
        "RR": 1 / (rel.index(1) + 1),
        f"AP(denom=retrieved)@{k}": sum(p * r for p, r in zip(precisions, rel, strict=True))
        / sum(rel),
        f"nDCG(ideal=retrieved)@{k}": dcg / idcg,
        f"DCG@{k}": dcg,
        f"CG@{k}": sum(top),
    }
    for name, value in expected.items():
        assert row[name] == pytest.approx(value, abs=1e-12), name


@settings(max_examples=60, deadline=None)
@given(
    grades=st.lists(st.integers(0, 3), min_size=1, max_size=8),
    k=st.integers(1, 8),
    data=st.data(),
)
def test_seed000_order_insensitive_within_top_k(grades, k, data):
    """'Precision@K and Recall@K are order-insensitive within the top K ... If you shuffle the
    stack positions, the final calculations remain exactly the same' (so are Hit Rate and CG,
    the registry's other order-insensitive kinds)."""
    k = min(k, len(grades))
    shuffled = data.draw(st.permutations(grades[:k])) + grades[k:]
    qrels, run = frames({"a": grades, "b": shuffled}, {"a": [1], "b": [1]})
    names = [f"{kind.name}@{k}" for kind in KINDS.values() if not kind.order_sensitive]
    assert {"P", "R", "Success", "CG"} <= {name.split("@")[0] for name in names}
    ev = evaluate(qrels, run, names).per_query
    for name in names:
        assert ev.loc["a", name] == ev.loc["b", name], name


def test_seed000_order_sensitive_kinds_are_order_sensitive():
    """The registry's order-sensitive kinds each change on some reordering of the top K."""
    grades = [0, 0, 1, 2]
    orders = list(itertools.permutations(grades))
    stacks = {f"o{i}": list(order) for i, order in enumerate(orders)}
    qrels, run = frames(stacks, {name: [1] for name in stacks})
    names = [f"{kind.name}@4" if kind.cutoff != "none" else kind.name
             for kind in KINDS.values() if kind.order_sensitive]
    ev = evaluate(qrels, run, names).per_query
    for name in names:
        assert ev[name].nunique() > 1, name


# ---------------------------------------------------------------------------------------------
# Seed 001: "Retrieval Evaluation Metrics: What to Measure and When" (trec_eval defaults)
# ---------------------------------------------------------------------------------------------


def seed001_frames():
    """Three relevant chunks A, B, C; five returned; relevant at ranks 2 and 4 (C is missed)."""
    qrels = pd.DataFrame(
        [("q", "A", 1), ("q", "B", 1), ("q", "C", 1), ("q", "x1", 0), ("q", "x3", 0)],
        columns=["query_id", "doc_id", "relevance"],
    )
    run = pd.DataFrame(
        {"query_id": "q", "doc_id": ["x1", "A", "x2", "B", "x3"],
         "score": [5.0, 4.0, 3.0, 2.0, 1.0]}
    )
    return qrels, run


SEED001 = ["P@5", "R@5", "RR", "MRR", "AP", "MAP", "nDCG@5", "DCG@5"]


def test_seed001_worked_example():
    qrels, run = seed001_frames()
    ev = evaluate(qrels, run, SEED001)
    row = ev.per_query.loc["q"]
    assert printed(row["P@5"], 2) == "0.40"
    assert exact(row["P@5"], Fraction(2, 5))
    assert printed(row["R@5"], 3) == "0.667"
    assert exact(row["R@5"], Fraction(2, 3))
    for name in ("RR", "MRR"):
        assert printed(row[name], 1) == "0.5"
        assert exact(row[name], Fraction(1, 2))
    for name in ("AP", "MAP"):
        assert printed(row[name], 3) == "0.333"
        assert exact(row[name], (Fraction(1, 2) + Fraction(2, 4)) / 3)
    assert printed(row["nDCG@5"], 3) == "0.498"
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    idcg = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert row["nDCG@5"] == pytest.approx(dcg / idcg, abs=1e-12)
    assert ev.mean["nDCG@5"] == row["nDCG@5"]


def test_seed001_dcg_line():
    """1/log2(3) ≈ 0.631 and 1/log2(5) ≈ 0.431 sum to 1.062; ideal 1 + 0.631 + 0.5 = 2.131."""
    qrels, run = seed001_frames()
    ev = evaluate(qrels, run, ["nDCG@5", "DCG@5"])
    assert printed(1 / math.log2(3), 3) == "0.631"
    assert printed(1 / math.log2(5), 3) == "0.431"
    assert printed(ev.per_query.loc["q", "DCG@5"], 3) == "1.062"
    assert printed(ev.parts.loc["q", "nDCG@5.dcg"], 3) == "1.062"
    assert printed(ev.parts.loc["q", "nDCG@5.idcg"], 3) == "2.131"
    assert ev.parts.loc["q", "nDCG@5.dcg"] == ev.per_query.loc["q", "DCG@5"]


def test_seed001_map_is_lowest():
    """'MAP is lowest because it punishes both the missing chunk and the late arrivals.'"""
    qrels, run = seed001_frames()
    row = evaluate(qrels, run, SEED001).per_query.loc["q"]
    others = ["P@5", "R@5", "RR", "nDCG@5"]
    assert all(row["AP"] < row[name] for name in others)


def test_seed001_agrees_with_trec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = seed001_frames()
    oracle = pytrec_eval.RelevanceEvaluator(
        {"q": {d: int(g) for d, g in zip(qrels.doc_id, qrels.relevance, strict=True)}},
        {"P", "recall", "recip_rank", "map", "ndcg_cut"},  # default cutoffs include 5
    ).evaluate({"q": dict(zip(run.doc_id, run.score, strict=True))})["q"]
    row = evaluate(qrels, run, SEED001).per_query.loc["q"]
    mapping = {"P_5": "P@5", "recall_5": "R@5", "recip_rank": "RR", "map": "AP",
               "ndcg_cut_5": "nDCG@5"}
    for theirs, ours in mapping.items():
        assert row[ours] == pytest.approx(oracle[theirs], abs=1e-12), ours


@pytest.mark.parametrize(("rank", "expected"), [(1, "1"), (2, "0.5"), (4, "0.25")])
def test_seed001_reciprocal_rank_examples(rank, expected):
    """'At rank 1 the score is 1, at rank 2 it is 0.5, at rank 4 it is 0.25.'"""
    qrels, run = frames({"q": [0] * (rank - 1) + [1, 1]})
    value = evaluate(qrels, run, ["RR"]).per_query.loc["q", "RR"]
    assert value == float(Fraction(expected))
    assert exact(value, Fraction(1, rank))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(-1, 3)), min_size=1, max_size=10),
       st.lists(st.integers(-1, 3), min_size=1, max_size=4))
def test_seed001_scores_run_from_zero_to_one(grades, missed):
    """MRR 'scores run from 0 to 1'; NDCG 'gives a score from 0 to 1' (so do the others)."""
    qrels, run = frames({"q": grades}, {"q": missed})
    names = ["P@5", "R@5", "Hit@5", "RR", "RR@3", "AP", "AP@5", "AP(denom=retrieved)", "nDCG",
             "nDCG@5", "nDCG(gain=exp)@5", "nDCG(ideal=retrieved)@5", "Rprec", "Judged@5"]
    ev = evaluate(qrels, run, names).per_query
    assert ((ev >= 0) & (ev <= 1 + 1e-12)).all().all()
