"""Property tests: the engine against trec_eval (through pytrec_eval) and a plain reference.

pytrec_eval wraps trec_eval 9.0.8, which reads scores as float32: every score drawn here is a
multiple of 0.25, exact in float32, so a tie means the same thing to both sides. Ties are
frequent on purpose, and doc ids mix lengths, cases and digits so that trec_eval's tie-break
(doc id descending, byte order) decides ranks.

pytrec_eval only reports queries that are both labeled and in the run; a labeled query missing
from the run scores 0 in our default mean (``trec_eval -c``) and is left out with
``missing="skip"`` (trec_eval without ``-c``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labeling.metrics.engine import evaluate
from labeling.metrics.measures import Measure, parse_measure

pytrec_eval = pytest.importorskip("pytrec_eval")

TOL = 1e-9
DOC_IDS = ("d9", "d10", "d1", "D1", "d01", "a", "B", "b", "A", "10", "9", "100", "x_2", "x-2",
           "Doc7", "doc7", "é", "zz", "Z")
QUERY_IDS = ("q1", "q2", "Q1", "10", "9", "q10")
SCORES = tuple(i / 4 for i in range(0, 21))  # 0, 0.25, ..., 5.0 (float32-exact)

# pytrec_eval keeps state in trec_eval's globals across evaluators. Seen here: its uncut
# ``ndcg`` hangs inside ``evaluate`` when a second evaluator is built over the same graded qrels
# (e.g. one with a query whose only label is -1), so nDCG is compared with ``ndcg_cut_1000``,
# the same number for lists and label sets this short. Custom cutoffs ("P.1,2,3") are avoided
# as well; cutoffs 1-3 are checked against the plain reference below.
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
SUCCESS_CUTOFFS = (1, 5, 10)


def trec_measures(rel: int) -> list[tuple[str, str]]:
    """(trec_eval measure, ours) pairs; binary ones take rel, ndcg ignores trec_eval's -l."""
    suffix = "" if rel == 1 else f"(rel={rel})"
    out = {"recip_rank": f"RR{suffix}", "map": f"AP{suffix}", "Rprec": f"Rprec{suffix}"}
    for k in TREC_CUTOFFS:
        out[f"P_{k}"] = f"P{suffix}@{k}"
        out[f"recall_{k}"] = f"R{suffix}@{k}"
        out[f"map_cut_{k}"] = f"AP{suffix}@{k}"
        out[f"ndcg_cut_{k}"] = f"nDCG@{k}"
    for k in SUCCESS_CUTOFFS:
        out[f"success_{k}"] = f"Success{suffix}@{k}"
    return [*out.items(), ("ndcg_cut_1000", "nDCG")]  # uncut nDCG: see above



def trec_spec() -> set[str]:
    return {"P", "recall", "success", "map_cut", "ndcg_cut", "recip_rank", "map", "Rprec"}


def to_frames(qrels: dict, run: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    qrels_df = pd.DataFrame(
        [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
        columns=["query_id", "doc_id", "relevance"],
    )
    run_df = pd.DataFrame(
        [(q, d, s) for q, docs in run.items() for d, s in docs.items()],
        columns=["query_id", "doc_id", "score"],
    )
    return qrels_df, run_df


@st.composite
def datasets(draw):
    """(qrels, run) as ``{query: {doc: grade}}`` and ``{query: {doc: score}}``."""
    queries = draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=5, unique=True))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for query in queries:
        role = draw(st.sampled_from(["both", "both", "both", "qrels only", "run only"]))
        if role != "run only":
            docs = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=10, unique=True))
            # Some queries have no relevant label at all.
            top = draw(st.sampled_from([0, 3, 3, 3]))
            qrels[query] = {d: draw(st.integers(-1, top)) for d in docs}
        if role != "qrels only":
            docs = draw(st.lists(st.sampled_from(DOC_IDS), min_size=1, max_size=14, unique=True))
            run[query] = {d: draw(st.sampled_from(SCORES[: draw(st.integers(1, 21))]))
                          for d in docs}
    if not qrels:
        qrels[queries[0]] = {"d1": 1}
    return qrels, run


