"""The Review page in AppTest: accept, edit then accept, reject with a reason, batch, shortcuts."""

from __future__ import annotations

from labeling.synthetic import review
from labeling.synthetic.candidate import Candidate
from labeling.workspace.judgments import judgment_history
from labeling.workspace.store import open_workspace

QUESTIONS = [
    "How many days of annual leave do full-time employees get?",
    "When does the leave year run?",
    "What does a part-time employee get?",
]


def _seed(workspace) -> list[int]:
    db = open_workspace(workspace)
    ids = review.add_candidates(db, [Candidate("leave-01", q, "offline") for q in QUESTIONS])
    db.conn.close()
    return ids


def _open(open_app, workspace):
    ids = _seed(workspace)
    at = open_app("review")
    at.session_state["annotator"] = "carol"
    return at.run(), ids


def test_accept_edit_and_reject(open_app, workspace):
    at, ids = _open(open_app, workspace)
    assert not at.exception
    assert at.text_input(key=f"edit_{ids[0]}").value == QUESTIONS[0]
    assert at.button(key="review_accept").proto.shortcut == "a"
    assert at.button(key="review_reject").proto.shortcut == "x"
    at.button(key="review_accept").click().run()
    assert "Accepted candidate" in at.success[0].value

    edited = "How long is the leave year at Halyard?"
    at.text_input(key=f"edit_{ids[1]}").input(edited)
    at.button(key="review_accept").click().run()
    assert not at.exception

    at.selectbox(key="reject_reason").select("too easy or trivial")
    at.button(key="review_reject").click().run()
    assert "Rejected candidate" in at.success[0].value

    db = open_workspace(workspace)
    frame = review.candidates_frame(db).set_index("id")
    assert list(frame["status"]) == ["accepted", "accepted", "rejected"]
    assert frame.loc[ids[1], "question"] == edited
    assert frame.loc[ids[2], "reject_reason"] == "too easy or trivial"
    qid = frame.loc[ids[1], "query_id"]
    assert db.conn.execute("SELECT text, source FROM queries WHERE id = ?", [qid]).fetchone() == (
        edited, "synthetic"
    )
    assert judgment_history(db, qid)[0]["annotator"] == "generator"
    at.switch_page("pages/queries.py").run()
    texts = {t for df in at.dataframe if "text" in df.value.columns for t in df.value["text"]}
    assert edited in texts and QUESTIONS[0] in texts


def test_reviewing_needs_a_name(open_app, workspace):
    _seed(workspace)
    at = open_app("review")
    at.button(key="review_accept").click().run()
    assert "enter your name" in at.error[0].value
    assert review.candidates_frame(open_workspace(workspace), "pending").shape[0] == 3


def test_table_view_and_batch_reject(open_app, workspace):
    at, _ = _open(open_app, workspace)
    at.segmented_control(key="review_mode").set_value("Table").run()
    assert len(at.dataframe[0].value) == 3 and "overlap" in at.dataframe[0].value.columns
    at.selectbox(key="batch_reason").select("duplicate")
    at.button(key="batch_reject").click().run()
    assert "Rejected 3 candidates" in at.success[0].value
    stats = review.review_statistics(open_workspace(workspace))
    assert stats.loc[0, "reject_reason"] == "duplicate"


def test_generate_from_the_page(open_app, workspace):
    at = open_app("review")
    assert "No candidates yet" in at.info[0].value
    at.number_input(key="gen_sample").set_value(4)
    at.button(key="gen_button").click().run()
    assert "Queued" in at.success[0].value
    assert at.text_input  # the first candidate is shown
