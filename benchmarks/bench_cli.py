"""Benchmark ``scorecard evaluate`` on TREC files against a pandas + pytrec_eval script.

    python benchmarks/bench_cli.py [--queries 30000] [--repeat 3]

Writes a TREC qrels file and a TREC run (``--queries`` × 100 lines, the generator of
``_data.py``: string ids, shuffled lines, tied scores) to a temporary directory, then times,
each run a fresh process (median of ``--repeat``), from process start to exit:

* ours: ``python -m labeling.cli evaluate QRELS RUN -m P@10 ... -m nDCG@10`` (what the
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from _data import MEASURES, write_trec  # noqa: E402

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


def time_command(
    command: list[str], repeat: int
) -> tuple[list[float], subprocess.CompletedProcess]:
    times: list[float] = []
    for _ in range(max(repeat, 1)):
        start = time.perf_counter()
        last = subprocess.run(command, capture_output=True, text=True, env=_child_env(), cwd=ROOT)
        times.append(time.perf_counter() - start)
        if last.returncode != 0:
            break
    return times, last


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=30_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="scorecard-bench-cli-") as tmp:
        qrels, run = write_trec(args.queries, Path(tmp), seed=args.seed)
        sizes = f"{qrels.stat().st_size / 1e6:.1f} MB qrels, {run.stat().st_size / 1e6:.1f} MB run"
        print(f"### `scorecard evaluate` on TREC files: {args.queries:,} queries × 100 ({sizes})")
        ours_cmd = [sys.executable, "-m", "labeling.cli", "evaluate", str(qrels), str(run)]
        for measure in MEASURES:
            ours_cmd += ["-m", measure]
        baseline_cmd = [sys.executable, "-c", BASELINE, str(qrels), str(run)]

        rows = []
        for name, command in (
            ("ours (scorecard evaluate)", ours_cmd),
            ("baseline (read_csv + pytrec_eval)", baseline_cmd),
        ):
            times, proc = time_command(command, args.repeat)
            if proc.returncode != 0:
                tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
                print(f"\n{name} failed (exit {proc.returncode}): {tail}")
                rows.append((name, None, proc))
            else:
                rows.append((name, statistics.median(times), proc))

        print(f"\n| command | median of {args.repeat} (s), fresh process each |")
        print("|---|---:|")
        for name, median, _ in rows:
            print(f"| {name} | {'failed' if median is None else f'{median:.2f}'} |")
        ours_time, base_time = rows[0][1], rows[1][1]
        if ours_time and base_time:
            print(f"\nratio baseline / ours: {base_time / ours_time:.2f}×")
        for name, _, proc in rows:
            print(f"\n{name} printed:\n")
            print("\n".join("    " + line for line in proc.stdout.strip().splitlines()[:20]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
