"""The Review page in AppTest: the queue best first with the quality score on the card, the
floor hiding and counting, accept, edit then accept, reject with a reason, batch, shortcuts,
generating (offline; LLM with its cost shown first), settings, reviewer feedback."""

from __future__ import annotations

import json

import pytest

from labeling.synthetic import calibration, quality_model, review, settings
from labeling.synthetic.candidate import Candidate
from labeling.workspace import connections, synthetic_candidates
from labeling.workspace.judgments import judgment_history
from labeling.workspace.store import open_workspace
from tests.markup import shown
from tests.tables import table_with, tables
from tests.test_synthetic_llm import ChatServer

QUESTIONS = [
    "How many days of annual leave do full-time employees get?",
    "When does the leave year run?",
    "What does it get?",
]


def _seed(workspace) -> list[int]:
    db = open_workspace(workspace)
    ids = review.add_candidates(db, [Candidate("leave-01", q, "offline") for q in QUESTIONS])
    db.conn.close()
    return ids


def _open(open_app, workspace):
    """The Review page on the three seeded candidates, the floor at 0 so all three are
    shown."""
    ids = _seed(workspace)
    settings.set_settings(open_workspace(workspace), {"quality_floor": 0.0})
    at = open_app("review")
    at.session_state["annotator"] = "carol"
    return at.run(), ids


def _queue(workspace) -> list[int]:
    return [int(i) for i in review.review_queue(open_workspace(workspace))[0]["id"]]


def _frame_with(at, column: str):
    return table_with(at, column)


def test_the_queue_is_best_first_and_the_card_shows_the_score(open_app, workspace):
    at, ids = _open(open_app, workspace)
    assert not at.exception
    order = _queue(workspace)
    scores = review.candidates_frame(open_workspace(workspace)).set_index("id")["quality"]
    assert order == sorted(ids, key=lambda i: -scores[i])  # best first
    first = review.candidates_frame(open_workspace(workspace)).set_index("id").loc[order[0]]
    assert at.text_input(key=f"edit_{order[0]}").value == first["question"]
    assert at.metric[0].value == review.quality_label(first["quality"])
    explained = _frame_with(at, "contribution")
    assert set(explained["feature"]) >= {"intercept", "standalone", "top3", "specificity"}
    at.button(key="review_next").click().run()
    assert at.text_input(key=f"edit_{order[1]}").value


def test_the_floor_hides_candidates_and_says_how_many(open_app, workspace):
    ids = _seed(workspace)
    db = open_workspace(workspace)
    scores = review.candidates_frame(db).set_index("id")["quality"]
    lowest = int(scores.idxmin())
    settings.set_settings(db, {"quality_floor": (scores[lowest] + scores.drop(lowest).min()) / 2})
    at = open_app("review").run()
    captions = " ".join(shown(c.value) for c in at.caption)
    assert "1 candidate below the quality floor" in captions
    assert "2 of 3 candidates match" in captions
    at.segmented_control(key="review_mode").set_value("Table").run()
    assert set(_frame_with(at, "overlap")["id"]) == set(ids) - {lowest}


