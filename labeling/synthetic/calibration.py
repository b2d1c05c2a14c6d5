"""The quality score's calibration: weights fitted on graded questions, and what they say about
a review queue.

``CALIBRATED_WEIGHTS`` are the default weights of ``labeling.synthetic.quality_model``: an L2
logistic regression (C = 1) of "accepted as written" on the candidate features, fitted on the
``GRADED_QUESTIONS`` blind-graded questions of ``GRADED_SAMPLES`` samples of ``GRADED_KINDS``
kinds of text of this generator's family (GNU Info and HTML manuals: the rule writer's grades;
Perl POD, CMake help, Vim help, Javadoc, the Rust error index and the Python Language
Reference: independent graders', each sample held out when drawn),
every question as it was generated (the rules were since tuned on them: a fit on only the
questions they still ask over-predicted the held-out rounds). It is not tempered: a logistic
model's mean prediction is its expected accept rate. ``benchmarks/synthetic_calibration.py``
fits it, checks it leaving one kind out (each kind predicted by a fit on the others) and writes
the reliability curve (``benchmarks/results/synthetic_reliability.md``); ``DEFAULT_FLOOR`` is
chosen from the left-out curve: below it, fewer than one question in five was accepted on a
kind the fit never saw.

``expected_accept`` says what a queue is expected to yield: the mean score of its pending
questions (a logistic model's mean prediction is its expected accept rate), and what the
weights are made of: these graded samples, or the team's own decisions after a refit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Pasted from `python benchmarks/synthetic_calibration.py` (`--check` says when they are stale).
CALIBRATED_WEIGHTS: dict[str, float] = {
    "intercept": -3.3936, "specificity": 0.9058, "top3": 0.6826, "reciprocal_rank": 0.4687,
    "standalone": -0.0436, "grammar": 0.1747, "repeated": 1.423, "copy": -0.3224,
    "structured": 0.8495, "concise": 0.2764, "whole_answer": 0.9858, "critic": 3.0,
}
GRADED_QUESTIONS = 336
GRADED_SAMPLES = 10
GRADED_KINDS = 8
DEFAULT_FLOOR = 0.25


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
