"""The Label page (judging card) and the Judge-by-query page, driven with AppTest."""

from __future__ import annotations

import re

from labeling.judging import pooling, queue, shortcuts
from labeling.workspace import store
from tests.queue_rows import queued_pairs
from tests.tables import table_with, tables
from tests.workspaces import add_rows

GRADES = [0, 1, 2, 3]


def start(open_app, annotator: str = "carol", page: str = "label"):
    at = open_app()
    at.session_state["annotator"] = annotator
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception
    return at


def pool(at):
    at.multiselect(key="pool_runs").set_value(["bm25", "fusion"])
    at.button(key="pool_build").click().run()
    assert not at.exception
    return at


def current(at) -> tuple[str, str]:
    return tuple(at.session_state["label_current"])


def test_queue_built_from_two_runs(open_app, workspace):
    at = pool(start(open_app))
    db = store.open_workspace(workspace)
    expected = pooling.pool_pairs(db, ["bm25", "fusion"], 10)
    assert len(queued_pairs(db)) == len(expected)
    shown = " ".join(s.value for s in at.success).replace("\\", "")  # markdown escapes
    assert (f"Pooled {len(expected)} (query, chunk) pairs from the top 10 of bm25, fusion: "
            in shown), shown
    new = int(re.search(r": (\d+) of them were not in the labeling queue", shown).group(1))
    assert new <= len(expected) and f"{len(expected) - new} were queued already" in shown
    card_text = " ".join(m.value for m in at.markdown)
    for run in ("bm25", "fusion"):  # blind: no run names on the card
        assert run not in card_text
    assert at.session_state["label_current"] is not None


def test_each_grade_with_its_key(open_app, workspace):
    at = pool(start(open_app))
    db = store.open_workspace(workspace)
    keys = shortcuts.grade_keys(GRADES)
    for grade in GRADES:
        button = at.button(key=f"label_grade_{grade}")
        assert button.proto.shortcut.upper() == keys[grade]
        pair = current(at)
        button.click().run()
        assert not at.exception
        assert queue.current_grade(db, *pair, "carol") == grade
        assert current(at) != pair  # the next card at once
    for action in ("skip", "undo", "back", "cant_judge"):
        assert at.button(key=f"label_{action}").proto.shortcut.upper() == shortcuts.key(action)
    assert "You: 4 judged" in at.get("progress")[0].proto.text


def test_skip_undo_and_correction(open_app, workspace):
    at = pool(start(open_app))
    db = store.open_workspace(workspace)
    skipped = current(at)
    at.button(key="label_skip").click().run()
    assert current(at) != skipped
    pair = current(at)
    at.text_input(key=f"label_note_{at.session_state['label_nonce']}").input("looks fine")
    at.button(key="label_grade_2").click().run()
    assert queue.pair_history(db, *pair)[-1]["note"] == "looks fine"
    at.button(key="label_undo").click().run()
    assert current(at) == pair and queue.current_grade(db, *pair, "carol") is None
    at.button(key="label_grade_1").click().run()
    at.button(key="label_back").click().run()
    assert current(at) == pair
    assert any("Your current grade: 1" in i.value for i in at.info)
    at.button(key="label_grade_3").click().run()  # a correction appends
    mine = [h["grade"] for h in queue.pair_history(db, *pair) if h["annotator"] == "carol"]
    assert mine == [2, None, 1, 3]
    at.button(key="label_back").click().run()
    history = table_with(at, "annotator", "grade")
    assert history.loc[history["annotator"] == "carol", "grade"].tolist()[-2:] == [1, 3]