def test_the_queue_says_what_it_is_expected_to_yield_and_what_the_floor_hides(open_app,
                                                                           workspace):
    """Issue 32: the expected accept rate of the queue shown (the mean calibrated score of the
    pending questions the floor lets through), what the weights are made of, and how many the
    default floor (from the reliability curve) hides."""
    ids = _seed(workspace)
    db = open_workspace(workspace)
    floor = settings.get_settings(db)["quality_floor"]
    assert floor == calibration.DEFAULT_FLOOR > 0
    db.conn.execute("UPDATE synthetic_candidates SET quality = ? WHERE id = ?",
                    [floor / 2, ids[2]])  # "What does it get?" names nothing: below the floor
    db.conn.commit()
    frame = review.candidates_frame(db)
    kept = frame[frame["quality"] >= floor]
    assert len(kept) == 2
    at = open_app("review").run()
    captions = " ".join(shown(c.value) for c in at.caption)
    hidden = len(frame) - len(kept)
    noun = "candidate" if hidden == 1 else "candidates"
    assert f"{hidden} {noun} below the quality floor of {round(floor * 100)}/100" in captions
    assert (f"About {kept['quality'].mean():.0%} of these {len(kept)} pending questions are "
            "expected to be accepted as written") in captions
    assert (f"calibrated on {calibration.GRADED_QUESTIONS} graded questions from "
            f"{calibration.GRADED_SAMPLES} samples of {calibration.GRADED_KINDS} kinds") in captions
    assert (f"at the level of text it had never seen; {calibration.SAMPLES_OFF} of "
            f"{calibration.FIRST_CONTACT_SAMPLES} samples of such text had a half "
            f"{calibration.KIND_ERROR} points or more off") in captions
    weights = {"intercept": 0.0}  # every score 0.5: a learned model, as refit stores one
    db.conn.execute("INSERT INTO synthetic_quality_models (weights, decisions, accepted, "
                    "fitted_by, fitted_at) VALUES (?, 40, 20, 'carol', '2026-01-01T00:00:00Z')",
                    [json.dumps(weights)])
    db.conn.commit()
    quality_model.rescore(db, weights)
    at = open_app("review").run()
    captions = " ".join(shown(c.value) for c in at.caption)
    assert f"About 50% of these {len(ids)} pending questions are expected" in captions
    assert "refit on this team's 40 decisions" in captions
    assert "below the quality floor" not in captions


def test_the_expected_rate_is_corrected_by_the_teams_first_decisions(open_app, workspace):
    """Issue 32: before a refit, the decisions made so far correct the default score's
    expected accept rate (calibration.kind_shift), and the caption says by how many."""
    at, ids = _open(open_app, workspace)
    at.button(key="review_accept").click().run()  # the best one, accepted as written
    db = open_workspace(workspace)
    pending = review.candidates_frame(db)
    pending = pending[pending["status"] == "pending"]
    scores, accepted = synthetic_candidates.decided_scores(db)
    corrected = calibration.expected_accept(pending["quality"].tolist(), {"source": "default"},
                                            (scores, accepted))
    assert corrected.share > pending["quality"].mean()  # one accepted: the estimate rises
    at = open_app("review").run()
    captions = " ".join(shown(c.value) for c in at.caption)
    assert (f"About {corrected.share:.0%} of these 2 pending questions are expected to be "
            "accepted as written (the mean quality score, corrected by this workspace's 1 "
            "decision: 1 accepted as written where the score expected") in captions


def test_accept_edit_and_reject(open_app, workspace):
    at, ids = _open(open_app, workspace)
    order = _queue(workspace)
    assert at.button(key="review_accept").proto.shortcut == "a"
    assert at.button(key="review_reject").proto.shortcut == "x"
    at.button(key="review_accept").click().run()
    assert "Accepted candidate" in at.success[0].value

    edited = "How long is the leave year at Halyard?"
    at.text_input(key=f"edit_{order[1]}").input(edited)
    at.button(key="review_accept").click().run()
    assert not at.exception

    at.selectbox(key="reject_reason").select("vague or ambiguous")
    at.button(key="review_reject").click().run()
    assert "Rejected candidate" in at.success[0].value

    db = open_workspace(workspace)
    frame = review.candidates_frame(db).set_index("id")
    assert frame.loc[order, "status"].tolist() == ["accepted", "accepted", "rejected"]
    assert frame.loc[order[1], "question"] == edited
    assert frame.loc[order[2], "reject_reason"] == "vague or ambiguous"
    qid = frame.loc[order[1], "query_id"]
    assert db.conn.execute("SELECT text, source FROM queries WHERE id = ?", [qid]).fetchone() == (
        edited, "synthetic"
    )
    assert judgment_history(db, qid)[0]["annotator"] == "generator"
    feedback = _frame_with(at.run(), "reason")
    assert feedback.to_dict("records") == [
        {"reason": "vague or ambiguous", "rejected": 1, "share": 1.0}]
    edits = _frame_with(at, "accepted as")
    assert edits["accepted as"].tolist() == [edited]
    at.switch_page("pages/queries.py").run()
    texts = {t for df in tables(at) if "text" in df.columns for t in df["text"]}
    assert edited in texts


