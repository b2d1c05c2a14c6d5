"""How often the regression gate fails when it should not, and catches a drop when it should.

    python benchmarks/bench_gate.py [--trials 2000] [--out FILE]

Builds the demo workspace in a temporary folder and takes its per-query values of ``bm25`` and
``fusion`` (nDCG@10 and RR): lumpy, skewed differences (most queries tie, a few move a lot),
the data a gate meets. Each trial draws queries with replacement (seeded) and tests:

* *no true difference*: per query the two runs' values swapped at random, no allowed drop;
* *at the allowed drop, skewed*: the differences moved to a mean of exactly -0.02 with an
  allowed drop of 0.02, right-skewed (the run loses a little on most queries and gains much on
  a few) and left-skewed (the opposite: it breaks a few queries badly);
* *a true drop of twice the allowed one*: at the planner's query count for
  ``scorecard gate --max-drop 0.05``.

For each: Student's t alone, the bootstrap-t alone, and the gate (both must agree). Rates
above the level are false failures. Then the time of one gate decision on 1,000 queries
(median of 20). Prints markdown.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.planning import judging_budget
from labeling.evaluation.scores.run_comparison import paired_scores
from labeling.files.demo import build_demo
from labeling.metrics.non_inferiority import non_inferiority_test
from labeling.workspace import store

ALPHA = 0.05


def rates(old: np.ndarray, new: np.ndarray, max_drop: float) -> tuple[bool, bool, bool]:
    test = non_inferiority_test(old, new, max_drop=max_drop, alpha=ALPHA)
    return test.p_t < ALPHA, test.p_bootstrap < ALPHA, test.worse


def simulate(make_sample, trials: int, max_drop: float, seed: int) -> list[float]:
    rng = np.random.default_rng(seed)
    counts = np.zeros(3)
    for _ in range(trials):
        old, new = make_sample(rng)
        counts += rates(old, new, max_drop)
    return list(counts / trials)


def row(label: str, n: int, found: list[float]) -> str:
    return f"| {label} | {n} | " + " | ".join(f"{r:.1%}" for r in found) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2000)
    args = parser.parse_args()
    trials = args.trials
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "demo.db"
        build_demo(path)
        db = store.open_workspace(path, create=False)
        pairs = {m: paired_scores(db, Controls("bm25"), "fusion", m) for m in ("nDCG@10", "RR")}
        plans = {}
        for baseline, candidate in (("bm25", "fusion"), ("fusion", "bm25")):
            plans[candidate] = judging_budget.plan(
                db, Controls(baseline), "nDCG@10", judging_budget.gate_difference(0.05),
                candidate=candidate, max_drop=0.05)
        db.close()
    error = 3 * math.sqrt(ALPHA * (1 - ALPHA) / trials)
    print(f"{trials} trials per row; level {ALPHA}; three standard errors of a rate of "
          f"{ALPHA}: {error:.1%}.\n")
    print("| case | queries | Student's t | bootstrap-t | gate (both) |")
    print("|---|---|---|---|---|")
    for measure, frame in pairs.items():
        a, b = frame["baseline"].to_numpy(), frame["candidate"].to_numpy()
        centred = (b - a) - (b - a).mean()

        def swapped(rng, n, a=a, b=b):
            picked = rng.integers(0, len(a), size=n)
            swap = rng.random(n) < 0.5
            return np.where(swap, b[picked], a[picked]), np.where(swap, a[picked], b[picked])

        def skewed(rng, n, sign, centred=centred):
            change = sign * centred[rng.integers(0, len(centred), size=n)] - 0.02
            return np.zeros(n), change

        for n in (50, 100, 200):
            print(row(f"{measure}, no true difference", n,
                      simulate(lambda rng, n=n: swapped(rng, n), trials, 0.0, n)))
            for sign, shape in ((1, "right"), (-1, "left")):
                print(row(f"{measure}, at the allowed drop, {shape}-skewed", n,
                          simulate(lambda rng, n=n, s=sign: skewed(rng, n, s), trials, 0.02,
                                   n + sign)))
    print("\n| true drop 0.10, allowed 0.05 (nDCG@10) | formula's queries | planned queries "
          "| caught at the planned count |")
    print("|---|---|---|---|")
    frame = pairs["nDCG@10"]
    for candidate, plan in plans.items():
        sign = 1 if candidate == "fusion" else -1
        diff = sign * (frame["candidate"] - frame["baseline"]).to_numpy()
        centred = diff - diff.mean()
        n = plan.queries_needed

        def dropped(rng, n=n, centred=centred):
            return np.zeros(n), centred[rng.integers(0, len(centred), size=n)] - 0.10

        caught = simulate(dropped, trials, 0.05, 7 + n)[2]
        shape = "right-skewed" if sign == 1 else "left-skewed"
        print(f"| {candidate} against its baseline ({shape}) | {plan.formula_queries} | {n} "
              f"| {caught:.1%} |")
    rng = np.random.default_rng(1)
    old, new = rng.random(1000), rng.random(1000)
    times = []
    for _ in range(20):
        start = time.perf_counter()
        non_inferiority_test(old, new, max_drop=0.01)
        times.append(time.perf_counter() - start)
    print(f"\nOne gate test on 1,000 queries: {statistics.median(times) * 1000:.0f} ms "
          "(median of 20).")


if __name__ == "__main__":
    main()
