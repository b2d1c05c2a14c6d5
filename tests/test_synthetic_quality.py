"""The quality score of synthetic questions: its features, the default and learned logistic
weights (equal to scikit-learn's), the review queue best first with the team's floor, the
settings, the question forms and mix, and the reviewer feedback report."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from labeling.errors import InputError, ScorecardError
from labeling.synthetic import (
    batches,
    calibration,
    features,
    forms,
    keywords,
    quality_model,
    review,
    settings,
)
from labeling.synthetic.candidate import Candidate
from labeling.synthetic.features import FEATURES
from labeling.workspace import roles, synthetic_candidates

# Passages of real manual pages (man-db 2.11, 80 columns): what the features read.
CHUNKS = [
    {"id": "setpriv-1", "doc_id": "setpriv.1", "title": "setpriv(1): Options",
     "text": "--clear-groups\n    Clear supplementary groups.\n\n-d, --dump\n    Dump the "
             "current privilege state."},
    {"id": "delpart-1", "doc_id": "delpart.8", "title": "delpart(8): Options",
     "text": "-h, --help\n    Display help text and exit.\n\n-V, --version\n    Print version "
             "and exit."},
    {"id": "addpart-1", "doc_id": "addpart.8", "title": "addpart(8): Options",
     "text": "-h, --help\n    Display help text and exit.\n\n-V, --version\n    Print version "
             "and exit."},
    {"id": "mtrace-1", "doc_id": "mtrace.1", "title": "mtrace(1): Name",
     "text": "NAME\nmtrace - interpret the malloc trace log"},
]


@pytest.fixture
def db(make_workspace):
    return make_workspace(chunks=CHUNKS)


def test_logistic_fit_equals_scikit_learn():
    rng = np.random.default_rng(7)
    x = rng.random((300, len(FEATURES)))
    truth = rng.normal(size=len(FEATURES))
    y = (rng.random(300) < 1 / (1 + np.exp(-(x @ truth - truth.sum() / 2)))).astype(float)
    intercept, weights = quality_model.fit(x, y)
    peer = LogisticRegression(C=1.0, solver="newton-cholesky", tol=1e-12, max_iter=1000).fit(x, y)
    assert intercept == pytest.approx(peer.intercept_[0], abs=1e-6)
    assert weights == pytest.approx(peer.coef_[0], abs=1e-6)


def test_reasoned_score_orders_by_the_documented_weights():
    reasoned = quality_model.REASONED_WEIGHTS
    good = {"specificity": 0.8, "top3": 1, "reciprocal_rank": 1, "standalone": 1, "grammar": 1,
            "structured": 1, "concise": 1, "whole_answer": 1}
    score = quality_model.score(good, reasoned)
    z = sum(reasoned[k] * v for k, v in good.items()) - 5.0
    assert score == pytest.approx(1 / (1 + np.exp(-z)))
    for worse in ({"standalone": 0}, {"grammar": 0}, {"repeated": 1}, {"top3": 0},
                  {"critic": -0.5}):
        assert quality_model.score({**good, **worse}, reasoned) < score
    assert quality_model.score({**good, "critic": 0.5}, reasoned) > score


def test_the_default_weights_are_the_calibrated_ones():
    """Issue 32: the default score is fitted on graded samples, the critic's weight reasoned
    (no graded question had one); the default floor comes from the same curve."""
    assert quality_model.DEFAULT_WEIGHTS == calibration.CALIBRATED_WEIGHTS
    assert calibration.GRADED_KINDS >= 2 and calibration.GRADED_QUESTIONS > 0
    assert quality_model.DEFAULT_WEIGHTS["critic"] == quality_model.REASONED_WEIGHTS["critic"]
    assert settings.DEFAULTS["quality_floor"] == calibration.DEFAULT_FLOOR


def test_features_read_the_workspace(db):
    space = features.Workspace.read(db)
    assert features.specificity("setpriv supplementary groups", space) > features.specificity(
        "display help text exit", space)  # the help line is in two of the four chunks
    cands = [
        Candidate("setpriv-1", "How do I clear supplementary groups with setpriv?", "offline",
                  answer="--clear-groups", answer_start=0, answer_end=14),
        Candidate("delpart-1", "What does it display?", "offline", answer="help text",
                  answer_start=23, answer_end=32, structured=False),
    ]
    (good, trip), (bad, _) = features.compute(cands, space)
    assert trip.rank == 1 and good["top3"] == 1.0 and good["reciprocal_rank"] == 1.0
    assert (good["standalone"], bad["standalone"]) == (1.0, 0.0)
    assert (good["repeated"], bad["repeated"]) == (0.0, 1.0)
    assert (good["whole_answer"], bad["whole_answer"]) == (1.0, 0.0)
    assert (good["structured"], bad["structured"]) == (1.0, 0.0)
    assert (good["asks_how_to"], bad["asks_how_to"]) == (1.0, 0.0)  # a how-to; a fact
    assert set(good) == set(FEATURES)


def _decide(db, n_good: int, n_bad: int) -> list[int]:
    good = [Candidate("setpriv-1", f"How do I clear supplementary groups with setpriv {i}?",
                      "offline", answer="--clear-groups", answer_start=0, answer_end=14)
            for i in range(n_good)]
    bad = [Candidate("delpart-1", f"What does it show {i}?", "offline", structured=False)
           for i in range(n_bad)]
    ids = review.add_candidates(db, good + bad)
    for cid in ids[:n_good]:
        review.accept(db, cid, "ann")
    for cid in ids[n_good:]:
        review.reject(db, cid, "ann", "vague or ambiguous")
    return ids


def test_refit_needs_enough_decisions_then_learns_and_rescores(db):
    _decide(db, 3, 3)
    with pytest.raises(ScorecardError, match="needs 30 decided candidates"):
        quality_model.refit(db)
    assert quality_model.current(db)[1]["source"] == "default"
    ids = _decide(db, 20, 20)
    [pending] = review.add_candidates(db, [Candidate(
        "setpriv-1", "How do I dump the current privilege state with setpriv?", "offline")])
    before = review.candidates_frame(db).set_index("id").loc[pending, "quality"]
    weights = quality_model.refit(db, "ann")
    weights_now, about = quality_model.current(db)
    assert weights_now == weights and about["source"] == "learned"
    assert (about["decisions"], about["accepted"], about["fitted_by"]) == (46, 23, "ann")
    frame = review.candidates_frame(db).set_index("id")
    after = frame.loc[pending, "quality"]
    assert after == pytest.approx(quality_model.score(frame.loc[pending, "features"], weights))
    assert after != before
    assert frame.loc[ids[0], "quality"] > frame.loc[ids[-1], "quality"]


def test_an_edited_acceptance_counts_as_not_accepted_as_written(db):
    ids = review.add_candidates(db, [Candidate("mtrace-1", "What does mtrace do?", "offline"),
                                     Candidate("mtrace-1", "What does mtrace print?", "offline")])
    review.accept(db, ids[0], "ann")
    review.accept(db, ids[1], "ann", question="What does mtrace interpret?")
    _, y = quality_model.decisions(db)
    assert list(y) == [1.0, 0.0]


def test_review_queue_is_best_first_and_the_floor_hides_and_counts(db):
    ids = review.add_candidates(db, [
        Candidate("setpriv-1", "How do I clear supplementary groups with setpriv?", "offline",
                  answer="--clear-groups", answer_start=0, answer_end=14),
        Candidate("delpart-1", "What does it show?", "offline", structured=False),
        Candidate("mtrace-1", "Which command interprets the malloc trace log?", "offline",
                  answer="mtrace", answer_start=5, answer_end=11),
    ])
    db.conn.execute("UPDATE synthetic_candidates SET quality = NULL WHERE id = ?", [ids[2]])
    settings.set_settings(db, {"quality_floor": 0.0})  # the default floor hides the vague one
    shown, hidden = review.review_queue(db)
    assert list(shown["id"]) == [ids[0], ids[1], ids[2]] and hidden == 0  # unscored last
    scores = shown["quality"].tolist()
    floor = (scores[0] + scores[1]) / 2
    settings.set_settings(db, {"quality_floor": floor})
    shown, hidden = review.review_queue(db)
    assert list(shown["id"]) == [ids[0], ids[2]] and hidden == 1


def test_settings_are_checked_stored_and_admin_only(make_workspace):
    db = make_workspace(chunks=CHUNKS, accounts={"ada": "admin", "ann": "annotator"})
    assert settings.get_settings(db)["form_mix"] == forms.DEFAULT_MIX
    stored = settings.set_settings(db, {"form_mix": {"how-to": 2, "keyword": 2},
                                        "llm_domain": " Linux   manual pages "}, "ada")
    assert stored["form_mix"] == {"how-to": 0.5, "what-why": 0.0, "comparison": 0.0,
                                  "keyword": 0.5}
    assert stored["llm_domain"] == "Linux manual pages"
    for bad, message in [({"quality_floor": 1.5}, "quality_floor: the quality floor is"),
                         ({"form_mix": {"essay": 1}}, "unknown question form 'essay'"),
                         ({"llm_max_calls": 1}, "llm_max_calls: the call cap"),
                         ({"colour": "red"}, "unknown setting 'colour'")]:
        with pytest.raises(InputError, match=message):
            settings.set_settings(db, bad)
    assert settings.get_settings(db)["quality_floor"] == settings.DEFAULTS["quality_floor"]
    with roles.acting_as("ann"), pytest.raises(roles.AccessDenied, match="settings"):
        settings.set_settings(db, {"quality_floor": 0.5})
    with roles.acting_as("ada"):
        assert settings.set_settings(db, {"quality_floor": 0.5})["quality_floor"] == 0.5


def test_candidates_stored_before_the_shape_features_are_scored_with_them(db):
    [cid] = review.add_candidates(db, [Candidate(
        "setpriv-1", "How do I dump the current privilege state with setpriv?", "offline")])
    stored = review.candidates_frame(db).set_index("id").loc[cid, "features"]
    older = {k: v for k, v in stored.items() if k not in forms.SHAPE_FEATURES.values()}
    db["synthetic_candidates"].update(cid, {"features": json.dumps(older)})  # an older release
    weights = {**quality_model.DEFAULT_WEIGHTS, "asks_how_to": -3.0}
    quality_model.rescore(db, weights)
    rescored = review.candidates_frame(db).set_index("id").loc[cid, "quality"]
    assert stored["asks_how_to"] == 1.0
    assert rescored == pytest.approx(quality_model.score(stored, weights), abs=1e-6)
    assert rescored < quality_model.score(older, weights)


def test_a_viewer_cannot_refit(make_workspace):
    db = make_workspace(chunks=CHUNKS, accounts={"ada": "admin", "vic": "viewer"})
    with roles.acting_as("vic"), pytest.raises(roles.AccessDenied, match="quality weights"):
        quality_model.rescore(db, quality_model.DEFAULT_WEIGHTS)


def test_forms_mix_and_keyword_queries():
    assert forms.allocate(forms.DEFAULT_MIX, 10) == {"how-to": 4, "what-why": 3,
                                                     "comparison": 1, "keyword": 2}
    assert sum(forms.allocate({"how-to": 1, "keyword": 2}, 7).values()) == 7
    assert forms.form_of("How do I keep input files with gzip?") == "how-to"
    assert forms.form_of("What is the difference between strtol() and strtoll()?") == (
        "comparison")
    assert forms.form_of("gzip keep input files") == "keyword"
    assert forms.form_of("Why does gzip ignore symbolic links?") == "what-why"
    assert keywords.keyword_for("What does the --keep option of gzip do?") == (
        "gzip --keep option")


def test_the_mix_sets_the_forms_of_a_batch(make_workspace):
    shares = {}
    for form in ("keyword", "what-why"):
        db = make_workspace(chunks=CHUNKS)
        settings.set_settings(db, {"form_mix": {form: 1}})
        batches.run(db, 4, seed=3, per_chunk=1)
        frame = review.candidates_frame(db)
        assert len(frame) >= 2 and (frame["form"] != "").all()  # a help entry is on two pages
        shares[form] = (frame["form"] == form).mean()
        recorded = json.loads(db.conn.execute(
            "SELECT settings FROM synthetic_batches").fetchone()[0])
        assert recorded["form_mix"][form] == 1.0 and recorded["seed"] == 3
    assert shares["keyword"] >= 0.75 and shares["what-why"] >= 0.75


def test_feedback_report(db):
    ids = review.add_candidates(db, [
        Candidate("setpriv-1", "How do I clear supplementary groups with setpriv?", "offline"),
        Candidate("setpriv-1", "setpriv --dump", "llm:m", form="keyword"),
        Candidate("delpart-1", "What does it show?", "offline"),
        Candidate("mtrace-1", "What does mtrace do?", "offline"),
    ])
    review.accept(db, ids[0], "ann")
    review.accept(db, ids[1], "ann", question="setpriv dump privilege state")
    review.reject(db, ids[2], "ann", "vague or ambiguous")
    report = review.feedback(db)
    assert report["reasons"].to_dict("records") == [
        {"reason": "vague or ambiguous", "rejected": 1, "share": 1.0}]
    assert report["edits"].to_dict("records") == [
        {"generated": "setpriv --dump", "accepted as": "setpriv dump privilege state"}]
    by_form = report["by_form"].set_index("form")
    assert by_form.loc["how-to", "accept_rate"] == 1.0
    assert by_form.loc["keyword", "as_written_rate"] == 0.0
    assert by_form.loc["what-why", "pending"] == 1
    by_source = report["by_source"].set_index("source")
    assert by_source.loc["setpriv.1", "decided"] == 2
    assert by_source.loc["delpart.8", "accept_rate"] == 0.0
    by_generator = report["by_generator"].set_index("generator")
    assert by_generator.loc["offline", "accept_rate"] == 0.5
    assert "vague or ambiguous" in review.REJECT_REASONS


# --- the correction from a team's first decisions (issue 32) -------------------------------------


def _logit(p):
    return np.log(p / (1 - p))


def test_kind_shift_is_the_maximum_of_its_objective_as_scipy_finds_it():
    from scipy.optimize import minimize_scalar

    rng = np.random.default_rng(11)
    scores = rng.uniform(0.3, 0.95, 25)
    accepted = (rng.random(25) < 0.5).astype(float)
    sd = calibration.KIND_SHIFT_SD

    def loss(d):
        p = 1 / (1 + np.exp(-(_logit(scores) + d)))
        return -np.sum(accepted * np.log(p) + (1 - accepted) * np.log(1 - p)) + d**2 / (2 * sd**2)

    peer = minimize_scalar(loss, bounds=(-10, 10), method="bounded",
                           options={"xatol": 1e-10}).x
    assert calibration.kind_shift(scores, accepted) == pytest.approx(peer, abs=1e-6)
    assert calibration.kind_shift([], []) == 0.0
    assert calibration.kind_shift([0.5] * 10, [1.0] * 10) > 0 > calibration.kind_shift(
        [0.5] * 10, [0.0] * 10)


def test_the_correction_brings_a_kinds_expected_rate_closer_in_a_seeded_simulation():
    """Kinds whose true offset from the score is drawn from the prior: after 20 decisions the
    corrected expected accept rate of the rest is closer to the rate the kind really has than
    the score alone, on average and for most kinds, and it never moves without decisions."""
    rng = np.random.default_rng(32)
    closer, errors_before, errors_after = 0, [], []
    for _ in range(200):
        offset = rng.normal(0, calibration.KIND_SHIFT_SD)
        scores = rng.uniform(0.4, 0.9, 120)
        truth = 1 / (1 + np.exp(-(_logit(scores) + offset)))
        accepted = (rng.random(120) < truth).astype(float)
        about = {"source": "default"}
        plain = calibration.expected_accept(scores[20:], about)
        fixed = calibration.expected_accept(scores[20:], about, (scores[:20], accepted[:20]))
        assert plain.decided is None and fixed.decided.decisions == 20
        real = truth[20:].mean()
        errors_before.append(abs(plain.share - real))
        errors_after.append(abs(fixed.share - real))
        closer += errors_after[-1] < errors_before[-1]
    assert np.mean(errors_after) < 0.75 * np.mean(errors_before)
    assert closer > 120


def test_the_correction_is_said_and_dropped_once_the_team_has_refitted():
    about = {"source": "default"}
    fixed = calibration.expected_accept([0.5, 0.5], about, ([0.5] * 4, [1, 1, 1, 0]))
    assert fixed.share > 0.5
    assert ("corrected by this workspace's 4 decisions: 3 accepted as written where the score "
            "expected 2.0") in fixed.sentence()
    learned = calibration.expected_accept([0.5, 0.5], {"source": "learned", "decisions": 40},
                                          ([0.5] * 4, [1, 1, 1, 0]))
    assert learned.share == 0.5 and learned.decided is None
    assert "corrected" not in learned.sentence()


def test_the_queue_sentence_reads_the_workspace_decisions(db):
    _decide(db, 4, 1)
    [pending] = review.add_candidates(db, [Candidate(
        "setpriv-1", "How do I dump the current privilege state with setpriv?", "offline")])
    shown, _ = review.review_queue(db)
    sentence = review.expected_sentence(shown, db)
    scores, accepted = synthetic_candidates.decided_scores(db)
    assert (len(scores), sum(accepted)) == (5, 4)
    assert scores == pytest.approx([  # the default scores, as stored (to 6 decimals)
        quality_model.score(json.loads(f), quality_model.DEFAULT_WEIGHTS)
        for f, *_ in synthetic_candidates.decided_features(db)], abs=5e-7)
    expected = calibration.expected_accept(
        shown[shown["status"] == "pending"]["quality"].tolist(), {"source": "default"},
        (scores, accepted))
    assert sentence == expected.sentence()
    assert "corrected by this workspace's 5 decisions: 4 accepted as written" in sentence
