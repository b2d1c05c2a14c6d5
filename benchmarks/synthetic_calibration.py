"""Calibrate the quality score on graded questions of several kinds of text, check it across
kinds, and choose the review queue's default floor from its reliability curve.

Data: every graded sample under ``benchmarks/synthetic_grading`` (``GRADED``). The fit uses the
samples of the precision-first generator (``CURRENT``: rounds 10 to 12, each graded blind by an
independent grader: Javadoc, the Python Language Reference, GNU Info, READMEs, HTML manuals, Vim
help, CMake help, Perl POD, manual pages, and the held-out samples of rounds 12 to 66, the AWS CLI's
and npm's documentation, the Rust book, pandas's docstrings, the Rust edition guide, the Cargo book,
Rust's standard library docs, the Rust Reference, the rustc book, Node.js's API docs, PostgreSQL's
SQL reference, third-party Python docstrings, Perl's diagnostics, the Apache HTTP Server's module
reference, SQLite's C interface reference, Go's doc comments, Ruby's ri reference, R's help pages,
gnuplot's help, SWI-Prolog's reference, the Erlang/OTP module reference, the Racket Reference, the
gtk-doc references, the OCaml standard library's reference, GHC's Haddock reference, Tcl's command
reference, SDL2's Doxygen reference, cppreference's C++ reference, the Ada 2012 Reference Manual, Qt
5's class reference, LLVM's, Django's and GNU Octave's documentation, the GIMP user manual,
LilyPond's, SBCL's, PostGIS's, zsh's and KiCad's manuals, the Debian Administrator's Handbook,
LibreOffice's help, SQLAlchemy's documentation, FFmpeg's manuals, the BIND 9 manual, HAProxy's
configuration manual, GnuCash's guide and help, the Maxima manual, the Exim specification, SciPy's
API reference, Postfix's guides, Jinja's, Werkzeug's, libvirt's and rsyslog's documentation,
development data since), those of their questions today's generator still asks (below). The earlier
generator's samples (rounds 4 to 9) asked questions these rules no longer ask and were accepted less
often (41% against 62%); a fit on them predicted the new samples' halves 26 points off on average,
so they are reported, not fitted. The held-out samples (``HELD_OUT``) are never fitted: the report
predicts them by the final model.

Model: ``quality_model.fit`` (L2 logistic regression of "accepted as written" on the stored
features) with C = ``C``, on the graded questions today's generator still asks (``still_asked``:
a question it no longer writes says nothing of the questions it writes, and the 179 such were
accepted 16% of the time, which pulled every prediction down: the held-out samples of rounds
19, 20 and 22 were predicted 8 to 29 points under in each half; the time-forward table below
compares the two). A feature the generator's
screens leave without spread (fewer than ``MIN_SPREAD`` questions off its usual value: the
critic, which no graded question had, and grammar) keeps its reasoned weight; a weight the fit
puts against its reasoned sign weighs 0 and the rest are refitted. No tempering: the logistic
fit's mean prediction is its expected accept rate.

Checks, written to ``benchmarks/results/synthetic_reliability.md``:

- across kinds: leave one kind of ``CURRENT`` out, fit on the others, predict the left-out kind
  (the halves by predicted score: predicted vs observed accept rate; issue 32 asks each half
  within 10 points);
- time-forward: each held-out sample from round ``FORWARD_FROM`` on predicted by fits on the
  rounds before it, as every graded question was generated, on those still asked, and with the
  signs held (the choices above, checked where they would have been used);
- first contact: each held-out sample from round ``FORWARD_FROM`` on, every question as it was
  generated and graded (what a team's own documentation meets), predicted by the fit before it
  as it is and with the level (below) that the held-out samples before it put on that fit;
- within reach: how often both halves of a first-contact sample land within 10 points, its
  outcomes drawn from its own predictions (sampling alone) and from them moved by a kind's offset
  of the kinds' spread (``KIND_SHIFT_SD``), against the samples as graded;
- the held-out samples, predicted by the final model (graded after it was fitted);
- the reliability curves: predicted vs observed accept rate by decile of the first-contact
  predictions, of the left-out predictions (every question predicted by a model that never saw
  its kind) and of the final model's own predictions;
- the floor: the lowest score of the first decile, from the bottom, of the first-contact curve
  whose observed accept rate reaches ``FLOOR_RATE`` (20%): the deciles below it are hidden;
- the correction from a team's first decisions (``calibration.kind_shift``): its prior's spread
  (``KIND_SHIFT_SD``: the mean square of the first-contact samples' fitted logit offsets less
  their sampling variance), then a seeded simulation: for each left-out kind of at least
  ``k + 20`` questions, ``REPEATS`` times, a reviewer decides ``k`` of its questions in a random
  order and the rest's halves are predicted by the left-out score as it is, corrected by those
  ``k`` decisions, and (at 30 or more) refitted on them as ``quality_model.refit`` would.

The level: the questions still asked are those that earlier rounds' mends made better, so the
final fit's intercept takes the offset (``calibration.FIRST_CONTACT_SHIFT``) that the held-out
samples' questions as generated put on it (the one that makes its mean prediction their accept
rate): the default score is used on text no rule was written from.

``--check`` exits 1 when ``labeling/synthetic/calibration.py`` does not hold the weights,
counts, level and floor this fit gives (then paste the printed constants there).

    python benchmarks/synthetic_calibration.py [--check]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))

from synthetic_quality import GRADING, load  # noqa: E402

from labeling.synthetic import calibration, quality_model  # noqa: E402
from labeling.synthetic.features import FEATURES  # noqa: E402
from tests import grading_sheets  # noqa: E402

GRADED = {
    "round1": "manpages", "round2": "manpages", "round3/manpages": "manpages",
    "round3/pydoc": "pydoc", "round3/pydoc-after": "pydoc", "round3/info": "info",
    "round3/readme": "readme", "round3/html": "html", "round4/info": "info",
    "round4/html": "html", "round4/info-2": "info", "round4/html-2": "html",
    "round4/heldout": "pod", "round5/heldout": "cmake", "round6/heldout": "vim",
    "round7/heldout": "javadoc", "round8/heldout": "rustc", "round9/heldout": "pyref",
    "round10/javadoc": "javadoc", "round10/pyref": "pyref", "round10/info": "info",
    "round11/readme": "readme", "round11/html": "html", "round11/vim": "vim",
    "round11/cmake": "cmake", "round12/pod": "pod", "round12/manpages": "manpages",
    "round12/heldout": "awscli", "round13/heldout": "npm", "round14/heldout": "rustbook",
    "round15/heldout": "pandas", "round16/heldout": "edition", "round17/heldout": "cargo",
    "round18/heldout": "rustdoc", "round19/heldout": "rustref", "round20/heldout": "rustcbook",
    "round21/rustdoc": "rustdoc", "round22/heldout": "nodejs", "round23/heldout": "pgsql",
    "round24/heldout": "pylibs", "round25/heldout": "perldiag", "round26/heldout": "apache",
    "round27/heldout": "sqlite", "round28/heldout": "golang", "round29/heldout": "ruby",
    "round30/heldout": "rhelp", "round31/heldout": "gnuplot",
    "round32/heldout": "prolog", "round33/heldout": "erlang",
    "round34/heldout": "racket", "round35/heldout": "gtkdoc", "round36/heldout": "ocaml",
    "round37/heldout": "haskell", "round38/heldout": "tcl", "round39/heldout": "sdl",
    "round40/heldout": "cppreference", "round41/heldout": "ada", "round42/heldout": "qt",
    "round43/heldout": "llvm", "round44/heldout": "django", "round45/heldout": "octave",
    "round46/heldout": "gimp", "round47/heldout": "lilypond", "round48/heldout": "sbcl",
    "round49/heldout": "postgis", "round50/heldout": "zsh",
    "round51/heldout": "kicad", "round52/heldout": "handbook",
    "round53/heldout": "libreoffice", "round54/heldout": "sqlalchemy",
    "round55/heldout": "ffmpeg", "round56/heldout": "bind",
    "round57/heldout": "haproxy", "round58/heldout": "gnucash",
    "round59/heldout": "maxima", "round60/heldout": "exim",
    "round61/heldout": "scipy", "round62/heldout": "postfix",
    "round63/heldout": "jinja", "round64/heldout": "werkzeug",
    "round65/heldout": "libvirt", "round66/heldout": "rsyslog",
}
# The precision-first generator's samples: every graded sample from this round on.
FIRST_CURRENT_ROUND = 10


def _round(folder: str) -> int:
    return int(folder.split("/")[0].removeprefix("round"))


CURRENT = tuple(f for f in GRADED if _round(f) >= FIRST_CURRENT_ROUND)
KINDS = tuple(dict.fromkeys(GRADED[f] for f in CURRENT))  # the kinds of CURRENT
# Samples drawn and graded after the fit, never fitted (an earlier held-out round's figures,
# taken before it joined CURRENT, are in its folder's figures.md).
HELD_OUT: tuple[str, ...] = ()
WITHIN = 0.10  # issue 32's target: each half within 10 points
FORWARD_FROM = 17  # the time-forward table's first held-out round
C = 1.0
MIN_SPREAD = 20
FLOOR_RATE = 0.2
DECIDED = (5, 10, 20, 30)  # decisions a team has made, in the correction's simulation
REPEATS = 40
SEED = 32
OUT = ROOT / "results" / "synthetic_reliability.md"


def graded(folders: tuple[str, ...] | None = None) -> list[dict]:
    rows = []
    for folder, kind in GRADED.items():
        if (folders is None or folder in folders) and (GRADING / folder / "grades.tsv").exists():
            # samples drawn before the score weighed the shape stored no shape features
            rows += [{**row, "kind": kind, "folder": folder, "features": quality_model.with_shape(
                row["features"], row["question"], row["form"])} for row in load(GRADING / folder)]
    return rows


def still_asked(rows: list[dict]) -> list[dict]:
    """The graded ``rows`` whose question today's generator still asks of its passage (the
    passage and title as the sheet shows them, every question ``offline.generate`` writes)."""
    passages = {(r["folder"], r["chunk_id"]) for r in rows}
    asked = {key: set(grading_sheets.questions(*key)) for key in passages}
    return [r for r in rows if r["question"] in asked[r["folder"], r["chunk_id"]]]


def matrix(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([[float(r["features"].get(f, 0.0)) for f in FEATURES] for r in rows])
    y = np.array([1.0 if r["accepted"] else 0.0 for r in rows])
    return x.reshape(len(rows), len(FEATURES)), y


def fit(rows: list[dict], *, signs: bool = True) -> dict[str, float]:
    """Weights fitted on ``rows``. A feature fewer than ``MIN_SPREAD`` of them move off its
    most common value keeps its reasoned weight, and the intercept takes that weight times the
    common value (what the fit could not tell apart from it). With ``signs``, a weight whose
    sign is against its reasoned weight's (a question that names nothing scoring higher) weighs
    0 and the others are refitted: the generator's screens leave such a feature confounded with
    the others, and a model's or an import's questions, which the screens never saw, would be
    ordered by it."""
    x, y = matrix(rows)
    values = [np.unique(x[:, i], return_counts=True) for i in range(len(FEATURES))]
    common = {f: float(v[np.argmax(n)]) for f, (v, n) in zip(FEATURES, values, strict=True)}
    held = [f for i, f in enumerate(FEATURES) if np.sum(x[:, i] != common[f]) < MIN_SPREAD]
    free = [i for i, f in enumerate(FEATURES) if f not in held]
    reasoned = quality_model.REASONED_WEIGHTS
    while True:
        intercept, coefficients = quality_model.fit(x[:, free], y, c=C)
        against = {i for i, w in zip(free, coefficients, strict=True)
                   if signs and reasoned[FEATURES[i]] * w < 0}
        if not against:
            break
        free = [i for i in free if i not in against]
    intercept -= sum(reasoned[f] * common[f] for f in held)
    fitted = dict(zip([FEATURES[i] for i in free], coefficients, strict=True))
    return {quality_model.INTERCEPT: round(intercept, 4),
            **{f: round(float(fitted.get(f, reasoned[f] if f in held else 0.0)), 4)
               for f in FEATURES}}


def predict(weights: dict[str, float], rows: list[dict]) -> np.ndarray:
    return np.array([quality_model.score(r["features"], weights) for r in rows])


def halves(p: np.ndarray, y: np.ndarray) -> list[tuple[str, int, float, float]]:
    order = np.argsort(-p, kind="stable")
    half = (len(order) + 1) // 2
    return [(name, len(part), float(p[part].mean()), float(y[part].mean()))
            for name, part in (("top", order[:half]), ("bottom", order[half:]))]


def bins(p: np.ndarray, y: np.ndarray, n: int = 10) -> list[tuple[int, int, float, float, float]]:
    """(bin, questions, lowest score, mean predicted, observed) by ``n``-tile of ``p``."""
    order = np.argsort(p, kind="stable")
    return [(i, len(part), float(p[part].min()), float(p[part].mean()), float(y[part].mean()))
            for i, part in enumerate(np.array_split(order, n), 1) if len(part)]


def choose_floor(curve: list[tuple[int, int, float, float, float]]) -> float:
    """The lowest score of the first bin, counted from the bottom, whose observed accept rate
    reaches ``FLOOR_RATE`` (0 when the lowest bin already does)."""
    for _, _, lowest, _, observed in curve:
        if observed >= FLOOR_RATE:
            return round(lowest, 2)
    return 0.0


def _left_out(rows: list[dict]) -> tuple[list[str], dict[str, tuple]]:
    """Table rows of each kind predicted by a fit on the others, and each kind's (predictions,
    outcomes)."""
    lines, by_kind = [], {}
    for kind in KINDS:
        train = [r for r in rows if r["kind"] != kind]
        test = [r for r in rows if r["kind"] == kind]
        p, (_, y) = predict(fit(train), test), matrix(test)
        by_kind[kind] = (p, y)
        (_, _, pt, ot), (_, _, pb, ob) = halves(p, y)
        held = sum(abs(pred - obs) <= WITHIN for pred, obs in ((pt, ot), (pb, ob)))
        lines.append(f"| {kind} | {len(test)} | {y.mean():.0%} | {pt:.0%} / {ot:.0%} | "
                     f"{pb:.0%} / {ob:.0%} | {held} of 2 |")
    return lines, by_kind


def _within(p: np.ndarray, y: np.ndarray) -> list[bool]:
    return [abs(pred - obs) <= WITHIN for _, _, pred, obs in halves(p, y)]


def _shift(p: np.ndarray, d: float) -> np.ndarray:
    """Probabilities ``p`` moved by ``d`` on the logit scale."""
    return 1 / (1 + np.exp(-(np.log(p / (1 - p)) + d)))


def _corrected(p: np.ndarray, seen: np.ndarray, y: np.ndarray, sd: float) -> np.ndarray:
    return _shift(p, calibration.kind_shift(p[seen], y[seen], prior_sd=sd))


def _simulated(rows: list[dict], left: dict[str, tuple[np.ndarray, np.ndarray]], sd: float
               ) -> list[str]:
    """The correction's seeded simulation (see the module docstring), as table rows."""
    rng = np.random.default_rng(SEED)
    lines = []
    for k in DECIDED:
        tally = {"as it is": [], "corrected": [], "refitted": []}
        for kind, (p, y) in left.items():
            if len(p) < k + 20:
                continue
            x = matrix([r for r in rows if r["kind"] == kind])[0]
            for _ in range(REPEATS):
                order = rng.permutation(len(p))
                seen, rest = order[:k], order[k:]
                tally["as it is"] += _within(p[rest], y[rest])
                tally["corrected"] += _within(_corrected(p, seen, y, sd)[rest], y[rest])
                if quality_model.enough_decisions(y[seen]):
                    b, w = quality_model.fit(x[seen], y[seen])
                    tally["refitted"] += _within(1 / (1 + np.exp(-(b + x[rest] @ w))), y[rest])
        cells = [f"{np.mean(v):.0%} of {len(v)}" if v else "(too few)" for v in tally.values()]
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    return lines


