"""Issue 26 case 13: a new query is judged before any run returns results for it (from a
corpus search on Judge by query), and a search hit shows the labels it has and the runs that
retrieved it."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores import scoring
from labeling.judging import corpus_search
from labeling.workspace import store
from pages._search import key_part
from tests.app.conftest import APP, TIMEOUT

NEW = {"id": "q99", "text": "How many unused leave days can I carry into next year?",
       "split": "dev", "topic": "hr"}


def open_page(page: str, annotator: str = "carol") -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.session_state["annotator"] = annotator
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception
    return at


def captions(at) -> str:
    return " ".join(c.value.replace("\\", "") for c in at.caption)


def test_a_new_query_is_judged_from_a_corpus_search(make_workspace, monkeypatch) -> None:
    path = make_workspace.path("demo", queries=[NEW])
    monkeypatch.setenv("SCORECARD_WORKSPACE", str(path))
    at = open_page("judge_by_query")
    picker = at.selectbox(key="jbq_query")
    assert "q99" in picker.options[-1] and "nothing queued" in picker.options[-1]
    picker.set_value("q99").run()
    assert not at.exception
    assert "no run has returned results for it yet" in captions(at)
    db = store.open_workspace(path, create=False)
    try:
        hits = corpus_search.search(db, NEW["text"]).hits
        assert hits
        control = at.button_group(key=f"jbq_find_hit_{key_part('q99')}_"
                                      f"{key_part(hits[0].chunk_id)}")
        control.set_value(3).run()
        assert not at.exception and any("found by search" in s.value for s in at.success)
        assert db.conn.execute(
            "SELECT grade, origin FROM judgments WHERE query_id = 'q99' AND annotator = 'carol'"
        ).fetchall() == [(3, "person")]
        assert corpus_search.found_by_search(db, "q99") == {hits[0].chunk_id}
        # The new label counts: q99 is evaluated, and bm25 returned nothing for it.
        assert "q99" in scoring.unanswered_queries(db, Controls("bm25"))
    finally:
        db.close()


def test_search_hits_show_their_labels_and_the_runs_that_retrieved_them(workspace) -> None:
    at = open_page("dashboard")
    at.session_state["dash_tab"] = "Worst queries"
    at.run()
    query = at.selectbox(key="dash_drill_query").value
    at.session_state["dash_find_open"] = True
    at.run()
    db = store.open_workspace(workspace, create=False)
    try:
        text = at.text_input(key=f"dash_find_search_{key_part(query)}").value
        hits = corpus_search.search(db, text).hits
        hit = next(h for h in hits if db.conn.execute(
            "SELECT count(*) FROM current_judgments WHERE query_id = ? AND chunk_id = ?",
            [query, h.chunk_id]).fetchone()[0] == 2)
        grades = dict(db.conn.execute(
            "SELECT annotator, grade FROM current_judgments WHERE query_id = ?"
            " AND chunk_id = ?", [query, hit.chunk_id]).fetchall())
        ranks = {name: int(rank) for name, rank in db.conn.execute(
            "SELECT u.name, (SELECT count(*) FROM run_results o WHERE o.run_id = r.run_id"
            " AND o.query_id = r.query_id AND (o.score > r.score OR (o.score = r.score AND"
            " o.chunk_id >= r.chunk_id))) FROM run_results r JOIN runs u ON u.id = r.run_id"
            " WHERE r.query_id = ? AND r.chunk_id = ? ORDER BY u.id", [query, hit.chunk_id])}
    finally:
        db.close()
    assert ranks  # a chunk some run retrieved
    shown = captions(at)
    assert f"labels: alice {grades['alice']}, bob {grades['bob']}" in shown
    assert "retrieved by " + ", ".join(f"{r} at rank {n}" for r, n in ranks.items()) in shown