def test_reviewing_needs_a_name(open_app, workspace):
    _seed(workspace)
    at = open_app("review")
    at.button(key="review_accept").click().run()
    assert "enter your name" in at.error[0].value
    assert review.candidates_frame(open_workspace(workspace), "pending").shape[0] == 3


def test_table_view_and_batch_reject(open_app, workspace):
    at, _ = _open(open_app, workspace)
    at.segmented_control(key="review_mode").set_value("Table").run()
    table = _frame_with(at, "overlap")
    assert len(table) == 3 and table["quality"].is_monotonic_decreasing
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
    assert not at.exception
    assert "Queued" in at.success[0].value
    assert at.text_input  # the first candidate is shown


def _model_server(workspace, url: str, key_env: str = "") -> None:
    """A model server stored by the owner, as an admin would on the page."""
    connections.save_connection(open_workspace(workspace), connections.MODEL_SERVER, "local",
                                url, "tiny-model", key_env, 100)


def test_the_llm_batch_shows_its_cost_first(open_app, workspace, monkeypatch):
    monkeypatch.setenv("TEAM_KEY", "sk-x")
    _model_server(workspace, "http://127.0.0.1:9/v1", "TEAM_KEY")
    settings.set_settings(open_workspace(workspace), {"llm_max_calls": 6})
    at = open_app("review")
    at.selectbox(key="gen_generator").select("llm").run()
    assert at.selectbox(key="gen_connection").value == "local"
    at.number_input(key="gen_sample").set_value(5).run()
    captions = " ".join(shown(c.value) for c in at.caption)
    assert "This batch sends 3 passages: 6 calls, about" in captions
    assert "2 passages are beyond the call cap" in captions
    monkeypatch.delenv("TEAM_KEY")
    at.run()
    assert "takes its key from TEAM_KEY, which is not set" in shown(at.warning[0].value)
    assert at.button(key="gen_button").disabled


def test_settings_are_saved(open_app, workspace):
    at = open_app("review").run()
    assert at.button(key="set_save").disabled is False  # no accounts: everyone may
    at.slider(key="set_floor").set_value(40)
    at.number_input(key="set_mix_keyword").set_value(0.5)
    at.text_input(key="set_domain").input("the Halyard handbook")
    at.button(key="set_save").click().run()
    stored = settings.get_settings(open_workspace(workspace))
    assert stored["quality_floor"] == 0.4 and stored["llm_domain"] == "the Halyard handbook"
    assert stored["form_mix"]["keyword"] == pytest.approx(0.5 / 1.3)  # shares renormalised
    assert "Saved" in at.success[0].value


def test_an_llm_batch_from_the_page_counts_and_shows_unmatched_replies(
    open_app, workspace, monkeypatch
):
    server = ChatServer()
    try:
        _model_server(workspace, server.url)
        server.script = ["unmatched", "good"]
        at = open_app("review")
        at.selectbox(key="gen_generator").select("llm").run()
        at.number_input(key="gen_sample").set_value(2).run()
        at.button(key="gen_button").click().run()
        assert not at.exception
        warnings = " ".join(shown(w.value) for w in at.warning)
        assert "1 replies gave an answer that is not in their passage" in warnings
        assert "Queued 3 candidates" in shown(at.success[0].value)
        unmatched = _frame_with(at, "answer")
        assert unmatched[["question", "answer"]].values.tolist() == [
            ["What is invented?", "not in the passage"]]
        runs = _frame_with(at, "unmatched")
        assert runs[["passages", "done", "calls", "unmatched"]].values.tolist() == [[2, 2, 4, 1]]
    finally:
        server.close()