def _time_forward(drawn: list[dict], rows: list[dict]) -> list[str]:
    """Each held-out sample from round ``FORWARD_FROM`` on (the questions of it today's
    generator still asks), predicted by fits on the rounds before it: on every graded question
    as generated (``drawn``), on those still asked (``rows``), and on those with the weights'
    signs held; its halves' predicted / observed rates."""
    choices = (("every graded question", drawn, False), ("still asked", rows, False),
               ("still asked, signs held", rows, True))
    lines = ["", "## Time-forward: each held-out sample predicted by fits on the rounds before it",
             "", f"The held-out samples from round {FORWARD_FROM} on (the questions of each that "
             "today's generator still asks), each predicted by a fit on the rounds before it: "
             "on every graded question as it was generated, on those today's generator still "
             "asks, and on those with a weight against its reasoned sign left out (top half · "
             "bottom half: predicted / observed).", "",
             "| sample | questions | " + " | ".join(name for name, _, _ in choices) + " |",
             "|---|---|" + "---|" * len(choices)]
    tally: dict[str, list[float]] = {name: [] for name, _, _ in choices}
    for folder in (f for f in CURRENT if f.endswith("heldout") and _round(f) >= FORWARD_FROM):
        test = [r for r in rows if r["folder"] == folder]
        y = matrix(test)[1]
        cells = []
        for name, pool, signs in choices:
            train = [r for r in pool if _round(r["folder"]) < _round(folder)]
            parts = halves(predict(fit(train, signs=signs), test), y)
            tally[name] += [abs(pred - obs) for _, _, pred, obs in parts]
            cells.append(" · ".join(f"{pred:.0%} / {obs:.0%}" for _, _, pred, obs in parts))
        lines.append(f"| {folder} ({GRADED[folder]}) | {len(test)} | " + " | ".join(cells) + " |")
    lines.append("| halves within 10 points (mean error, points) | | " + " | ".join(
        f"{sum(e <= WITHIN for e in errors)} of {len(errors)} ({np.mean(errors) * 100:.1f})"
        for errors in tally.values()) + " |")
    return lines


