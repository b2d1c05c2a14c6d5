"""Benchmark ``labeling.metrics.engine.evaluate`` against pytrec_eval, ranx and ir_measures.

    python benchmarks/bench_metrics.py [--sizes 10000 100000] [--peers pytrec_eval ranx
        ir_measures] [--repeat 3] [--profile]

For each size a seeded synthetic data set (see ``_data.py``: string ids, shuffled rows, tied
scores, grades 0-3) is written once to parquet. Each library then runs in a fresh child process
(``_peers.py``) that loads the frames and evaluates the same six measures ``--repeat`` times.
Printed: a markdown table per size (first and best time, peer time / our time, peak memory
above the loaded frames, one-time import and warm-up cost) and the largest difference of each
peer's values from pytrec_eval's (trec_eval), for the means and per query.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from _data import MEASURES, write_parquet
from _peers import MODULES

PEERS = ["pytrec_eval", "ranx", "ir_measures"]


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return env


def machine_info() -> list[str]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    lines = [
        f"- CPU: {cpu}, {os.cpu_count()} logical cores (nproc {len(os.sched_getaffinity(0))})",
        f"- Python {platform.python_version()}, numpy {np.__version__}, pandas {pd.__version__}",
    ]
    versions = []
    for dist in ("pyarrow", "pytrec-eval-terrier", "ranx", "ir-measures", "numba"):
        try:
            from importlib.metadata import version

            versions.append(f"{dist} {version(dist)}")
        except Exception:  # noqa: BLE001 - a missing distribution is just not listed
            versions.append(f"{dist} (not installed)")
    lines.append("- " + ", ".join(versions))
    blas = {k: v for k, v in os.environ.items() if k.startswith("OPENBLAS")}
    lines.append(f"- OpenBLAS environment: {blas or 'none set'}")
    return lines


def run_child(library: str, qrels: Path, run: Path, repeat: int, out: Path) -> dict:
    command = [
        sys.executable,
        str(HERE / "_peers.py"),
        library,
        str(qrels),
        str(run),
        "--repeat",
        str(repeat),
        "--out",
        str(out),
    ]
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, env=_child_env(), cwd=ROOT)
    wall = time.perf_counter() - start
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT ") :])
            result["process_s"] = wall
            return result
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
    return {"library": library, "error": " | ".join(tail) or f"exit {proc.returncode}"}


def _fmt(value: float, digits: int = 2) -> str:
    return f"{value:.{digits}f}"


def size_table(n: int, results: list[dict], repeat: int) -> str:
    ours = next((r for r in results if r["library"] == "ours" and "error" not in r), None)
    lines = [
        f"### {n:,} queries × 100 results ({n * 100:,} run rows)",
        "",
        f"| library | time (s), best of {repeat} | first run (s) | ratio to ours "
        "(peer time / our time) | peak MB above data | import + warm-up (s) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['library']} | failed: {r['error']} | | | | |")
            continue
        ratio = r["best_s"] / ours["best_s"] if ours else float("nan")
        lines.append(
            f"| {r['library']} | {_fmt(r['best_s'])} | {_fmt(r['first_s'])} | "
            f"{_fmt(ratio)}× | {r['peak_above_data_mb']:.0f} | "
            f"{_fmt(r['import_s'])} + {_fmt(r['warmup_s'])} |"
        )
    return "\n".join(lines)


def agreement_table(results: list[dict], per_query: dict[str, Path]) -> str:
    ref_result = next(
        (r for r in results if r["library"] == "pytrec_eval" and "error" not in r), None
    )
    if ref_result is None:
        return "(pytrec_eval not run: no agreement check)"
    reference = pd.read_parquet(per_query["pytrec_eval"])
    others = [r for r in results if r["library"] != "pytrec_eval" and "error" not in r]
    header = (
        "| measure | "
        + " | ".join(f"{r['library']}: mean Δ | {r['library']}: max per-query Δ" for r in others)
        + " |"
    )
    lines = [
        "Largest absolute difference from pytrec_eval (trec_eval 9):",
        "",
        header,
        "|---|" + "---:|---:|" * len(others),
    ]
    frames = {r["library"]: pd.read_parquet(per_query[r["library"]]) for r in others}
    for measure in MEASURES:
        cells = []
        for r in others:
            frame = frames[r["library"]].reindex(reference.index)
            mean_diff = abs(r["means"][measure] - ref_result["means"][measure])
            query_diff = float(np.nanmax(np.abs(frame[measure] - reference[measure])))
            cells += [f"{mean_diff:.2e}", f"{query_diff:.2e}"]
        lines.append(f"| {measure} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--peers", nargs="*", default=PEERS, choices=PEERS)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="keep the parquet files here (default: a temporary directory)",
    )
    args = parser.parse_args(argv)

    print("## Machine\n")
    print("\n".join(machine_info()))
    libraries = ["ours"]
    for peer in args.peers:
        if importlib.util.find_spec(MODULES[peer]) is None:
            print(f"\n{peer} is not importable: skipped (make bench installs it)")
        else:
            libraries.append(peer)

    with tempfile.TemporaryDirectory(prefix="scorecard-bench-") as tmp:
        data_dir = args.data_dir or Path(tmp)
        data_dir.mkdir(parents=True, exist_ok=True)
        for n in args.sizes:
            start = time.perf_counter()
            qrels, run = write_parquet(n, data_dir, seed=args.seed)
            print(
                f"\n[{n:,} queries: data generated in {time.perf_counter() - start:.1f} s]",
                file=sys.stderr,
            )
            results, per_query = [], {}
            for library in libraries:
                out = Path(tmp) / f"per_query_{library}_{n}.parquet"
                result = run_child(library, qrels, run, args.repeat, out)
                print(
                    f"[{library}: {result.get('best_s', result.get('error'))}]",
                    file=sys.stderr,
                    flush=True,
                )
                results.append(result)
                per_query[library] = out
            load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
            print(f"\n(load average after this size: {load}; other processes share the cores)")
            print()
            print(size_table(n, results, args.repeat))
            print()
            print(agreement_table(results, per_query))
            print("\n<details><summary>raw results</summary>\n")
            for r in results:
                print(f"    {json.dumps(r)}")
            print("\n</details>", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
