"""Is the quality score calibrated? The default weights against a refit on graded development
rounds, both judged on a held-out round that took no part in the fit.

Development rounds (the fit): ``round1``, ``round2`` and ``round3/manpages`` (manual pages),
``round3/pydoc`` and ``round3/pydoc-after`` (docstrings), ``round3/info`` (GNU Info, held out
for the first generator, development text since); held out from the fit: ``round3/readme``
and ``round3/html`` (the last generator's held-out sample). The refit is
``quality_model.fit`` (the same L2 logistic regression as the Review page's refit) on the stored
features, accepted as written = 1. For each model it prints the predicted (mean score) and
observed accept rate of each half of the held-out round by score, and the reliability curve by
decile of score (development rounds pooled, and the held-out round).

    python benchmarks/synthetic_calibration.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))
sys.path.insert(0, str(ROOT))

from synthetic_quality import GRADING, load  # noqa: E402

from labeling.synthetic import quality_model  # noqa: E402
from labeling.synthetic.features import FEATURES  # noqa: E402

DEVELOPMENT = ("round1", "round2", "round3/pydoc", "round3/info", "round3/manpages",
               "round3/pydoc-after")
HELD_OUT = ("round3/readme", "round3/html")


def matrix(rows: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([[float(r["features"].get(f, 0.0)) for f in FEATURES] for r in rows])
    y = np.array([1.0 if r["accepted"] else 0.0 for r in rows])
    return x, y


def halves(scores: np.ndarray, y: np.ndarray) -> list[tuple[str, int, float, float]]:
    order = np.argsort(-scores, kind="stable")
    half = (len(order) + 1) // 2
    out = []
    for name, part in (("top", order[:half]), ("bottom", order[half:])):
        out.append((name, len(part), float(scores[part].mean()), float(y[part].mean())))
    return out


def deciles(scores: np.ndarray, y: np.ndarray) -> list[tuple[int, int, float, float]]:
    order = np.argsort(scores, kind="stable")
    out = []
    for i, part in enumerate(np.array_split(order, 10), 1):
        if len(part):
            out.append((i, len(part), float(scores[part].mean()), float(y[part].mean())))
    return out


def report(name: str, weights: dict[str, float], dev: list[dict],
           held: dict[str, list[dict]]) -> None:
    print(f"## {name}\n")
    for label, rows in (("development rounds", dev), *held.items()):
        x, y = matrix(rows)
        scores = np.array([quality_model.score(dict(zip(FEATURES, r, strict=True)), weights)
                           for r in x])
        print(f"{label}: {len(rows)} questions, observed {y.mean():.0%}, predicted "
              f"{scores.mean():.0%}")
        for half, n, predicted, observed in halves(scores, y):
            print(f"- {half} half ({n}): predicted {predicted:.0%}, observed {observed:.0%}")
        print("\n| decile | n | predicted | observed |\n|---|---|---|---|")
        for i, n, predicted, observed in deciles(scores, y):
            print(f"| {i} | {n} | {predicted:.0%} | {observed:.0%} |")
        print()


def main() -> None:
    dev = [r for name in DEVELOPMENT for r in load(GRADING / name)]
    held = {f"held out: {name}": load(GRADING / name) for name in HELD_OUT}
    report("Default weights (set by reasoning)", quality_model.DEFAULT_WEIGHTS, dev, held)
    intercept, coefficients = quality_model.fit(*matrix(dev))
    weights = {quality_model.INTERCEPT: intercept}
    weights.update({f: float(w) for f, w in zip(FEATURES, coefficients, strict=True)})
    print("Refit weights: " + ", ".join(f"{k} {v:+.2f}" for k, v in weights.items()) + "\n")
    report("Refit on the development rounds", weights, dev, held)


if __name__ == "__main__":
    main()