def first_contact(rows: list[dict]) -> list[dict]:
    """The rows of the held-out samples: graded blind as the generator first wrote them, on a
    kind of text no rule had been written from (what a team's own documentation meets)."""
    return [r for r in rows if r["folder"].endswith("heldout")]


def level_shift(weights: dict[str, float], rows: list[dict]) -> float:
    """The logit offset that ``rows`` (graded at first contact) put on ``weights``: the one
    that makes the mean prediction their accept rate (``calibration.kind_shift``, no prior)."""
    p, (_, y) = predict(weights, rows), matrix(rows)
    return round(calibration.kind_shift(p, y, prior_sd=float("inf")), 4)


def with_level(weights: dict[str, float], shift: float) -> dict[str, float]:
    intercept = quality_model.INTERCEPT
    return {**weights, intercept: round(weights[intercept] + shift, 4)}


def _first_contact(drawn: list[dict], rows: list[dict]
                   ) -> tuple[list[str], int, int, float, list[tuple[np.ndarray, np.ndarray]]]:
    """Each held-out sample from round ``FORWARD_FROM`` on, every question as generated and
    graded, predicted by the fit on the rounds before it (still asked), as it is and with the
    level the earlier held-out samples put on it (``level_shift``). Returns the table, how many
    samples had a half ``calibration.KIND_ERROR`` points or more off with the level, how many
    samples, their offsets' spread beyond sampling (sqrt(mean(d^2) - mean(v)), ``d`` a sample's
    offset from its prediction with the level, ``v`` its variance 1 / sum p(1 - p)), and each
    sample's (predictions with the level, outcomes)."""
    lines = ["", "## First contact: each held-out sample as generated, predicted by the fit "
             "before it", "", f"Every graded question of the held-out samples from round "
             f"{FORWARD_FROM} on, as the generator of the day wrote it (what a team's own "
             "documentation meets), predicted by the fit on the questions of the rounds before "
             "it that today's generator still asks: as it is, and with the level the earlier "
             "held-out samples put on that fit (the offset that makes its mean prediction "
             "their accept rate). Top half · bottom half: predicted / observed.", "",
             "| sample | questions | offset | as fitted | with the first-contact level |",
             "|---|---|---|---|---|"]
    errors: dict[str, list[float]] = {"as fitted": [], "with the level": []}
    off, samples, offsets, variances, predicted = 0, 0, [], [], []
    held = [f for f in CURRENT if f.endswith("heldout") and _round(f) >= FORWARD_FROM]
    for folder in held:
        test = [r for r in drawn if r["folder"] == folder]
        if len(test) < MIN_SPREAD:
            continue
        y = matrix(test)[1]
        weights = fit([r for r in rows if _round(r["folder"]) < _round(folder)])
        shift = level_shift(weights, first_contact(
            [r for r in drawn if _round(r["folder"]) < _round(folder)]))
        p, q = predict(weights, test), predict(with_level(weights, shift), test)
        cells, leveled = [], halves(q, y)
        for name, parts in (("as fitted", halves(p, y)), ("with the level", leveled)):
            errors[name] += [abs(a - b) for _, _, a, b in parts]
            cells.append(" · ".join(f"{a:.0%} / {b:.0%}" for _, _, a, b in parts))
        samples += 1
        off += max(abs(a - b) for _, _, a, b in leveled) >= calibration.KIND_ERROR / 100
        d = calibration.kind_shift(q, y, prior_sd=float("inf"))
        offsets.append(d)
        moved = _shift(q, d)
        variances.append(1 / float(np.sum(moved * (1 - moved))))
        predicted.append((q, y))
        lines.append(f"| {folder} ({GRADED[folder]}) | {len(test)} | {shift:+.2f} | "
                     + " | ".join(cells) + " |")
    lines.append("| halves within 10 points (mean error, points) | | | " + " | ".join(
        f"{sum(e <= WITHIN for e in errs)} of {len(errs)} ({np.mean(errs) * 100:.1f})"
        for errs in errors.values()) + " |")
    spread = round(float(np.sqrt(max(np.mean(np.square(offsets)) - np.mean(variances), 0.0))), 2)
    return lines, off, samples, spread, predicted


