"""An annotator's day in AppTest: no grade is ever chosen for a new pair, imports keep their
origin, a chunk found by corpus search is judged in place and moves recall as the engine says,
and the card shows the query's narrative and the chunk's neighbours."""

from __future__ import annotations

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from labeling.evaluation.inputs import result_cache
from labeling.judging import consensus, corpus_search, queue
from labeling.metrics import evaluate
from labeling.workspace import judgments, query_store, store
from pages._search import key_part
from tests.app.conftest import APP, TIMEOUT

NARRATIVE = "The person wants the number of paid days, not public holidays."


@pytest.fixture(autouse=True)
def _fresh_dashboard_cache():
    result_cache.clear_cache()
    yield
    result_cache.clear_cache()


def start(open_app, page: str, annotator: str = "carol"):
    at = open_app()
    at.session_state["annotator"] = annotator
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception
    return at


def fresh_pairs(db, query_id: str, n: int) -> list[tuple[str, str]]:
    """Pairs of ``query_id`` nobody has judged, in chunk order."""
    return db.conn.execute(
        "SELECT ?1, c.id FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM judgments j"
        " WHERE j.query_id = ?1 AND j.chunk_id = c.id) ORDER BY c.id LIMIT ?2",
        [query_id, n],
    ).fetchall()


def grade_controls(at, prefix: str) -> dict[str, object]:
    return {g.key: g for g in at.get("button_group") if g.key.startswith(prefix)}


def primary_grades(at) -> list[str]:
    return [b.key for b in at.button if b.key.startswith("label_grade_")
            and b.proto.type == "primary"]


# ---------------------------------------------------------------------------------------------
# No grade nobody chose


def test_label_card_and_its_search_start_with_no_grade_after_every_save(open_app, workspace):
    db = store.open_workspace(workspace)
    queue.set_overlap_share(db, 0.0)
    queue.enqueue_pairs(db, fresh_pairs(db, "q01", 3), reason="test")
    at = start(open_app, "label")
    at.button(key="label_toggle_search").click().run()
    first = tuple(at.session_state["label_current"])
    hits = grade_controls(at, "label_find_hit_")
    assert hits and all(h.value is None for h in hits.values())
    chosen = next(iter(hits.values()))
    chosen.set_value(2).run()  # a hit judged in place
    assert any("found by search" in s.value for s in at.success)
    at.button(key="label_grade_3").click().run()  # then the card itself
    assert queue.current_grade(db, *first, "carol") == 3
    assert tuple(at.session_state["label_current"]) != first
    assert primary_grades(at) == []  # the new pair: no grade highlighted
    assert at.text_input(key=f"label_note_{at.session_state['label_nonce']}").value == ""
    for key, control in grade_controls(at, "label_find_hit_").items():
        pair_grade = control.value
        assert pair_grade is None or key == chosen.key  # only the pair judged keeps its grade


def test_judge_by_query_grid_grades_by_keys_and_leaves_new_rows_empty(open_app, workspace):
    db = store.open_workspace(workspace)
    pairs = fresh_pairs(db, "q05", 4)
    queue.enqueue_pairs(db, pairs, reason="test")
    at = start(open_app, "judge_by_query")
    at.selectbox(key="jbq_query").set_value("q05").run()
    rows = {c: f"jbq_q05_{c}" for _, c in pairs}
    controls = grade_controls(at, "jbq_q05_")
    assert [controls[rows[c]].value for _, c in pairs] == [None] * 4
    assert at.button(key="grid_grade_2").proto.shortcut.upper() == "2"
    assert at.button(key="grid_next").proto.shortcut.upper() == "J"
    at.button(key="grid_grade_2").click().run()  # row 1, then row 2 is current
    at.button(key="grid_next").click().run()  # skip to row 3
    at.button(key="grid_grade_0").click().run()
    controls = grade_controls(at, "jbq_q05_")
    assert [controls[rows[c]].value for _, c in pairs] == [2, None, 0, None]
    assert any("Saved: 0 not relevant" in s.value.replace("\\", "") for s in at.success)
    controls[rows[pairs[3][1]]].set_value(1).run()  # the mouse grades row 4 in place
    controls = grade_controls(at, "jbq_q05_")
    assert [controls[rows[c]].value for _, c in pairs] == [2, None, 0, 1]
    assert [queue.current_grade(db, *p, "carol") for p in pairs] == [2, None, 0, 1]


