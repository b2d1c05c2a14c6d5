"""The columnar copy of a stored run (labeling.workspace.run_parts): written at import in
trec_eval's order, read back without sorting, and the same rows and scores as the run_results
rows it copies; the ranking of an ordered run (rank_ordered) equals rank_rows per query."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from labeling.evaluation.inputs import ranked_runs, result_cache
from labeling.metrics.engine import evaluate, evaluate_ranked
from labeling.metrics.ranking import OrderedRun, rank_ordered, rank_rows
from labeling.workspace import run_parts
from labeling.workspace.store import write_transaction

MEASURES = ["P@3", "R@5", "RR", "AP", "nDCG@5", "nDCG(gain=exp)", "Rprec", "Judged@4",
            "Success@2", "DCG@3", "CG@4", "RR@2", "P(rel=2)@3"]
# Ids that sort differently as bytes, as numbers and case-blind; tied scores, rows shuffled.
RESULTS = [("q2", "c10", 0.5), ("q10", "c9", 1.0), ("q2", "c9", 0.5), ("qé", "c2", -0.0),
           ("q10", "C1", 1.0), ("q2", "c1", 2.0), ("qé", "c1", 0.0), ("q10", "c10", 0.25),
           ("q2", "c2", 0.5), ("q9", "c3", 3.0)]


def _trec_order(rows: list[tuple]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    frame["score"] = frame["score"] + 0.0
    key = pd.DataFrame({"q": frame["query_id"].map(lambda s: s.encode()),
                        "s": -frame["score"], "d": frame["doc_id"].map(lambda s: s.encode())})
    order = sorted(range(len(frame)), key=lambda i: (key["q"][i], key["s"][i],
                                                      tuple(-b for b in key["d"][i]) + (1,)))
    out = frame.iloc[order].reset_index(drop=True)
    out["rank"] = out.groupby("query_id", sort=False).cumcount() + 1
    return out


def test_an_imported_run_is_stored_in_trec_order_with_ranks(make_workspace):
    db = make_workspace(runs={"r": RESULTS})
    run_id = db.conn.execute("SELECT id FROM runs WHERE name = 'r'").fetchone()[0]
    assert db.conn.execute("SELECT count(*) FROM run_parts WHERE run_id = ?",
                           [run_id]).fetchone()[0] == 1
    frame = ranked_runs.load_run(db, "r")
    expected = _trec_order(RESULTS)
    assert frame["query_id"].tolist() == expected["query_id"].tolist()
    assert frame["doc_id"].tolist() == expected["doc_id"].tolist()
    assert frame["rank"].tolist() == expected["rank"].tolist()
    assert frame["score"].tolist() == expected["score"].tolist()


def test_parts_split_between_queries_and_a_run_without_parts_reads_the_same(make_workspace):
    db = make_workspace(runs={"r": RESULTS})
    run_id = db.conn.execute("SELECT id FROM runs WHERE name = 'r'").fetchone()[0]
    whole = ranked_runs.load_run(db, "r").copy()
    with write_transaction(db, action="import") as conn:
        assert run_parts.write_run_parts(conn, run_id, part_rows=3) == 3
    spans = db.conn.execute("SELECT first_query, last_query, rows FROM run_parts"
                            " WHERE run_id = ? ORDER BY part", [run_id]).fetchall()
    # Whole queries only, at most 3 rows unless one query has more: q10 | q2 | q9 + qé.
    assert spans == [("q10", "q10", 3), ("q2", "q2", 4), ("q9", "qé", 3)]
    result_cache.clear_cache()
    pd.testing.assert_frame_equal(ranked_runs.load_run(db, "r"), whole)
    with write_transaction(db, action="import") as conn:
        conn.execute("DELETE FROM run_parts WHERE run_id = ?", [run_id])
    result_cache.clear_cache()
    pd.testing.assert_frame_equal(ranked_runs.load_run(db, "r"), whole)
    assert run_parts.read_query_part(db.conn, run_id, "q2") is None


def test_replacing_a_run_replaces_its_parts(make_workspace, tmp_path):
    db = make_workspace(runs={"r": RESULTS})
    from labeling.files.importers import import_run

    path = tmp_path / "r.trec"
    path.write_text("q1 Q0 c1 1 0.5 t\n", encoding="utf-8")
    import_run(db, path, "r", replace=True)
    assert db.conn.execute("SELECT count(*) FROM run_parts").fetchone()[0] == 1
    assert ranked_runs.load_run(db, "r")["doc_id"].tolist() == ["c1"]


def _ordered(run: pd.DataFrame) -> OrderedRun:
    table = run_parts.order_run(pa.array(run["query_id"]), pa.array(run["doc_id"]),
                                pa.array(run["score"], pa.float64()))
    queries = table["query_id"].combine_chunks()
    counts = np.bincount(queries.indices.to_numpy(), minlength=len(queries.dictionary))
    starts = np.concatenate([[0], np.cumsum(counts)])
    return OrderedRun(queries.dictionary, starts, table["doc_id"].combine_chunks(),
                      table["score"].to_numpy())


ids = st.sampled_from(["a", "b", "B", "a1", "a10", "a9", "é", "10", "9"])


@settings(max_examples=60, deadline=None)
@given(
    results=st.lists(st.tuples(ids, ids, st.sampled_from([0.0, -0.0, 0.5, 1.0, 2.5])),
                     max_size=40, unique_by=lambda r: (r[0], r[1])),
    labels=st.lists(st.tuples(ids, ids, st.integers(-1, 3)), min_size=1, max_size=25,
                    unique_by=lambda r: (r[0], r[1])),
    judged_only=st.booleans(),
)
def test_ranking_an_ordered_run_equals_ranking_its_rows(results, labels, judged_only):
    run = pd.DataFrame(results, columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame(labels, columns=["query_id", "doc_id", "relevance"])
    ordered = _ordered(run)
    fast = evaluate_ranked(rank_ordered(qrels, ordered), MEASURES,
                           judged_only=judged_only).per_query
    slow = evaluate(qrels, run, MEASURES, judged_only=judged_only).per_query
    assert list(fast.index) == sorted(slow.index, key=lambda s: s.encode())
    pd.testing.assert_frame_equal(fast, slow.loc[fast.index], check_exact=True)
    doc_rows = rank_ordered(qrels, ordered).doc_row  # rows point into the ordered run
    assert len(doc_rows) == len(set(doc_rows.tolist()))
    assert rank_rows(qrels, run).n_queries == len(fast)