def test_a_relevant_grade_then_the_answering_sentence(open_app, workspace):
    from labeling.evidence_marks import current_evidence, placed_chunk
    at = pool(start(open_app))
    db = store.open_workspace(workspace)
    at.toggle(key="ask_evidence_widget").set_value(True).run()
    first = current(at)
    at.button(key="label_grade_0").click().run()  # not relevant: no question asked
    assert "label_evidence_step" not in at.session_state and current(at) != first
    pair = current(at)
    at.button(key="label_grade_2").click().run()
    assert not at.exception and queue.current_grade(db, *pair, "carol") == 2  # saved at once
    assert at.button(key="label_sentence_0").proto.shortcut == "1"
    at.button(key="label_sentence_0").click().run()
    shown = " ".join(m.value for m in at.markdown)
    assert ":green-background[" in shown  # the picked sentence is marked in the chunk text
    at.button(key="label_save_evidence").click().run()
    assert not at.exception and "label_evidence_step" not in at.session_state
    assert current_evidence(db, *pair) == placed_chunk(db, pair[1]).sentences()[:1]
    at.button(key="label_back").click().run()  # the card shows the judge's own answer marked
    assert current(at) == pair and any(":green-background[" in m.value for m in at.markdown)
    at.button(key="label_grade_1").click().run()
    at.button(key="label_skip_evidence").click().run()  # or skip: the grade stays
    assert "label_evidence_step" not in at.session_state


def test_cant_judge_needs_a_reason(open_app, workspace):
    at = pool(start(open_app))
    db = store.open_workspace(workspace)
    pair = current(at)
    at.button(key="label_cant_judge").click().run()
    assert any("say why" in e.value for e in at.error) and current(at) == pair
    at.text_input(key=f"label_reason_{at.session_state['label_nonce']}").input("legal")
    at.button(key="label_cant_judge").click().run()
    last = queue.pair_history(db, *pair)[-1]
    assert last["grade"] is None and last["note"] == "legal" and current(at) != pair


def test_overlap_serves_a_pair_to_a_second_annotator(open_app, workspace):
    db = store.open_workspace(workspace)
    fresh = db.conn.execute(  # pairs nobody has judged, so only the overlap asks for a second
        "SELECT q.id, c.id FROM queries q, chunks c WHERE NOT EXISTS (SELECT 1 FROM judgments j"
        " WHERE j.query_id = q.id AND j.chunk_id = c.id) ORDER BY q.id, c.id LIMIT 3"
    ).fetchall()
    at = start(open_app)
    at.number_input(key="overlap_share_input").set_value(100)
    at.button(key="overlap_save").click().run()
    assert any("need two people" in s.value for s in at.success)
    queue.enqueue_pairs(db, fresh, reason="test")
    at = start(open_app)
    pair = current(at)
    at.button(key="label_grade_2").click().run()
    dave = start(open_app, "dave")
    assert current(dave) == pair
    dave.button(key="label_grade_1").click().run()
    assert {h["annotator"] for h in queue.pair_history(db, *pair)} == {"carol", "dave"}
    erin = start(open_app, "erin")
    assert current(erin) != pair  # complete with two people


def test_user_text_is_never_markup(open_app, workspace):
    db = store.open_workspace(workspace)
    evil = "<script>alert('x')</script> See [the policy](http://evil.example) **now** $1"
    add_rows(db, chunks=[{"id": "evil", "title": "<b>T</b>", "text": evil}],
             queries=[{"id": "qx", "text": "policy <img src=x>"}])
    queue.enqueue_pairs(db, [("qx", "evil")], reason="test")
    at = start(open_app)
    assert current(at) == ("qx", "evil")
    bodies = [m.value for m in at.markdown] + [c.value for c in at.caption]
    joined = "\n".join(bodies)
    assert "&lt;script&gt;" in joined and "<script>" not in joined
    assert "](http" not in joined and "\\[the " in joined and "\\]\\(http" in joined
    assert "<" not in joined  # every < is an entity
    assert ":orange-background[policy]" in joined  # the query term, highlighted
    assert not any(m.proto.allow_html for m in at.markdown)


def test_no_name_no_card(open_app):
    at = open_app()
    at.switch_page("pages/label.py").run()
    assert at.text_input(key="label_name").label.startswith("Who is judging?")
    assert not [b for b in at.button if b.key == "label_grade_0"]


def test_judge_by_query_grades_in_place(open_app, workspace):
    pool(start(open_app))
    jbq = start(open_app, page="judge_by_query")
    query_id = jbq.selectbox(key="jbq_query").value
    db = store.open_workspace(workspace)
    chunk = str(pooling.pairs_of_query(db, query_id, "carol")["chunk_id"].iloc[0])
    control = next(w for w in jbq.get("button_group") if w.key == f"jbq_{query_id}_{chunk}")
    control.set_value(3).run()
    assert not jbq.exception
    assert queue.current_grade(db, query_id, chunk, "carol") == 3


