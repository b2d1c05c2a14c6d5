"""Edge cases of the metric engine: empty input, ids, missing queries, thresholds, ties, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from labeling.errors import InputError, ScorecardError
from labeling.metrics.engine import evaluate, ranked_list

MEASURES = ["P@3", "R@3", "Success@3", "RR", "RR@2", "AP", "AP@3", "nDCG", "nDCG@3", "Rprec",
            "CG@3", "DCG@3", "Judged@3", "AP(denom=retrieved)", "nDCG(ideal=retrieved)@3"]
BINARY = ["P@3", "R@3", "Success@3", "RR", "RR@2", "AP", "AP@3", "Rprec",
          "AP(denom=retrieved)"]


def qrels_frame(rows):
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])


def run_frame(rows):
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


QRELS = qrels_frame([
    ("q1", "a", 1), ("q1", "b", 0), ("q1", "c", 2),
    ("q2", "x", 1), ("q2", "y", 3),
])
RUN = run_frame([
    ("q1", "a", 3.0), ("q1", "u", 2.0), ("q1", "c", 1.0),
    ("q2", "y", 0.5), ("q2", "z", 0.4),
])


def order(qrels, run, query="q", **kwargs):
    listed = ranked_list(qrels, run, **kwargs)
    return listed.loc[listed["query_id"] == query, "doc_id"].tolist()


def test_empty_run_scores_every_labeled_query_zero():
    run = run_frame([])
    ev = evaluate(QRELS, run, MEASURES)
    assert sorted(ev.per_query.index) == ["q1", "q2"]
    assert list(ev.per_query.columns) == MEASURES
    assert (ev.per_query == 0).all().all()
    assert (ev.mean == 0).all()
    skipped = evaluate(QRELS, run, MEASURES, missing="skip")
    assert skipped.per_query.empty
    assert list(skipped.per_query.columns) == MEASURES
    assert list(skipped.mean.index) == MEASURES


def test_no_labels_no_evaluated_queries():
    """Empty qrels: no query to evaluate. An empty result or a clear InputError, not a crash."""
    try:
        ev = evaluate(qrels_frame([]), RUN, ["P@3", "nDCG"])
    except InputError:
        return
    assert ev.per_query.empty
    assert list(ev.mean.index) == ["P@3", "nDCG"]


def test_columns_are_the_measures_as_written():
    written = ["MAP", "AP", "ndcg@3", "nDCG@3", "HitRate@3", "R-Prec"]
    ev = evaluate(QRELS, RUN, written)
    assert list(ev.per_query.columns) == written
    assert ev.per_query.index.name == "query_id"
    assert (ev.per_query["MAP"] == ev.per_query["AP"]).all()
    assert (ev.per_query["ndcg@3"] == ev.per_query["nDCG@3"]).all()
    assert ev.mean["MAP"] == ev.per_query["AP"].mean()


def test_run_with_only_ranks_is_ordered_by_rank():
    qrels = qrels_frame([("q", "a", 1), ("q", "b", 0)])
    by_rank = pd.DataFrame({"query_id": "q", "doc_id": ["b", "a", "c"], "rank": [2, 3, 1]})
    assert order(qrels, by_rank) == ["c", "b", "a"]
    ev = evaluate(qrels, by_rank, ["RR", "P@1", "Judged@2"])
    assert ev.per_query.loc["q", "RR"] == pytest.approx(1 / 3)
    assert ev.per_query.loc["q", "P@1"] == 0
    assert ev.per_query.loc["q", "Judged@2"] == 0.5
    scored = run_frame([("q", "c", 3.0), ("q", "b", 2.0), ("q", "a", 1.0)])
    pd.testing.assert_frame_equal(
        ev.per_query, evaluate(qrels, scored, ["RR", "P@1", "Judged@2"]).per_query
    )


def test_rank_is_ignored_when_there_is_a_score():
    qrels = qrels_frame([("q", "a", 1)])
    run = pd.DataFrame({"query_id": "q", "doc_id": ["a", "b"], "rank": [1, 2],
                        "score": [1.0, 2.0]})
    assert order(qrels, run) == ["b", "a"]
    assert evaluate(qrels, run, ["RR"]).per_query.loc["q", "RR"] == 0.5


def test_integer_ids_equal_string_ids():
    qrels_int = qrels_frame([(1, 10, 1), (1, 9, 2), (1, 100, 0), (2, 5, 1)])
    run_int = run_frame([(1, 9, 1.0), (1, 10, 1.0), (1, 100, 1.0), (1, 7, 2.0), (2, 5, 1.0),
                         (3, 5, 1.0)])
    qrels_str = qrels_int.astype({"query_id": str, "doc_id": str})
    run_str = run_int.astype({"query_id": str, "doc_id": str})
    as_int = evaluate(qrels_int, run_int, MEASURES).per_query
    as_str = evaluate(qrels_str, run_str, MEASURES).per_query
    assert sorted(as_int.index) == ["1", "2"]
    pd.testing.assert_frame_equal(as_int.sort_index(), as_str.sort_index())
    # Ids compare as strings: "9" > "100" > "10" in descending byte order.
    assert order(qrels_int, run_int, query="1") == [7, 9, 100, 10]


def test_mixed_id_column_types_between_qrels_and_run():
    qrels_int = qrels_frame([(1, 10, 1), (1, 9, 2)])
    run_str = run_frame([("1", "9", 1.0), ("1", "10", 2.0)])
    ev = evaluate(qrels_int, run_str, ["P@2", "RR"])
    assert ev.per_query.loc["1"].tolist() == [1.0, 1.0]


def test_queries_only_in_the_run_are_ignored():
    run = pd.concat([RUN, run_frame([("q9", "a", 1.0), ("q9", "b", 0.5)])], ignore_index=True)
    with_extra = evaluate(QRELS, run, MEASURES)
    assert "q9" not in with_extra.per_query.index
    pd.testing.assert_frame_equal(with_extra.per_query, evaluate(QRELS, RUN, MEASURES).per_query)


def test_labeled_query_without_results_scores_zero_and_counts():
    qrels = pd.concat([QRELS, qrels_frame([("q3", "m", 2)])], ignore_index=True)
    ev = evaluate(qrels, RUN, MEASURES)
    assert (ev.per_query.loc["q3"] == 0).all()
    base = evaluate(QRELS, RUN, MEASURES)
    pd.testing.assert_series_equal(ev.mean, base.per_query.sum() / 3)
    skipped = evaluate(qrels, RUN, MEASURES, missing="skip")
    assert "q3" not in skipped.per_query.index
    pd.testing.assert_series_equal(skipped.mean, base.mean)
    assert "q3" not in skipped.parts.index


def test_missing_must_be_zero_or_skip():
    with pytest.raises(ScorecardError, match="missing"):
        evaluate(QRELS, RUN, ["P@3"], missing="drop")


def test_query_with_all_grades_below_threshold_scores_zero_and_counts():
    qrels = qrels_frame([("q", "a", 1), ("q", "b", 1), ("hi", "a", 2)])
    run = run_frame([("q", "a", 2.0), ("q", "b", 1.0), ("hi", "a", 1.0)])
    strict = [m.replace("@", "(rel=2)@") if "@" in m and "(" not in m else m
              for m in ["P@3", "R@3", "Success@3", "RR@2", "AP@3"]]
    strict += ["RR(rel=2)", "AP(rel=2)", "Rprec(rel=2)", "AP(rel=2,denom=retrieved)"]
    ev = evaluate(qrels, run, strict)
    assert (ev.per_query.loc["q"] == 0).all()
    assert len(ev.per_query) == 2
    pd.testing.assert_series_equal(ev.mean, ev.per_query.loc["hi"] / 2, check_names=False)
    # nDCG ignores rel: the graded measures still see grade 1.
    assert evaluate(qrels, run, ["nDCG"]).per_query.loc["q", "nDCG"] == 1.0


def test_query_with_only_non_relevant_labels_scores_zero_and_counts():
    qrels = qrels_frame([("q", "a", 0), ("q", "b", -1), ("ok", "a", 1)])
    run = run_frame([("q", "a", 2.0), ("q", "b", 1.0), ("ok", "a", 1.0)])
    ev = evaluate(qrels, run, MEASURES)
    judged = [m for m in MEASURES if not m.startswith("Judged")]
    assert (ev.per_query.loc["q", judged] == 0).all()
    assert ev.per_query.loc["q", "Judged@3"] == pytest.approx(2 / 3)
    assert ev.mean["RR"] == 0.5


def test_negative_grades_give_no_gain_and_are_judged():
    qrels = qrels_frame([("q", "neg", -2), ("q", "one", 1)])
    run = run_frame([("q", "neg", 2.0), ("q", "one", 1.0), ("q", "unj", 0.5)])
    ev = evaluate(qrels, run, ["CG@3", "DCG@3", "nDCG", "nDCG(gain=exp)@3", "Judged@3",
                               "RR", "R@3"])
    row, parts = ev.per_query.loc["q"], ev.parts.loc["q"]
    assert row["CG@3"] == 1.0
    assert row["DCG@3"] == pytest.approx(1 / np.log2(3))
    assert parts["nDCG.idcg"] == 1.0
    assert row["nDCG"] == pytest.approx(1 / np.log2(3))
    assert row["nDCG(gain=exp)@3"] == pytest.approx(1 / np.log2(3))
    assert row["Judged@3"] == pytest.approx(2 / 3)
    assert row["RR"] == 0.5
    assert parts["R@3.relevant"] == 1


def test_negative_grades_with_rel_zero_are_not_relevant():
    qrels = qrels_frame([("q", "neg", -1), ("q", "zero", 0)])
    run = run_frame([("q", "neg", 2.0), ("q", "zero", 1.0)])
    ev = evaluate(qrels, run, ["RR(rel=0)", "P(rel=0)@2"])
    assert ev.per_query.loc["q"].tolist() == [0.5, 0.5]


@pytest.mark.parametrize("table", ["qrels", "run"])
def test_duplicate_pairs_raise_naming_the_row(table):
    qrels = qrels_frame([("q", "a", 1), ("q", "b", 0), ("q", "a", 1)])
    run = run_frame([("q", "a", 1.0), ("q", "b", 0.5), ("q", "c", 0.2), ("q", "b", 0.1)])
    if table == "qrels":
        args, row = (qrels, run.iloc[:3]), 2
    else:
        args, row = (qrels.iloc[:2], run), 3
    with pytest.raises(InputError) as caught:
        evaluate(*args, ["P@3"])
    assert f"row {row}" in str(caught.value)
    assert caught.value.source == table


def test_same_doc_in_two_queries_is_not_a_duplicate():
    qrels = qrels_frame([("q1", "a", 1), ("q2", "a", 1)])
    run = run_frame([("q1", "a", 1.0), ("q2", "a", 1.0)])
    assert (evaluate(qrels, run, ["P@1"]).per_query["P@1"] == 1).all()


def test_ids_differing_in_case_are_different():
    qrels = qrels_frame([("q", "a", 1), ("q", "A", 0)])
    run = run_frame([("q", "A", 2.0), ("q", "a", 1.0)])
    assert evaluate(qrels, run, ["RR"]).per_query.loc["q", "RR"] == 0.5


def test_judged_only_compresses_ranks():
    qrels = qrels_frame([("q", "r1", 1), ("q", "n", 0), ("q", "r2", 2)])
    run = run_frame([("q", "u1", 9.0), ("q", "r1", 8.0), ("q", "u2", 7.0), ("q", "n", 6.0),
                     ("q", "u3", 5.0), ("q", "r2", 4.0)])
    written = ["RR", "P@2", "AP", "Judged@3", "nDCG@3", "R@3"]
    plain = evaluate(qrels, run, written).per_query.loc["q"]
    judged = evaluate(qrels, run, written, judged_only=True).per_query.loc["q"]
    assert plain["RR"] == 0.5
    assert judged["RR"] == 1.0
    assert plain["P@2"] == 0.5
    assert judged["P@2"] == 0.5
    assert plain["AP"] == pytest.approx((1 / 2 + 2 / 6) / 2)
    assert judged["AP"] == pytest.approx((1 + 2 / 3) / 2)
    assert plain["Judged@3"] == pytest.approx(1 / 3)
    assert judged["Judged@3"] == 1.0
    assert plain["R@3"] == 0.5
    assert judged["R@3"] == 1.0
    assert judged["nDCG@3"] == pytest.approx((1 + 2 / 2) / (2 + 1 / np.log2(3)))
    listed = ranked_list(qrels, run, judged_only=True)
    assert listed["doc_id"].tolist() == ["r1", "n", "r2"]
    assert listed["rank"].tolist() == [1, 2, 3]


def test_unsorted_rows_give_the_same_as_sorted():
    rng = np.random.default_rng(5)
    n = 400
    run = pd.DataFrame({
        "query_id": rng.choice(["q1", "q2", "q3", "10", "9"], size=n),
        "doc_id": [f"d{i}" for i in range(n)],
        "score": rng.integers(0, 6, size=n) / 2,
    })
    qrels = pd.DataFrame({
        "query_id": run["query_id"].sample(200, random_state=1).to_numpy(),
        "doc_id": run["doc_id"].sample(200, random_state=1).to_numpy(),
        "relevance": rng.integers(-1, 4, size=200),
    })
    qrels = qrels.drop_duplicates(["query_id", "doc_id"])
    ordered = run.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
    base = evaluate(qrels, ordered, MEASURES).per_query.sort_index()
    for seed in range(3):
        shuffled_run = run.sample(frac=1, random_state=seed)
        shuffled_qrels = qrels.sample(frac=1, random_state=seed)
        got = evaluate(shuffled_qrels, shuffled_run, MEASURES).per_query.sort_index()
        pd.testing.assert_frame_equal(got, base)
    # a reset index and a non-default index change nothing either
    odd_index = run.set_axis(np.arange(n)[::-1] * 3)
    pd.testing.assert_frame_equal(
        evaluate(qrels, odd_index, MEASURES).per_query.sort_index(), base
    )


@pytest.mark.parametrize(
    ("docs", "expected"),
    [
        (["a", "b"], ["b", "a"]),
        (["B", "a"], ["a", "B"]),
        (["d10", "d9"], ["d9", "d10"]),
        (["D1", "d1", "d10", "d9"], ["d9", "d10", "d1", "D1"]),
        (["10", "9", "100"], ["9", "100", "10"]),
        (["ab", "a", "abc"], ["abc", "ab", "a"]),
        (["é", "z", "Z"], ["é", "z", "Z"]),
    ],
)
def test_ties_broken_by_doc_id_descending_byte_order(docs, expected):
    qrels = qrels_frame([("q", expected[0], 1)])
    run = run_frame([("q", d, 1.0) for d in docs])
    assert order(qrels, run) == expected
    for shuffled in (docs[::-1], sorted(docs)):
        assert order(qrels, run_frame([("q", d, 1.0) for d in shuffled])) == expected
    assert evaluate(qrels, run, ["RR"]).per_query.loc["q", "RR"] == 1.0


def test_ties_only_reorder_within_equal_scores():
    qrels = qrels_frame([("q", "a", 1)])
    run = run_frame([("q", "a", 2.0), ("q", "z", 1.0), ("q", "b", 1.0), ("q", "c", 0.5)])
    assert order(qrels, run) == ["a", "z", "b", "c"]


def test_ranked_list_shows_the_arithmetic():
    listed = ranked_list(QRELS, RUN)
    q1 = listed[listed["query_id"] == "q1"]
    assert q1["doc_id"].tolist() == ["a", "u", "c"]
    assert q1["rank"].tolist() == [1, 2, 3]
    assert q1["relevant"].tolist() == [True, False, True]
    assert q1["relevant_so_far"].tolist() == [1, 1, 2]
    assert q1["precision"].tolist() == pytest.approx([1, 1 / 2, 2 / 3])
    assert q1["discount"].tolist() == pytest.approx([1, 1 / np.log2(3), 1 / 2])
    assert np.isnan(q1["grade"].iloc[1])
    strict = ranked_list(QRELS, RUN, rel=2)
    assert strict.loc[strict["query_id"] == "q1", "relevant"].tolist() == [False, False, True]


def test_parts_hold_the_numbers_behind_each_value():
    ev = evaluate(QRELS, RUN, ["AP", "nDCG@3", "R@3", "RR"])
    parts = ev.parts.loc["q1"]
    assert parts["AP.sum_precision"] == pytest.approx(1 + 2 / 3)
    assert parts["AP.denominator"] == 2
    assert parts["R@3.relevant"] == 2
    assert parts["R@3.relevant_retrieved"] == 2
    assert parts["RR.first_relevant_rank"] == 1
    assert ev.per_query.loc["q1", "nDCG@3"] == pytest.approx(
        parts["nDCG@3.dcg"] / parts["nDCG@3.idcg"]
    )


def test_cutoff_beyond_the_list():
    qrels = qrels_frame([("q", "a", 1)])
    run = run_frame([("q", "a", 1.0)])
    row = evaluate(qrels, run, ["P@10", "R@10", "Judged@10", "nDCG@10", "AP@10"]).per_query
    assert row.loc["q"].tolist() == [0.1, 1.0, 0.1, 1.0, 1.0]


def test_large_runs_rank_the_same_on_two_threads(monkeypatch):
    # From ranking.PARALLEL_ROWS rows on, the duplicate check and the doc lookup run on a
    # second thread; force that path on a small seeded run with ties and unjudged rows.
    from labeling.metrics import ranking

    rng = np.random.default_rng(7)
    run = pd.DataFrame(
        {
            "query_id": [f"q{i // 20}" for i in range(400)],
            "doc_id": [f"d{rng.integers(0, 10**9)}" for _ in range(400)],
            "score": rng.integers(0, 5, 400).astype(float),
        }
    ).sample(frac=1, random_state=1)
    qrels = run.sample(150, random_state=2)[["query_id", "doc_id"]].assign(
        relevance=rng.integers(-1, 3, 150)
    )
    serial = ranking.rank_rows(qrels, run)
    monkeypatch.setattr(ranking, "PARALLEL_ROWS", 1)
    threaded = ranking.rank_rows(qrels, run)
    for name in ("query", "rank", "doc_row", "retrieved"):
        assert np.array_equal(getattr(serial, name), getattr(threaded, name))
    assert np.array_equal(serial.grade, threaded.grade, equal_nan=True)
    repeated = pd.concat([run, run.iloc[[5]]], ignore_index=True)
    with pytest.raises(InputError, match=f"row {len(run)} repeats"):
        ranking.rank_rows(qrels, repeated)