def _within_reach(predicted: list[tuple[np.ndarray, np.ndarray]], sd: float) -> list[str]:
    """How often a fresh kind's two halves land within 10 points of a score that is right on
    average over kinds: for each first-contact sample, ``REPEATS`` seeded draws of its outcomes
    from its own predictions (sampling alone), then from its predictions moved by a kind offset
    drawn from N(0, sd^2) on the logit scale (the kinds' spread); against the samples observed."""
    rng = np.random.default_rng(SEED)
    alone, spread = [], []
    for q, _ in predicted:
        for _ in range(REPEATS):
            alone.append(all(_within(q, (rng.random(len(q)) < q).astype(float))))
            moved = _shift(q, rng.normal(0.0, sd))
            spread.append(all(_within(q, (rng.random(len(q)) < moved).astype(float))))
    observed = sum(all(_within(q, y)) for q, y in predicted)
    return ["", "## Within reach: both halves within 10 points on a new kind", "",
            f"Each of the {len(predicted)} first-contact samples' predictions (with the level), "
            f"its outcomes drawn {REPEATS} times (seed {SEED}) from those predictions as they "
            f"are, then moved by a kind's offset drawn from N(0, {sd:.2f}^2) on the logit scale: "
            "how often both halves of a sample land within 10 points of the predictions.", "",
            "| outcomes drawn from | both halves within 10 points |", "|---|---|",
            f"| the predictions (sampling alone) | {np.mean(alone):.0%} |",
            f"| the predictions moved by a kind's offset (the kinds' spread) | "
            f"{np.mean(spread):.0%} |",
            f"| observed (the samples as graded) | {observed} of {len(predicted)} |"]