def _audit_of_four(workspace) -> set[tuple[str, str]]:
    """A machine judge grades four pool pairs people have not judged; the audit takes all."""
    from labeling.judging import label_sources
    from labeling.machine_judging import audit_sample

    db = store.open_workspace(workspace)
    people, _ = label_sources.current_by_origin(db)
    known = set(zip(people["query_id"], people["chunk_id"], strict=True))
    pool_frame = pooling.pool_pairs(db, ["bm25"], 10)
    pairs = [p for p in zip(pool_frame["query_id"], pool_frame["chunk_id"], strict=True)
             if p not in known][:4]
    judge = "tiny@v1"
    add_rows(db, judgments=[(q, c, 2, judge, {"origin": "machine", "origin_source": judge})
                            for q, c in pairs])
    draw = audit_sample.draw_audit(db, judge, 4, runs=["bm25"], relevance=1)
    assert draw.drawn == 4
    db.close()
    return {(str(q), str(c)) for q, c in pairs}


def test_the_audit_has_its_own_queue_and_its_cards_reveal_no_machine_grade(open_app,
                                                                          workspace):
    """Issue 30 (9): audit pairs are not mixed into the labeling queue; they are judged from
    the audit queue, and the card's history counts no machine judgment."""
    audit = _audit_of_four(workspace)
    at = pool(start(open_app))
    for _ in range(15):  # the labeling queue serves no audit pair
        assert current(at) not in audit
        at.button(key="label_skip").click().run()
    at.radio(key="label_queue").set_value(queue.AUDIT).run()
    assert not at.exception
    seen = set()
    while at.session_state["label_current"] is not None:
        pair = current(at)
        assert pair in audit and pair not in seen
        assert "History of this pair (0 judgments)" in [e.label for e in at.expander]
        assert "tiny@v1" not in " ".join(str(t) for t in tables(at))
        at.button(key="label_grade_1").click().run()
        assert not at.exception
        seen.add(pair)
    assert seen == audit
    assert any("Nothing left in the audit for you" in s.value for s in at.success)


def test_judge_by_query_can_pick_the_audit(open_app, workspace):
    audit = _audit_of_four(workspace)
    at = start(open_app, page="judge_by_query")
    at.radio(key="jbq_queue").set_value(queue.AUDIT).run()
    assert not at.exception
    queries = {q for q, _ in audit}
    assert {o.split(" · ")[0] for o in at.selectbox(key="jbq_query").options} == queries
    db = store.open_workspace(workspace)
    for query_id in queries:
        rows = pooling.pairs_of_query(db, query_id, "carol", queue.AUDIT)
        assert {(query_id, str(c)) for c in rows["chunk_id"]} <= audit
        shared = pooling.pairs_of_query(db, query_id, "carol")
        assert not {(query_id, str(c)) for c in shared["chunk_id"]} & audit


def test_judge_by_query_asks_for_the_answer_after_a_relevant_grade(open_app, workspace):
    from labeling.evidence_marks import current_evidence, placed_chunk
    pool(start(open_app))
    jbq = start(open_app, page="judge_by_query")
    jbq.toggle(key="ask_evidence_widget").set_value(True).run()
    query_id = jbq.selectbox(key="jbq_query").value
    db = store.open_workspace(workspace)
    chunk = str(pooling.pairs_of_query(db, query_id, "carol")["chunk_id"].iloc[0])
    jbq.button(key="grid_grade_2").click().run()  # the current row, by its key's button
    assert not jbq.exception and queue.current_grade(db, query_id, chunk, "carol") == 2
    jbq.button(key="jbq_sentence_1").click().run()
    jbq.button(key="jbq_save_evidence").click().run()
    assert not jbq.exception and "jbq_evidence_step" not in jbq.session_state
    assert current_evidence(db, query_id, chunk) == placed_chunk(db, chunk).sentences()[1:2]
    assert jbq.toggle(key="ask_evidence_widget").value  # still asked for the next one
