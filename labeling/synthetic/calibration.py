"""The quality score's calibration: weights fitted on graded questions, and what they say about
a review queue.

``CALIBRATED_WEIGHTS`` are the default weights of ``labeling.synthetic.quality_model``: an L2
logistic regression (C = 0.1) of "accepted as written" on the candidate features, fitted on
``GRADED_QUESTIONS`` questions of ``GRADED_SAMPLES`` blind-graded samples of ``GRADED_KINDS``
kinds of text (man pages, CPython docstrings, GNU Info manuals, READMEs, HTML manuals: the rule
writer's grades; Perl POD: an independent grader's), its log-odds then tempered (scaled and
shifted) so that a kind of text the fit never saw is predicted conservatively: the accept rate
differs by kind (22% to 66%) and the features do not tell the kinds apart, so the score leans
low. ``benchmarks/synthetic_calibration.py`` fits them, checks them leaving one kind out and
writes the reliability curve (``benchmarks/results/synthetic_reliability.md``);
``DEFAULT_FLOOR`` is chosen from that curve: below it, fewer than one question in five was
accepted (pooled kinds).

``expected_accept`` says what a queue is expected to yield: the mean score of its pending
questions (a logistic model's mean prediction is its expected accept rate), and what the
weights are made of: these graded samples, or the team's own decisions after a refit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Pasted from `python benchmarks/synthetic_calibration.py` (`--check` says when they are stale).
CALIBRATED_WEIGHTS: dict[str, float] = {
    "intercept": -1.5338, "specificity": 0.1552, "top3": 0.0812, "reciprocal_rank": 0.0284,
    "standalone": 0.1911, "grammar": 0.027, "repeated": 0.1065, "copy": -0.0689,
    "structured": 0.2483, "concise": 0.0305, "whole_answer": 0.0414, "critic": 3.0,
}
GRADED_QUESTIONS = 708
GRADED_SAMPLES = 13
GRADED_KINDS = 6
DEFAULT_FLOOR = 0.23


@dataclass(frozen=True)
class Expected:
    """A queue's expected accept rate: ``share`` (0-1) of ``pending`` questions, and
    ``basis``, what the weights were fitted on."""

    share: float
    pending: int
    basis: str

    def sentence(self) -> str:
        noun = "question" if self.pending == 1 else "questions"
        return (f"About {self.share:.0%} of these {self.pending} pending {noun} are expected to "
                f"be accepted as written (the mean quality score; weights {self.basis}).")


def basis(about: Mapping[str, object]) -> str:
    """What the weights in force were fitted on (``about``: ``quality_model.current``'s)."""
    if about.get("source") == "learned":
        return f"refit on this team's {about.get('decisions')} decisions"
    return (f"calibrated on {GRADED_QUESTIONS} graded questions from {GRADED_SAMPLES} samples "
            f"of {GRADED_KINDS} kinds of documentation")


def expected_accept(scores: Sequence[float], about: Mapping[str, object]) -> Expected | None:
    """The expected accept rate of pending questions with ``scores`` (None when there are
    none)."""
    values = [float(s) for s in scores]
    if not values:
        return None
    return Expected(sum(values) / len(values), len(values), basis(about))
