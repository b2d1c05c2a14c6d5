"""Import a generated TREC run into a workspace; compare with a plain sqlite-utils insert.

    python benchmarks/bench_import.py [--rows 1000000] [--batch-rows 50000]

Each measurement runs in its own child process so its peak RSS (``ru_maxrss``) is its own.
Prints a markdown table: rows/s and peak memory. The workspace import must stay under 500 MB.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LIMIT_MB = 500


def generate(path: Path, rows: int, per_query: int = 100, seed: int = 7) -> None:
    """A TREC run: rows // per_query queries, each ranking ``per_query`` distinct chunks."""
    rng = random.Random(seed)
    pool = max(rows // 5, per_query)
    with open(path, "w", encoding="utf-8") as handle:
        for q in range(rows // per_query):
            docs = rng.sample(range(pool), per_query)
            handle.writelines(
                f"query-{q:07d} Q0 chunk-{d:08d} {r} {100.0 - r * 0.731:.4f} bench\n"
                for r, d in enumerate(docs, start=1)
            )


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux


def child_workspace(db_path: str, run_path: str, batch_rows: int) -> dict:
    from labeling.files.importers import import_run
    from labeling.workspace.grading import init_workspace

    db = init_workspace(db_path)
    start = time.perf_counter()
    result = import_run(db, run_path, "bench", {"notes": "benchmark"}, batch_rows=batch_rows)
    seconds = time.perf_counter() - start
    db.close()
    return {"rows": result.rows, "seconds": seconds, "peak_mb": _peak_mb()}


def child_sqlite_utils(db_path: str, run_path: str) -> dict:
    import sqlite_utils

    from labeling.files import formats

    start = time.perf_counter()
    frame = formats.read_run(run_path)
    db = sqlite_utils.Database(db_path)
    db["run_results"].insert_all(
        frame[["query_id", "doc_id", "rank", "score"]].to_dict("records"), batch_size=10_000
    )
    seconds = time.perf_counter() - start
    rows = db["run_results"].count
    db.close()
    return {"rows": rows, "seconds": seconds, "peak_mb": _peak_mb()}


def measure(*args: str) -> dict:
    out = subprocess.run(
        [sys.executable, __file__, "--child", *args], check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--batch-rows", type=int, default=50_000)
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, *rest = args.child
        if kind == "workspace":
            print(json.dumps(child_workspace(rest[0], rest[1], int(rest[2]))))
        else:
            print(json.dumps(child_sqlite_utils(rest[0], rest[1])))
        return 0

    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run.trec"
        generate(run, args.rows)
        size_mb = run.stat().st_size / 2**20
        results = {
            f"scorecard import run (batches of {args.batch_rows:,})": measure(
                "workspace", str(Path(tmp) / "w.db"), str(run), str(args.batch_rows)
            ),
            "read_run + sqlite-utils insert_all (whole file)": measure(
                "sqlite_utils", str(Path(tmp) / "plain.db"), str(run)
            ),
        }
    print(f"\n{args.rows:,}-row TREC run ({size_mb:.0f} MB), Python {sys.version.split()[0]}\n")
    print("| method | rows | seconds | rows/s | peak RSS (MB) |")
    print("|---|---:|---:|---:|---:|")
    for name, r in results.items():
        rate = r["rows"] / r["seconds"]
        print(f"| {name} | {r['rows']:,} | {r['seconds']:.1f} | {rate:,.0f} | {r['peak_mb']:.0f} |")
    peak = next(iter(results.values()))["peak_mb"]
    if peak > LIMIT_MB:
        print(f"\nFAIL: workspace import peaked at {peak:.0f} MB (limit {LIMIT_MB} MB)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
