"""The quality score's calibration: weights fitted on graded questions, and what they say about a
review queue.

``CALIBRATED_WEIGHTS`` are the default weights of ``labeling.synthetic.quality_model``: an L2
logistic regression (C = 1) of "accepted as written" on the candidate features, fitted on the
``GRADED_QUESTIONS`` graded questions that today's generator still asks, from ``GRADED_SAMPLES``
samples of ``GRADED_KINDS`` kinds of text, each graded blind by an independent grader (Javadoc, the
Python Language Reference, GNU Info, READMEs, HTML manuals, Vim help, CMake help, Perl POD, manual
pages, the AWS CLI's and npm's documentation, the Rust book, pandas's docstrings, the Rust edition
guide, the Cargo book, Rust's standard library docs, the Rust Reference, the rustc book, Node.js's
API docs, PostgreSQL's SQL reference, third-party Python libraries' docstrings, Perl's diagnostic
messages, the Apache HTTP Server's module reference, SQLite's C interface reference, Go's doc
comments, Ruby's ri reference, R's help pages, gnuplot's help, SWI-Prolog's reference, the
Erlang/OTP module reference, the Racket Reference, the gtk-doc references of GTK, GLib and GIO, the
OCaml standard library's reference, the Haddock reference of GHC's libraries, Tcl's command
reference, SDL2's Doxygen reference, cppreference's C++ reference, the Ada 2012 Reference Manual, Qt
5's class reference, LLVM's documentation, Django's documentation, GNU Octave's manual, the GIMP
user manual, LilyPond's manuals, the SBCL and PostGIS manuals, the zsh manual, KiCad's manuals, the
Debian Administrator's Handbook, LibreOffice's help, SQLAlchemy's documentation, FFmpeg's manuals,
the BIND 9 Administrator Reference Manual, HAProxy's configuration manual, GnuCash's guide and help,
the Maxima manual, the Exim specification, SciPy's API reference, Postfix's guides, Jinja's,
Werkzeug's, libvirt's and rsyslog's documentation). Graded questions the generator no longer asks
are left out: they were accepted 38% of the time (of 1,537; 73% of the 4,579 still asked) and pulled
every prediction under what the generator's questions earn. A feature the generator's screens leave
without spread (the critic, which no graded question had, and grammar) keeps its reasoned weight,
and a weight the fit puts against its reasoned sign (standing alone: confounded with the others by
the screens) weighs 0, so that a model's or an import's question that names nothing does not score
higher for it. What a question asks for weighs most after the structure it came from: a return value
(+1.15 on the logit scale) above a fact, a purpose level with one (+0.07), a behaviour ("What does X
do?", -1.42), a how-to (-1.15) and a comparison (-2.03) below it. On the 31 kinds graded up to round
34, leaving one kind out put 24 of 62 halves within 10 points without these shape features, and the
top decile of the left-out predictions was accepted 57% of the time (predicted 88%); with them, 30
of 62 and 93% (predicted 94%); with the 63 kinds of today, 61 of 126 and 84% (predicted 91%): a
count that moves with a few questions (on 34 kinds, 33 of 68 before six rejected questions were
screened, 27 after). It is not tempered: a logistic model's mean prediction is its expected accept
rate. ``benchmarks/synthetic_calibration.py`` fits it, checks it leaving one kind out (each kind
predicted by a fit on the others) and writes the reliability curves
(``benchmarks/results/synthetic_reliability.md``).

Its level is then set for text the generator has never seen, which is what a team's own
documentation is: the questions still asked are those that earlier rounds' mends made better, so a
fit on them expected more of a new kind than it gave (the 44 held-out samples of 20 questions or
more from round 17 on, each graded as first generated and predicted by the fit on the rounds before
it: the mean prediction over the observed in 32, by 12 points at the median, from 16 under to 38
over). ``FIRST_CONTACT_SHIFT``, in the intercept, is the offset on the logit scale that the held-out
samples, graded as generated, put on the fit: the one that makes its mean prediction their accept
rate. Checked the same way (each held-out sample with the level of the samples before it), the
halves within 10 points went from 38 of 88 to 41 of 88 (mean error 14.3 to 12.6 points). The accept
rate still differs by kind more than the features tell (22% to 99% of a held-out sample's questions
as generated were accepted), so for a kind the fit never saw the expected rate can be 20 points or
more off in either direction: with the level, ``SAMPLES_OFF`` of the ``FIRST_CONTACT_SAMPLES``
held-out samples had a half ``KIND_ERROR`` (20) points or more off, which the Review page says. That
spread is most of the error: in a seeded simulation on those samples' own predictions, a score right
on average over kinds would put both halves of a new kind within 10 points 78% of the time if kinds
did not differ and 31% with their spread (``KIND_SHIFT_SD``); 11 of the 44 did. The spread is the
text's and the generator's, not the grader's: where three independent graders graded the same
held-out sample, their offsets from the score spread 0.22 on the logit scale
(``benchmarks/results/synthetic_agreement.md``). ``DEFAULT_FLOOR`` is chosen from that first-contact
curve (``benchmarks/results/synthetic_reliability.md``): the lowest score of the first decile, from
the bottom, accepted at least one time in five; no decile fell below that, so the floor hides only
what scores below every graded question.

``expected_accept`` says what a queue is expected to yield: the mean score of its pending questions
(a logistic model's mean prediction is its expected accept rate), and what the weights are made of:
these graded samples, or the team's own decisions after a refit. Before a refit, the team's first
decisions already correct the default score for their kind of text: ``kind_shift`` is the offset, on
the logit scale, that those decisions put on every default score, with a normal prior centred on no
offset whose spread, ``KIND_SHIFT_SD``, is the graded held-out samples' own (each predicted by the
fit before it, with the level; the method of moments: the mean square of their fitted offsets less
their sampling variance). In the benchmark's seeded simulation, the share of left-out halves
predicted within 10 points goes from 52% to 62% after 20 decisions and from 51% to 63% after 30,
where a refit on those 30 reaches 59%; on held-out samples (scored without the shape features) it
helped where the kind's level was off (round 27: from 51% to 64% after 20; rounds 32 and 33: from
22% and 32% after 10 to 50% and 60% after 30) and not where the order within the kind was (rounds 29
to 31).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Pasted from `python benchmarks/synthetic_calibration.py` (`--check` says when they are stale).
CALIBRATED_WEIGHTS: dict[str, float] = {
    "intercept": -3.5055, "specificity": 0.4521, "top3": 0.1294, "reciprocal_rank": 0.1021,
    "standalone": 0.0, "grammar": 1.5, "repeated": -0.1348, "copy": -0.3612, "structured": 1.4545,
    "concise": 1.0573, "whole_answer": 0.8758, "critic": 3.0, "asks_return": 1.1463,
    "asks_purpose": 0.0733, "asks_behaviour": -1.417, "asks_how_to": -1.1474,
    "asks_comparison": -2.033, "keyword_query": 0.5243,
}
GRADED_QUESTIONS = 4579
GRADED_SAMPLES = 64
GRADED_KINDS = 63
DEFAULT_FLOOR = 0.18
# The level of text the generator has never seen, on the logit scale (in the intercept above).
FIRST_CONTACT_SHIFT = -0.4195
# What the Review page warns of: on SAMPLES_OFF of the FIRST_CONTACT_SAMPLES held-out samples,
# each predicted by the fit before it with the level
# (benchmarks/results/synthetic_reliability.md), a half was KIND_ERROR points or more from its
# predicted accept rate.
FIRST_CONTACT_SAMPLES = 44
KIND_ERROR = 20
SAMPLES_OFF = 16
# The spread of a kind's offset from the default score, on the logit scale (the prior of
# ``kind_shift``).
KIND_SHIFT_SD = 0.76


@dataclass(frozen=True)
class Decided:
    """What the workspace's decided questions say about the default score: ``decisions``
    decided, ``accepted`` of them accepted as written, and ``expected`` the sum of their
    default scores (how many the score expected)."""

    decisions: int
    accepted: int
    expected: float


@dataclass(frozen=True)
class Expected:
    """A queue's expected accept rate: ``share`` (0-1) of ``pending`` questions, ``basis``,
    what the weights were fitted on, and ``decided``, the correction from the team's
    decisions (None when the weights are the team's own or nothing is decided)."""

    share: float
    pending: int
    basis: str
    decided: Decided | None = None

    def sentence(self) -> str:
        noun = "question" if self.pending == 1 else "questions"
        how = "the mean quality score"
        if self.decided is not None:
            d = self.decided
            how += (f", corrected by this workspace's {d.decisions} "
                    f"decision{'' if d.decisions == 1 else 's'}: {d.accepted} accepted as "
                    f"written where the score expected {d.expected:.1f}")
        return (f"About {self.share:.0%} of these {self.pending} pending {noun} are expected to "
                f"be accepted as written ({how}; weights {self.basis}).")


def basis(about: Mapping[str, object]) -> str:
    """What the weights in force were fitted on (``about``: ``quality_model.current``'s)."""
    if about.get("source") == "learned":
        return f"refit on this team's {about.get('decisions')} decisions"
    return (f"calibrated on {GRADED_QUESTIONS} graded questions from {GRADED_SAMPLES} samples "
            f"of {GRADED_KINDS} kinds of documentation, at the level of text it had never seen; "
            f"{SAMPLES_OFF} of {FIRST_CONTACT_SAMPLES} samples of such text had a half "
            f"{KIND_ERROR} points or more off, which your decisions correct")


def _logit(p: float) -> float:
    p = min(max(p, 1e-9), 1 - 1e-9)
    return math.log(p / (1 - p))


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-max(-50.0, min(50.0, z))))