def trec_judged_qrels(qrels: dict) -> dict:
    """Negative grades as 0: judged and not relevant, also to ``trec_eval -J``."""
    return {q: {d: max(g, 0) for d, g in docs.items()} for q, docs in qrels.items()}


def check_against_trec_eval(qrels: dict, run: dict, rel: int, judged_only: bool) -> None:
    names = trec_measures(rel)
    qrels_df, run_df = to_frames(qrels, run)
    written = [name for _, name in names]
    ours = evaluate(qrels_df, run_df, written, judged_only=judged_only)
    skipped = evaluate(qrels_df, run_df, written, judged_only=judged_only,
                       missing="skip")
    # trec_eval -J drops a negative grade as if unjudged (its "not in the pool" sentinel is -1);
    # ours keeps it judged, as documented. Grade 0 means the same to every measure here.
    trec_qrels = trec_judged_qrels(qrels) if judged_only else qrels
    theirs = pytrec_eval.RelevanceEvaluator(
        trec_qrels, trec_spec(), relevance_level=rel, judged_docs_only_flag=judged_only
    ).evaluate(run)

    labeled = set(qrels)
    answered = set(theirs)
    assert answered <= labeled
    assert set(ours.per_query.index) == labeled
    # With judged_only, trec_eval -J also keeps a query whose results are all unjudged.
    assert set(skipped.per_query.index) == answered, "missing='skip' keeps trec_eval's queries"
    for trec_name, name in names:
        for query in labeled:
            want = theirs[query][trec_name] if query in answered else 0.0
            got = ours.per_query.loc[query, name]
            assert abs(got - want) <= TOL, (name, query, got, want)
        zero_mean = sum(theirs[q][trec_name] for q in answered) / len(labeled)
        assert abs(ours.mean[name] - zero_mean) <= TOL, (name, "mean", ours.mean[name], zero_mean)
        if answered:
            skip_mean = sum(theirs[q][trec_name] for q in answered) / len(answered)
            assert abs(skipped.mean[name] - skip_mean) <= TOL, (name, "skip mean")
        for query in answered:
            assert skipped.per_query.loc[query, name] == ours.per_query.loc[query, name]


@settings(max_examples=60, deadline=None)
@given(datasets(), st.sampled_from([1, 2]))
def test_matches_trec_eval(data, rel):
    qrels, run = data
    check_against_trec_eval(qrels, run, rel, judged_only=False)


def test_skip_keeps_queries_whose_results_are_all_unjudged():
    """``trec_eval -J`` without ``-c`` averages over every labeled query in the run, including
    one whose results are all unjudged (it scores 0): the run did answer it."""
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 1.0}, "q2": {"x": 1.0}}
    theirs = pytrec_eval.RelevanceEvaluator(
        qrels, {"map"}, judged_docs_only_flag=True).evaluate(run)
    assert theirs == {"q1": {"map": 1.0}, "q2": {"map": 0.0}}
    qrels_df, run_df = to_frames(qrels, run)
    ev = evaluate(qrels_df, run_df, ["AP"], judged_only=True, missing="skip")
    assert ev.per_query["AP"].to_dict() == {"q1": 1.0, "q2": 0.0}
    assert ev.mean["AP"] == 0.5


def test_judged_only_keeps_negative_grades():
    """A negative grade is a judgment ('judged, not relevant'), so ``judged_only`` keeps it.

    trec_eval 9.0.8's ``-J`` differs here: it stores "unjudged" as grade -1, so it drops items
    labeled -1 too (pinned below, so that a change on either side is noticed).
    """
    qrels = {"q": {"neg": -1, "rel": 1}}
    run = {"q": {"neg": 2.0, "unjudged": 1.5, "rel": 1.0}}
    qrels_df, run_df = to_frames(qrels, run)
    ev = evaluate(qrels_df, run_df, ["RR", "Judged@2"], judged_only=True)
    assert ev.per_query.loc["q", "RR"] == 0.5
    assert ev.per_query.loc["q", "Judged@2"] == 1.0
    theirs = pytrec_eval.RelevanceEvaluator(
        qrels, {"recip_rank"}, judged_docs_only_flag=True).evaluate(run)
    assert theirs["q"]["recip_rank"] == 1.0
    clamped = pytrec_eval.RelevanceEvaluator(
        trec_judged_qrels(qrels), {"recip_rank"}, judged_docs_only_flag=True).evaluate(run)
    assert clamped["q"]["recip_rank"] == 0.5