def _held_out(weights: dict[str, float]) -> list[str]:
    """The held-out samples predicted by the final model, when they are graded."""
    if not HELD_OUT:
        return []
    lines = ["", "## Held-out samples, predicted by the final model", "",
             "| sample | questions | observed | top half: predicted / observed | "
             "bottom half: predicted / observed | halves within 10 points |",
             "|---|---|---|---|---|---|"]
    for folder in HELD_OUT:
        if not (GRADING / folder / "grades.tsv").exists():
            lines.append(f"| {folder} | not graded yet | | | | |")
            continue
        test = graded((folder,))
        p, (_, y) = predict(weights, test), matrix(test)
        (_, _, pt, ot), (_, _, pb, ob) = halves(p, y)
        held = sum(abs(pred - obs) <= WITHIN for pred, obs in ((pt, ot), (pb, ob)))
        lines.append(f"| {folder} ({GRADED[folder]}) | {len(test)} | {y.mean():.0%} | "
                     f"{pt:.0%} / {ot:.0%} | {pb:.0%} / {ob:.0%} | {held} of 2 |")
    return lines


def _curve(title: str, curve: list[tuple[int, int, float, float, float]]) -> list[str]:
    return ["", f"## Reliability by decile: {title}", "",
            "| decile | questions | lowest score | predicted | observed |", "|---|---|---|---|---|",
            *(f"| {i} | {n} | {low:.2f} | {pred:.0%} | {obs:.0%} |"
              for i, n, low, pred, obs in curve)]


