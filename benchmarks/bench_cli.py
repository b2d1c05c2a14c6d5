"""Benchmark ``scorecard evaluate`` on TREC files against a pandas + pytrec_eval script.

    python benchmarks/bench_cli.py [--queries 30000] [--repeat 5]

Writes a TREC qrels file and a TREC run (``--queries`` × 100 lines, the generator of
``_data.py``: string ids, shuffled lines, tied scores) to a temporary directory, then times,
each run a fresh process from start to exit, after one untimed run of each, the two commands
taking turns ``--repeat`` times (printed: median wall time, CPU time and peak memory):

* ours: ``python -m labeling.commands.cli evaluate QRELS RUN -m P@10 ... -m nDCG@10`` (what the
  ``scorecard`` console script runs), with ``sys.executable`` so no installed script is needed;
* baseline: a script that reads both files with ``pd.read_csv(sep=r"\\s+", header=None)``,
  builds pytrec_eval's dicts, evaluates and prints the means.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from _data import MEASURES, write_trec

BASELINE = r"""
import sys
import pandas as pd
import pytrec_eval

NAMES = {"P_10": "P@10", "recall_100": "R@100", "success_10": "Success@10",
         "recip_rank": "RR", "map_cut_100": "AP@100", "ndcg_cut_10": "nDCG@10"}
qrels = pd.read_csv(sys.argv[1], sep=r"\s+", header=None)
run = pd.read_csv(sys.argv[2], sep=r"\s+", header=None)

def nested(outer, inner, value):
    out = {}
    for q, d, v in zip(outer.tolist(), inner.tolist(), value.tolist()):
        entry = out.get(q)
        if entry is None:
            entry = out[q] = {}
        entry[d] = v
    return out

evaluator = pytrec_eval.RelevanceEvaluator(
    nested(qrels[0].astype(str), qrels[2].astype(str), qrels[3].astype(int)),
    {"P.10", "recall.100", "success.10", "recip_rank", "map_cut.100", "ndcg_cut.10"},
)
per_query = evaluator.evaluate(nested(run[0].astype(str), run[2].astype(str), run[4]))
for name, ours in NAMES.items():
    values = [scores[name] for scores in per_query.values()]
    print(f"{ours}\t{sum(values) / len(values):.6f}")
"""


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


@dataclass
class Timing:
    wall: float  # seconds from start to exit
    cpu: float  # user + system seconds of the child
    peak_mb: float  # peak resident memory of the child
    result: subprocess.CompletedProcess


def run_once(command: list[str]) -> Timing:
    """Run ``command`` in a fresh process; its wall time, CPU time, peak memory and output."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=out, stderr=err, env=_child_env(), cwd=ROOT)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        result = subprocess.CompletedProcess(command, child.returncode, out.read(), err.read())
    return Timing(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, result)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=30_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="scorecard-bench-cli-") as tmp:
        qrels, run = write_trec(args.queries, Path(tmp), seed=args.seed)
        sizes = f"{qrels.stat().st_size / 1e6:.1f} MB qrels, {run.stat().st_size / 1e6:.1f} MB run"
        print(f"### `scorecard evaluate` on TREC files: {args.queries:,} queries × 100 ({sizes})")
        ours_cmd = [sys.executable, "-m", "labeling.commands.cli", "evaluate", str(qrels), str(run)]
        for measure in MEASURES:
            ours_cmd += ["-m", measure]
        baseline_cmd = [sys.executable, "-c", BASELINE, str(qrels), str(run)]
        commands = {
            "ours (scorecard evaluate)": ours_cmd,
            "baseline (read_csv + pytrec_eval)": baseline_cmd,
        }
        # One untimed run each puts the files in the page cache; then the two take turns, so
        # a noisy moment of the machine falls on both alike.
        timings: dict[str, list[Timing]] = {name: [] for name in commands}
        for name, command in commands.items():
            first = run_once(command).result
            if first.returncode != 0:
                tail = " | ".join((first.stderr or first.stdout).strip().splitlines()[-3:])
                print(f"\n{name} failed (exit {first.returncode}): {tail}")
                return 1
        for _ in range(max(args.repeat, 1)):
            for name, command in commands.items():
                timings[name].append(run_once(command))

        print(f"\n| command | wall s (median of {args.repeat}) | CPU s | peak MB |")
        print("|---|---:|---:|---:|")
        medians = {}
        for name, runs in timings.items():
            medians[name] = statistics.median(t.wall for t in runs)
            cpu = statistics.median(t.cpu for t in runs)
            peak = statistics.median(t.peak_mb for t in runs)
            print(f"| {name} | {medians[name]:.2f} | {cpu:.2f} | {peak:.0f} |")
        ours, base = medians.values()
        walls = ", ".join(
            f"{b.wall / o.wall:.2f}" for o, b in zip(*timings.values(), strict=True)
        )
        print(f"\nratio baseline / ours: {base / ours:.2f}× (each turn: {walls})")
        for name, runs in timings.items():
            print(f"\n{name} printed:\n")
            lines = runs[-1].result.stdout.strip().splitlines()[:20]
            print("\n".join("    " + line for line in lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