def _shifted(p: float, shift: float) -> float:
    return _sigmoid(_logit(p) + shift)


def kind_shift(scores: Sequence[float], accepted: Sequence[float],
               prior_sd: float = KIND_SHIFT_SD) -> float:
    """The logit offset ``d`` that decided questions with default ``scores`` (0-1) and
    ``accepted`` (1 accepted as written, else 0) put on the score: the maximum of
    ``sum log P(accepted | sigmoid(logit(score) + d)) - d**2 / (2 * prior_sd**2)``, by Newton's
    method (the objective is concave); 0 when nothing is decided."""
    logits = [_logit(float(s)) for s in scores]
    ys = [float(y) for y in accepted]
    shift = 0.0
    for _ in range(100):
        ps = [_sigmoid(z + shift) for z in logits]
        gradient = sum(y - p for y, p in zip(ys, ps, strict=True)) - shift / prior_sd**2
        curvature = sum(p * (1 - p) for p in ps) + 1 / prior_sd**2
        step = gradient / curvature
        shift += step
        if abs(step) < 1e-12:
            break
    return shift


def expected_accept(scores: Sequence[float], about: Mapping[str, object],
                    decided: tuple[Sequence[float], Sequence[float]] = ((), ())
                    ) -> Expected | None:
    """The expected accept rate of pending questions with ``scores`` (None when there are
    none). With the default weights, ``decided`` (the default scores of the decided questions
    and whether each was accepted as written) shifts every score by ``kind_shift``."""
    values = [float(s) for s in scores]
    if not values:
        return None
    decided_scores, accepted = decided
    if about.get("source") == "learned" or not len(decided_scores):
        return Expected(sum(values) / len(values), len(values), basis(about))
    shift = kind_shift(decided_scores, accepted)
    correction = Decided(len(decided_scores), int(sum(accepted)), float(sum(decided_scores)))
    values = [_shifted(v, shift) for v in values]
    return Expected(sum(values) / len(values), len(values), basis(about), correction)