def test_drill_down_judge_form_starts_empty_after_a_save(open_app, workspace):
    at = start(open_app, "dashboard")
    at.session_state["dash_tab"] = "Worst queries"
    at.run()
    at.selectbox(key="dash_drill_query").set_value("q01").run()
    picker = at.selectbox(key="dash_judge_chunk:q01")
    ranked = next(d.value for d in at.dataframe if "snippet" in d.value.columns)
    first = ranked.loc[ranked["grade"].isna()].iloc[0]
    assert picker.value == first["chunk_id"]
    label = picker.format_func(picker.value)
    assert label.startswith(f"#{first['rank']} · ") and first["snippet"][:20] in label
    assert at.radio(key="dash_judge_grade").value is None
    at.radio(key="dash_judge_grade").set_value(2)
    at.button(key="dash_judge_save").click().run()
    assert any("Judged" in s.value for s in at.success)
    radios = [r for r in at.radio if r.key.startswith("dash_judge_grade")]
    assert len(radios) == 1 and radios[0].value is None and radios[0].key != "dash_judge_grade"
    picker = next(s for s in at.selectbox if s.key.startswith("dash_judge_chunk"))
    assert picker.value != first["chunk_id"]  # the next unjudged chunk, no grade chosen


def test_adjudication_starts_with_no_grade(open_app):
    at = start(open_app, "agreement", "lead")
    assert at.selectbox(key="adj_grade").value is None
    at.button(key="adj_save").click().run()
    assert any("Choose the grade" in w.value for w in at.warning)
    at.selectbox(key="adj_grade").set_value(1)
    at.button(key="adj_save").click().run()
    assert any("Adjudicated" in s.value for s in at.success)
    grade = next(s for s in at.selectbox if s.key.startswith("adj_grade"))
    assert grade.value is None and grade.key != "adj_grade"


# ---------------------------------------------------------------------------------------------
# Origins


def test_an_imported_file_keeps_its_origin_and_agreement_leaves_it_out(open_app, workspace):
    db = store.open_workspace(workspace)
    alice = db.conn.execute("SELECT query_id, chunk_id, grade FROM current_judgments"
                            " WHERE annotator = 'alice' AND grade IS NOT NULL LIMIT 12").fetchall()
    lines = "".join(f"{q} 0 {c} {min(3, g + 1)}\n" for q, c, g in alice)
    at = start(open_app, "data")
    at.file_uploader(key="upload_qrels_0").set_value(("vendor.qrels", lines.encode(), "text/plain"))
    at.button(key="import_qrels").click().run()
    assert not at.exception and any("+12 judgments" in s.value for s in at.success)
    rows = db.conn.execute("SELECT DISTINCT annotator, origin, origin_source FROM judgments"
                           " WHERE id > (SELECT max(id) - 12 FROM judgments)").fetchall()
    assert rows == [("vendor.qrels", "import", "vendor.qrels")]  # not carol's
    assert not db.conn.execute("SELECT 1 FROM judgments WHERE annotator = 'carol'").fetchall()

    at.switch_page("pages/agreement.py").run()
    kappa = at.dataframe[0].value
    assert kappa[["annotator_a", "annotator_b"]].values.tolist() == [["alice", "bob"]]
    assert next(m for m in at.metric if m.label == "Annotators").value == "2"
    assert "vendor.qrels" in at.selectbox(key="agreement_reference").options[-1]
    at.selectbox(key="agreement_reference").set_value("vendor.qrels").run()
    against = next(d.value for d in at.dataframe if list(d.value.columns)[:2] == ["annotator",
                                                                                  "pairs"])
    assert against.set_index("annotator").loc["alice", "pairs"] == 12
    assert against.set_index("annotator").loc["alice", "agreement"] == pytest.approx(
        sum(g == min(3, g + 1) for _, _, g in alice) / 12)