def report() -> tuple[list[str], dict[str, float], dict[str, float]]:
    """The report's lines, the final weights (with the first-contact level) and the constants
    of ``labeling/synthetic/calibration.py``."""
    every = graded()
    drawn = graded(CURRENT)
    rows = still_asked(drawn)
    lines = ["# Is the synthetic questions' quality score calibrated?", "",
             "Written by `python benchmarks/synthetic_calibration.py` (see its docstring). "
             f"Fitted on the {len(rows)} graded questions that today's generator still asks "
             f"of the {len(drawn)} in this generator's samples ({len(CURRENT)} samples, "
             f"{len(KINDS)} kinds); {len(every)} graded questions in all rounds.", "",
             f"## Across kinds: fit on {len(KINDS) - 1} kinds, predict the left-out one", "",
             "| left out | questions | observed | top half: predicted / observed | "
             "bottom half: predicted / observed | halves within 10 points |",
             "|---|---|---|---|---|---|"]
    table, by_kind = _left_out(rows)
    lines += table
    lines += _time_forward(drawn, rows)
    contact, off, samples, sd, predicted = _first_contact(drawn, rows)
    lines += contact
    lines += _within_reach(predicted, sd)
    contact_p, contact_y = (np.concatenate(part) for part in zip(*predicted, strict=True))
    lines += ["", "## Corrected by a team's first decisions (a seeded simulation)", "",
              f"The left-out score corrected by `calibration.kind_shift` (prior spread "
              f"{sd:.2f} on the logit scale: the first-contact samples' offsets from their "
              "predictions with the level, less their sampling variance): the share of "
              "the remaining questions' halves predicted within 10 points, over the left-out "
              f"kinds with at least k + 20 questions, {REPEATS} random orders each (seed "
              f"{SEED}); refitted: all the weights learned from the k decisions, as a refit "
              "would (it needs 30, 5 accepted and 5 not).", "",
              "| decisions (k) | as it is | corrected | refitted |", "|---|---|---|---|",
              *_simulated(rows, by_kind, sd)]
    fitted = fit(rows)
    held_out = first_contact(drawn)
    shift = level_shift(fitted, held_out)
    weights = with_level(fitted, shift)
    lines += _held_out(weights)
    own_p, (_, own_y) = predict(weights, rows), matrix(rows)
    contact_curve = bins(contact_p, contact_y)
    floor = choose_floor(contact_curve)
    lines += _curve("first contact (each held-out sample as generated, predicted by the fit "
                    "before it, with the level)", contact_curve)
    left = bins(*(np.concatenate(part) for part in zip(*by_kind.values(), strict=True)))
    lines += _curve("left-out predictions (a model that never saw the question's kind; "
                    "questions still asked, no level)", left)
    lines += _curve("the final model with the first-contact level, on the questions still "
                    "asked (which earlier rounds' mends made better than first contact)",
                    bins(own_p, own_y))
    hidden = float(np.mean(predict(weights, held_out) < floor))
    lines += ["", f"Default floor: **{floor:.2f}**, the lowest score of the first decile of "
              "the first-contact curve, from the bottom, whose observed accept rate reaches "
              f"{FLOOR_RATE:.0%}; it hides {hidden:.0%} of the held-out samples' questions "
              "as generated.", "",
              f"Final model: {len(rows)} graded questions from {len(CURRENT)} samples of "
              f"{len(KINDS)} kinds of text, C = {C}, then the level of the "
              f"{len(held_out)} held-out questions as generated ({shift:+.2f} on the "
              "logit scale). Weights: " + ", ".join(
                  f"{k} {v:+.2f}" for k, v in weights.items()) + ".", ""]
    constants = {"GRADED_QUESTIONS": len(rows), "GRADED_SAMPLES": len(CURRENT),
                 "GRADED_KINDS": len(KINDS), "DEFAULT_FLOOR": floor,
                 "FIRST_CONTACT_SHIFT": shift, "FIRST_CONTACT_SAMPLES": samples,
                 "SAMPLES_OFF": off, "KIND_SHIFT_SD": sd}
    return lines, weights, constants


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when labeling/synthetic/calibration.py is out of date")
    args = parser.parse_args()
    lines, weights, constants = report()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    print(f"CALIBRATED_WEIGHTS = {weights!r}")
    print("\n".join(f"{name} = {value}" for name, value in constants.items()))
    stale = calibration.CALIBRATED_WEIGHTS != weights or any(
        getattr(calibration, name, None) != value for name, value in constants.items())
    if args.check and stale:
        sys.exit("labeling/synthetic/calibration.py is out of date: paste the constants above")

if __name__ == "__main__":
    main()
