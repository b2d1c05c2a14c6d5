"""The quality score: a logistic model over the candidate features (``labeling.synthetic.features``)
that predicts whether a reviewer accepts a question as written.

``score = 1 / (1 + exp(-(intercept + sum(weight_f * feature_f))))``, in [0, 1], shown as 0-100.

Before the team has decided enough candidates the weights are ``DEFAULT_WEIGHTS``: those
calibrated on graded development samples of several kinds of documentation
(``labeling.synthetic.calibration``, fitted by ``benchmarks/synthetic_calibration.py``).
``REASONED_WEIGHTS`` are the weights set by reasoning before any grading: standing alone (+2.0)
and grammar (+1.5) first, since a question that does not name its subject or does not read as
English is rejected whatever else holds; a question written from the passage's structure rather
than by moving a parsed clause's words (+1.5); specificity (+2.0 on a 0-1 scale) and the source
passage in BM25's top 3 (+1.0, with +0.5 on the reciprocal rank); brevity (+0.5); a paragraph
repeated across passages (-1.5) and a copied run of the sentence (-0.5) count against; the LLM
critic's score (+3.0 on its centred value) joins when there is one. The intercept (-5.0) puts a
question with no evidence either way low. What a question asks for (its shape) weighs 0:
reasoning could not tell which shapes hold up; graded questions did.

``fit`` learns the weights from the team's decisions: accepted as written = 1; rejected, or
accepted only after an edit = 0. It is an L2-regularised logistic regression (penalty
``1/(2C)`` on the weights, not the intercept, C = 1, the convention of scikit-learn's
``LogisticRegression``) solved by Newton's method. ``enough_decisions`` says when there are
enough: at least ``MIN_DECISIONS`` (30) decided candidates with at least ``MIN_EACH`` (5)
accepted and 5 not.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from labeling.errors import ScorecardError
from labeling.synthetic import calibration
from labeling.synthetic.features import FEATURES
from labeling.synthetic.forms import SHAPE_FEATURES, shape_features
from labeling.workspace import synthetic_candidates as stored
from labeling.workspace.store import utc_now, write_transaction

if TYPE_CHECKING:
    import sqlite_utils

INTERCEPT = "intercept"
REASONED_WEIGHTS: dict[str, float] = {
    INTERCEPT: -5.0, "specificity": 2.0, "top3": 1.0, "reciprocal_rank": 0.5,
    "standalone": 2.0, "grammar": 1.5, "repeated": -1.5, "copy": -0.5, "structured": 1.5,
    "concise": 0.5, "whole_answer": 1.0, "critic": 3.0,
    **dict.fromkeys(SHAPE_FEATURES.values(), 0.0),
}
# The default: fitted on graded development samples (``labeling.synthetic.calibration``); the
# reasoned weights until there are any.
DEFAULT_WEIGHTS: dict[str, float] = dict(calibration.CALIBRATED_WEIGHTS or REASONED_WEIGHTS)
MIN_DECISIONS = 30
MIN_EACH = 5


def score(features: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """The predicted probability of acceptance (missing features count as 0)."""
    z = weights.get(INTERCEPT, 0.0) + sum(
        weights.get(name, 0.0) * float(features.get(name, 0.0)) for name in FEATURES
    )
    return 1 / (1 + math.exp(-max(-50.0, min(50.0, z))))


def fit(x: np.ndarray, y: np.ndarray, c: float = 1.0, *, iterations: int = 100,
        tolerance: float = 1e-10) -> tuple[float, np.ndarray]:
    """(intercept, weights) of the L2 logistic regression of ``y`` (0/1) on ``x`` (rows:
    candidates, columns: features). The objective is ``sum log-loss + |w|^2 / (2C)``."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    n, m = x.shape
    design = np.hstack([np.ones((n, 1)), x])
    beta = np.zeros(m + 1)
    penalty = np.full(m + 1, 1.0 / c)
    penalty[0] = 0.0
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-np.clip(design @ beta, -50, 50)))
        gradient = design.T @ (p - y) + penalty * beta
        hessian = (design * (p * (1 - p))[:, None]).T @ design + np.diag(penalty)
        step = np.linalg.solve(hessian + 1e-12 * np.eye(m + 1), gradient)
        beta -= step
        if np.max(np.abs(step)) < tolerance:
            break
    return float(beta[0]), beta[1:]


# ---------------------------------------------------------------------------------------------
# The workspace's model


def decisions(db: sqlite_utils.Database) -> tuple[np.ndarray, np.ndarray]:
    """(features, accepted as written) of every decided candidate with stored features."""
    rows = stored.decided_features(db)
    x = np.array([[float(with_shape(json.loads(f), q, form).get(name, 0.0)) for name in FEATURES]
                  for f, _, _, q, form in rows])
    y = np.array([1.0 if s == "accepted" and same else 0.0 for _, s, same, _, _ in rows])
    return x.reshape(len(rows), len(FEATURES)), y


def with_shape(features: Mapping[str, float], question: str, form: str) -> dict[str, float]:
    """A candidate's ``features``, with the shape features read from its generated ``question``
    and ``form`` where they are missing (stored before the score weighed the shape)."""
    return {**shape_features(question, form or ""), **features}


def enough_decisions(y: Sequence[float]) -> bool:
    accepted = int(sum(1 for v in y if v == 1))
    return len(y) >= MIN_DECISIONS and accepted >= MIN_EACH and len(y) - accepted >= MIN_EACH


def current(db: sqlite_utils.Database) -> tuple[dict[str, float], dict]:
    """(weights, about): the latest learned model, else the defaults. ``about`` has
    ``source`` (default | learned), ``decisions``, ``accepted``, ``fitted_at``, ``fitted_by``."""
    row = stored.latest_quality_model(db)
    if row is None:
        return dict(DEFAULT_WEIGHTS), {"source": "default", "decisions": 0, "accepted": 0,
                                       "fitted_at": None, "fitted_by": None}
    return json.loads(row[0]), {"source": "learned", "decisions": row[1], "accepted": row[2],
                                "fitted_at": row[3], "fitted_by": row[4]}


def refit(db: sqlite_utils.Database, who: str | None = None) -> dict[str, float]:
    """Learn the weights from the team's decisions, store them and rescore every candidate
    with features (one transaction); ``ScorecardError`` when there are not enough."""
    with write_transaction(db, action="refit_quality") as conn:  # the role first
        x, y = decisions(db)
        if not enough_decisions(y):
            accepted = int(y.sum()) if len(y) else 0
            raise ScorecardError(
                f"learning the quality weights needs {MIN_DECISIONS} decided candidates with "
                f"at least {MIN_EACH} accepted as written and {MIN_EACH} not; there are "
                f"{len(y)} ({accepted} accepted as written)"
            )
        intercept, coefficients = fit(x, y)
        weights = {INTERCEPT: round(intercept, 6)}
        weights.update({name: round(float(w), 6) for name, w in zip(FEATURES, coefficients,
                                                                     strict=True)})
        stored.add_quality_model(conn, weights, len(y), int(y.sum()), who, utc_now())
        rescore(db, weights)
    return weights


def rescore(db: sqlite_utils.Database, weights: Mapping[str, float]) -> int:
    """Recompute the stored score of every candidate with features; return how many."""
    rows = stored.scored_features(db)
    with write_transaction(db, action="refit_quality") as conn:
        stored.set_quality_scores(
            conn, [(round(score(with_shape(json.loads(f), q, form), weights), 6), cid)
                   for cid, f, q, form in rows])
    return len(rows)