@settings(max_examples=60, deadline=None)
@given(datasets(), st.sampled_from([1, 2]))
def test_matches_trec_eval_judged_only(data, rel):
    qrels, run = data
    check_against_trec_eval(qrels, run, rel, judged_only=True)


def random_dataset(seed: int, n_queries: int = 300, depth: int = 100):
    rng = np.random.default_rng(seed)
    pool = np.array(
        [f"d{i}" for i in range(400)] + [f"D{i}" for i in range(100)]
        + [str(i) for i in range(100)] + [f"doc-{i:04d}" for i in range(100)]
    )
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for i in range(n_queries):
        query = f"q{i}" if i % 7 else str(i)
        role = rng.random()
        if role < 0.9:  # labeled
            n = int(rng.integers(1, 60))
            docs = rng.choice(pool, size=n, replace=False)
            top = 0 if rng.random() < 0.1 else 3
            grades = rng.integers(-1, top + 1, size=n)
            qrels[query] = {str(d): int(g) for d, g in zip(docs, grades, strict=True)}
        if role > 0.05:  # in the run (5% labeled only; 10% run only)
            n = int(rng.integers(1, depth + 1))
            docs = rng.choice(pool, size=n, replace=False)
            levels = int(rng.integers(1, 40))
            scores = rng.integers(0, levels, size=n) / 4
            run[query] = {str(d): float(s) for d, s in zip(docs, scores, strict=True)}
    return qrels, run


@pytest.mark.parametrize("judged_only", [False, True])
@pytest.mark.parametrize("rel", [1, 2])
def test_large_random_dataset(rel, judged_only):
    qrels, run = random_dataset(20240611)
    check_against_trec_eval(qrels, run, rel, judged_only)


# ---------------------------------------------------------------------------------------------
# A deliberately plain reference, one query at a time, for what trec_eval cannot check
# ---------------------------------------------------------------------------------------------


def ranking(labels: dict[str, int], scored: dict[str, float], judged_only: bool) -> list[str]:
    """Doc ids by score descending, ties by doc id descending in byte order."""
    docs = [d for d in scored if d in labels or not judged_only]
    return sorted(docs, key=lambda d: (scored[d], d.encode("utf-8")), reverse=True)


def gain(grade: int | None, kind: str) -> float:
    if grade is None or grade <= 0:
        return 0.0
    return float(grade) if kind == "linear" else 2.0**grade - 1


def dcg(gains: list[float]) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def reference_value(m: Measure, labels: dict[str, int], ranked: list[str]) -> float:
    k = m.cutoff if m.cutoff is not None else len(ranked)
    top = ranked[:k]
    grades = [labels.get(d) for d in top]
    relevant = [g is not None and g >= m.rel for g in grades]
    n_relevant = sum(1 for g in labels.values() if g >= m.rel)
    if m.kind == "P":
        return sum(relevant) / m.cutoff
    if m.kind == "R":
        return sum(relevant) / n_relevant if n_relevant else 0.0
    if m.kind == "Success":
        return 1.0 if any(relevant) else 0.0
    if m.kind == "RR":
        for i, hit in enumerate(relevant):
            if hit:
                return 1 / (i + 1)
        return 0.0
    if m.kind == "AP":
        total, seen = 0.0, 0
        for i, hit in enumerate(relevant):
            if hit:
                seen += 1
                total += seen / (i + 1)
        denominator = n_relevant if m.param("denom") == "relevant" else seen
        return total / denominator if denominator else 0.0
    if m.kind == "Rprec":
        found = [labels.get(d) for d in ranked[:n_relevant]]
        return sum(1 for g in found if g is not None and g >= m.rel) / n_relevant \
            if n_relevant else 0.0
    kind = str(m.param("gain")) if m.kind in ("nDCG", "DCG", "CG") else "linear"
    gains = [gain(g, kind) for g in grades]
    if m.kind == "CG":
        return sum(gains)
    if m.kind == "DCG":
        return dcg(gains)
    if m.kind == "nDCG":
        if m.param("ideal") == "judged":
            ideal = sorted((gain(g, kind) for g in labels.values()), reverse=True)
            if m.cutoff is not None:
                ideal = ideal[: m.cutoff]
        else:
            ideal = sorted(gains, reverse=True)
        best = dcg(ideal)
        return dcg(gains) / best if best > 0 else 0.0
    if m.kind == "Judged":
        return sum(1 for g in grades if g is not None) / m.cutoff
    raise AssertionError(m.kind)