def test_names_persist_in_the_page_address(open_app):
    at = open_app()
    at.text_input(key="annotator_input").input("dora").run()
    assert at.query_params["annotator"] == "dora"
    at.switch_page("pages/label.py").run()
    assert at.query_params["annotator"] == "dora"  # kept across pages
    again = AppTest.from_file(APP, default_timeout=TIMEOUT)  # a reload: a new session with
    again.query_params["annotator"] = "dora"  # the same address
    again.run()
    assert again.text_input(key="annotator_input").value == "dora"
    assert again.session_state["annotator"] == "dora"


# ---------------------------------------------------------------------------------------------
# Corpus search and the run's recall


def _recall(db, run: str = "bm25") -> float:
    qrels = consensus.consensus_qrels(db)
    results = consensus.run_frame(db, run)[["query_id", "doc_id", "score"]]
    return float(evaluate(qrels, results, ["R@10"]).mean["R@10"])


def test_a_chunk_found_by_search_and_judged_moves_recall_as_the_engine_says(open_app, workspace):
    db = store.open_workspace(workspace)
    at = start(open_app, "dashboard")
    before = at.dataframe[0].value.set_index("measure").loc["R@10", "mean"]
    assert before == pytest.approx(_recall(db), abs=1e-12)
    at.session_state["dash_tab"] = "Worst queries"
    at.run()
    at.selectbox(key="dash_drill_query").set_value("q01").run()
    assert not grade_controls(at, "dash_find_hit_")  # closed: no search
    at.session_state["dash_find_open"] = True
    at.run()
    text_key = f"dash_find_search_{key_part('q01')}"
    assert at.text_input(key=text_key).value == query_store.queries_table(db, "q01").loc[
        0, "text"]  # the query prefilled
    hits = corpus_search.search(db, at.text_input(key=text_key).value).hits
    retrieved = set(consensus.run_frame(db, "bm25").query("query_id == 'q01'")["doc_id"])
    labeled = set(consensus.consensus_qrels(db).query("query_id == 'q01'")["doc_id"])
    missing = next(h for h in hits if h.chunk_id not in retrieved | labeled)
    captions = " ".join(c.value for c in at.caption)
    assert "not retrieved by bm25" in captions
    control = at.button_group(key=f"dash_find_hit_{key_part('q01')}_{key_part(missing.chunk_id)}")
    assert control.value is None
    control.set_value(3).run()
    assert not at.exception and any("found by search" in s.value for s in at.success)
    assert corpus_search.found_by_search(db, "q01") == {missing.chunk_id}
    source = db.conn.execute(
        "SELECT source, detail FROM pair_sources WHERE source = 'search'").fetchall()
    assert source == [("search", at.text_input(key=text_key).value)]
    engine_after = _recall(db)
    assert engine_after < before  # a relevant chunk the run missed: recall falls
    at.session_state["dash_tab"] = "Scorecard"
    at.run()
    after = at.dataframe[0].value.set_index("measure").loc["R@10", "mean"]
    assert after == pytest.approx(engine_after, abs=1e-12)


# ---------------------------------------------------------------------------------------------
# Context on the card


def test_the_card_shows_the_narrative_and_the_neighbouring_chunks(open_app, workspace):
    db = store.open_workspace(workspace)
    table = query_store.queries_table(db, "q01")
    table["narrative"] = NARRATIVE
    query_store.update_queries(db, table)
    doc = db.conn.execute("SELECT doc_id FROM chunks WHERE id = 'leave-02'").fetchone()[0]
    ordered = [r[0] for r in db.conn.execute(
        "SELECT id FROM chunks WHERE doc_id = ? ORDER BY rowid", [doc])]
    at_chunk = ordered.index("leave-02")
    queue.enqueue_pairs(db, [("q01", "leave-02")], reason="test")
    judgments_before = db.conn.execute("SELECT count(*) FROM judgments").fetchone()[0]
    at = start(open_app, "label")
    assert tuple(at.session_state["label_current"]) == ("q01", "leave-02")
    markdown = " ".join(m.value for m in at.markdown)
    assert "paid days, not public holidays" in markdown.replace("\\", "")
    assert not any("chunk 2 of" in c.value for c in at.caption)
    assert at.button(key="label_toggle_context").proto.shortcut.upper() == "N"
    at.button(key="label_toggle_context").click().run()
    captions = [c.value.replace("\\", "") for c in at.caption]
    assert any(f"chunk {at_chunk + 1} of {len(ordered)}" in c for c in captions)
    for side, neighbour in (("Before", ordered[at_chunk - 1]), ("After", ordered[at_chunk + 1])):
        assert any(c.startswith(f"{side} · {neighbour}") for c in captions), side
        text = db.conn.execute("SELECT text FROM chunks WHERE id = ?", [neighbour]).fetchone()[0]
        first_words = " ".join(text.split()[:3]).replace("\\", "")
        assert first_words.split()[0] in " ".join(m.value for m in at.markdown).replace("\\", "")
    at.button(key="label_toggle_guideline").click().run()
    assert any("No judging guideline yet" in c.value for c in at.caption)
    assert db.conn.execute("SELECT count(*) FROM judgments").fetchone()[0] == judgments_before


