"""The quality score's calibration: weights fitted on graded questions, and what they say about
a review queue.

``CALIBRATED_WEIGHTS`` are the default weights of ``labeling.synthetic.quality_model``: an L2
logistic regression (C = 1) of "accepted as written" on the candidate features, fitted on the
``GRADED_QUESTIONS`` questions of ``GRADED_SAMPLES`` samples of ``GRADED_KINDS`` kinds of text
that the precision-first generator asked, each graded blind by an independent grader (Javadoc,
the Python Language Reference, GNU Info, READMEs, HTML manuals, Vim help, CMake help, Perl POD,
manual pages, the AWS CLI's and npm's documentation, the Rust book, pandas's docstrings, the
Rust edition guide, the Cargo book, Rust's standard library docs, the Rust Reference, the rustc
book), every question as it was generated. It is not tempered: a logistic model's mean
prediction is its expected accept rate. ``benchmarks/synthetic_calibration.py`` fits it, checks
it leaving one kind out (each kind predicted by a fit on the others) and writes the reliability
curve (``benchmarks/results/synthetic_reliability.md``). The accept rate differs by kind far
more than these features tell (21% to 97% here; a feature's weight can change sign when a kind
is added), so for a kind the fit never saw the expected rate can be 20 points or more off in
either direction: predicted from the others, ``KINDS_OFF`` of the ``GRADED_KINDS`` kinds had a
half of their sample ``KIND_ERROR`` (20) points or more off, which the Review page says.
``DEFAULT_FLOOR`` is chosen from the left-out curve: the lowest score of the first decile, from
the bottom, accepted at least one time in five; no decile fell below that, so the floor hides
only what scores below every graded question.

The features the generator's screens leave no spread in carry little weight: seven graded
questions in 864 pointed at something unnamed (``standalone`` 0), so the fit cannot say what
pointing costs; the offline generator does not ask such questions and the LLM path's critic
rates them.

``expected_accept`` says what a queue is expected to yield: the mean score of its pending
questions (a logistic model's mean prediction is its expected accept rate), and what the
weights are made of: these graded samples, or the team's own decisions after a refit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Pasted from `python benchmarks/synthetic_calibration.py` (`--check` says when they are stale).
CALIBRATED_WEIGHTS: dict[str, float] = {
    "intercept": -1.1101, "specificity": 0.052, "top3": 0.3739, "reciprocal_rank": -0.7505,
    "standalone": -0.6489, "grammar": 0.7645, "repeated": -0.3129, "copy": -0.9208,
    "structured": 1.1023, "concise": 0.5287, "whole_answer": 0.9156, "critic": 3.0,
}
GRADED_QUESTIONS = 864
GRADED_SAMPLES = 19
GRADED_KINDS = 18
DEFAULT_FLOOR = 0.14
# What the Review page warns of: on KINDS_OFF of the GRADED_KINDS kinds, each predicted by a
# fit on the others (benchmarks/results/synthetic_reliability.md), a half of the sample was
# KIND_ERROR points or more from its predicted accept rate.
KIND_ERROR = 20
KINDS_OFF = 13


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
            f"of {GRADED_KINDS} kinds of documentation; predicted from the other kinds, "
            f"{KINDS_OFF} of those {GRADED_KINDS} kinds had a half of the sample {KIND_ERROR} "
            f"points or more off: refit on your own decisions")


def expected_accept(scores: Sequence[float], about: Mapping[str, object]) -> Expected | None:
    """The expected accept rate of pending questions with ``scores`` (None when there are
    none)."""
    values = [float(s) for s in scores]
    if not values:
        return None
    return Expected(sum(values) / len(values), len(values), basis(about))