REFERENCE_MEASURES = [
    "RR@1", "RR@3", "RR(rel=2)@2", "RR@10",
    "Judged@1", "Judged@3", "Judged@10",
    "CG@1", "CG@3", "CG(gain=exp)@5",
    "DCG@2", "DCG@5", "DCG(gain=exp)@3",
    "nDCG(gain=exp)@3", "nDCG(gain=exp)@10", "nDCG(gain=exp)",
    "AP(denom=retrieved)", "AP(denom=retrieved)@3", "AP(rel=2,denom=retrieved)@5",
    "nDCG(ideal=retrieved)", "nDCG(ideal=retrieved)@3", "nDCG(gain=exp,ideal=retrieved)@5",
    # and the ones trec_eval checks, to keep the reference honest
    "P@3", "P(rel=2)@5", "R@5", "Success@2", "RR", "AP", "AP@5", "nDCG", "nDCG@3", "Rprec",
    "Rprec(rel=2)",
    # the small cutoffs the trec_eval comparison leaves out
    "P@1", "P@2", "P(rel=2)@3", "R@1", "R(rel=2)@2", "R@3", "Success@3", "Success(rel=2)@2",
    "AP@1", "AP@2", "AP(rel=2)@3", "nDCG@1", "nDCG@2", "P@20", "R@20", "AP@20", "nDCG@20",
]


def check_against_reference(qrels: dict, run: dict, judged_only: bool) -> None:
    qrels_df, run_df = to_frames(qrels, run)
    ours = evaluate(qrels_df, run_df, REFERENCE_MEASURES, judged_only=judged_only)
    assert set(ours.per_query.index) == set(qrels)
    for name in REFERENCE_MEASURES:
        m = parse_measure(name)
        expected = {
            q: reference_value(m, labels, ranking(labels, run.get(q, {}), judged_only))
            for q, labels in qrels.items()
        }
        for query, want in expected.items():
            got = ours.per_query.loc[query, name]
            assert abs(got - want) <= TOL, (name, query, got, want)
        mean = sum(expected.values()) / len(expected)
        assert abs(ours.mean[name] - mean) <= TOL, (name, "mean")


@settings(max_examples=60, deadline=None)
@given(datasets(), st.booleans())
def test_matches_reference(data, judged_only):
    qrels, run = data
    check_against_reference(qrels, run, judged_only)


def test_reference_agrees_on_large_random_dataset():
    qrels, run = random_dataset(7, n_queries=120, depth=60)
    check_against_reference(qrels, run, judged_only=False)
    check_against_reference(qrels, run, judged_only=True)


def test_reference_matches_trec_eval_on_a_sample():
    """The reference itself agrees with trec_eval where both apply."""
    qrels, run = random_dataset(3, n_queries=40, depth=30)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, trec_spec()).evaluate(run)
    for trec_name, name in trec_measures(1):
        m = parse_measure(name)
        for query, values in theirs.items():
            want = reference_value(m, qrels[query], ranking(qrels[query], run[query], False))
            assert abs(values[trec_name] - want) <= TOL, (name, query)