def test_an_empty_queue_says_how_to_fill_it(open_app):
    at = start(open_app, "label")
    info = " ".join(i.value for i in at.info)
    assert "queue is empty" in info and "Build the queue" in info
    assert not at.get("progress")  # no full-looking "0 of 0" bar
    assert any("0 pairs queued" in c.value for c in at.caption)


def test_where_the_session_stands(open_app, workspace):
    db = store.open_workspace(workspace)
    queue.set_overlap_share(db, 0.0)
    queue.enqueue_pairs(db, fresh_pairs(db, "q02", 5), reason="test")
    for i, pair in enumerate(fresh_pairs(db, "q02", 2)):
        judgments.add_judgment(db, *pair, 1, "carol",
                               created_at=(pd.Timestamp("2026-05-04T09:00:00Z")
                                           + pd.Timedelta(seconds=12 * i)).isoformat())
    at = start(open_app, "label")
    assert not at.metric  # closed: nothing computed
    at.session_state["label_standing"] = True  # opened
    at.run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Your median seconds per card"] == "12.0"
    assert metrics["Your pairs corrected"] == "0%"
    text = " ".join(c.value for c in at.caption).replace("\\", "")
    assert "3 judgments still needed on 3 open pairs" in text


# ---------------------------------------------------------------------------------------------
# Review: the answer span marked, reasons by key, none chosen for a new candidate


def test_review_marks_the_answer_and_takes_reasons_by_key(open_app, workspace):
    from labeling.synthetic import review
    from labeling.synthetic.candidate import Candidate

    db = store.open_workspace(workspace)
    text = db.conn.execute("SELECT text FROM chunks WHERE id = 'leave-01'").fetchone()[0]
    start = text.index("26 days")
    # One candidate at first: the queue is ordered by quality score, and this test follows one.
    ids = review.add_candidates(db, [
        Candidate("leave-01", "How many days of annual leave?", "offline", answer="26 days",
                  answer_start=start, answer_end=start + len("26 days"))])
    at = open_app("review")
    at.session_state["annotator"] = "carol"
    at.run()
    passage = " ".join(m.value for m in at.markdown)
    assert passage.count(":green-background[") == 1 and ":green-background[26 days]" in passage
    keys = {b.key: b.proto.shortcut for b in at.button if b.key.startswith("review_reason_")}
    assert len(keys) == len(review.REJECT_REASONS) and "vague or ambiguous" in \
        review.REJECT_REASONS
    assert at.selectbox(key="reject_reason").value is None
    at.button(key="review_reject").click().run()  # no reason chosen: nothing rejected
    assert any("give a reason" in e.value for e in at.error)
    vague = review.REJECT_REASONS.index("vague or ambiguous") + 1
    assert keys[f"review_reason_{vague}"] == str(vague)
    at.button(key=f"review_reason_{vague}").click().run()
    assert at.selectbox(key="reject_reason").value == "vague or ambiguous"
    review.add_candidates(db, [Candidate("leave-01", "Is leave paid?", "offline")])
    at.button(key="review_reject").click().run()
    frame = review.candidates_frame(db).set_index("id")
    assert frame.loc[ids[0], "reject_reason"] == "vague or ambiguous"
    assert at.selectbox(key="reject_reason").value is None  # the next one: chosen anew
