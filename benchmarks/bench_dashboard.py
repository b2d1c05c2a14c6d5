"""Dashboard timings on a large workspace: 100k queries x 100 results, 1M judgments, 8 segments.

Builds the workspace with bulk inserts in a temporary folder (about a minute), then times, as
medians of ``--repeat`` runs:

- loading: the run from SQLite (cold) and from the parquet cache next to the workspace (warm),
  the consensus labels from 1M judgments, and ranking the run once (``rank_rows``);
- with run and labels in memory, a control change (measure, segment, split, policy) until the
  scorecard numbers (means, 95% bootstrap intervals, n per segment) are computed: first time
  (nothing cached for that control) and cached (the same controls again).

Usage: ``.venv/bin/python benchmarks/bench_dashboard.py [--queries 100000] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import statistics as stats
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeling.evaluation import label_sets, ranked_runs, result_cache, scoring, segmenting
from labeling.workspace import contents, grading, store

DEPTH = 100
CHUNKS = 1_000_000
SEGMENTS = 8


def build(path: Path, n_queries: int, seed: int = 0) -> None:
    """A workspace with ``n_queries`` x 100 run rows and ~10 judgments per query."""
    rng = np.random.default_rng(seed)
    db = grading.init_workspace(path)
    conn = db.conn
    conn.execute("PRAGMA foreign_keys = OFF")  # bulk load of consistent data
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO chunks (id, doc_id, text) VALUES (?, ?, '')",
        ((f"c{i}", f"d{i // 10}") for i in range(CHUNKS)),
    )
    splits = rng.choice(["dev", "test"], n_queries)
    conn.executemany(
        "INSERT INTO queries (id, text, source, split) VALUES (?, ?, ?, ?)",
        ((f"q{i}", f"query {i}", "real" if i % 3 else "synthetic", splits[i])
         for i in range(n_queries)),
    )
    conn.executemany(
        "INSERT INTO query_attributes (query_id, name, value) VALUES (?, 'segment', ?)",
        ((f"q{i}", f"s{i % SEGMENTS}") for i in range(n_queries)),
    )
    conn.execute("INSERT INTO runs (id, name, created_at) VALUES (1, 'big', ?)",
                 [store.utc_now()])
    docs = rng.integers(0, CHUNKS, size=(n_queries, DEPTH))
    scores = np.floor(rng.random((n_queries, DEPTH)) * 256) / 64
    conn.executemany(
        "INSERT OR IGNORE INTO run_results (run_id, query_id, chunk_id, rank, score)"
        " VALUES (1, ?, ?, NULL, ?)",
        ((f"q{q}", f"c{docs[q, r]}", float(scores[q, r]))
         for q in range(n_queries) for r in range(DEPTH)),
    )
    # ~10 labels per query: 6 on retrieved chunks, 4 elsewhere; grades 0-3.
    picked = docs[:, :6]
    other = rng.integers(0, CHUNKS, size=(n_queries, 4))
    labels = np.concatenate([picked, other], axis=1)
    grades = rng.choice(4, size=labels.shape, p=[0.4, 0.3, 0.2, 0.1])
    now = store.utc_now()
    conn.executemany(
        "INSERT INTO judgments (query_id, chunk_id, grade, annotator, created_at)"
        " VALUES (?, ?, ?, 'bench', ?)",
        ((f"q{q}", f"c{labels[q, j]}", int(grades[q, j]), now)
         for q in range(n_queries) for j in range(labels.shape[1])),
    )
    conn.execute("COMMIT")
    conn.close()


class _Rows(list):
    """Result rows, also echoed to stderr as they come (a full run takes minutes)."""

    def append(self, row: tuple[str, str]) -> None:
        print(f"  {row[0]}: {row[1]} s", file=sys.stderr, flush=True)
        super().append(row)


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def median(samples: list[float]) -> str:
    return f"{stats.median(samples):.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workspace", type=Path,
                        help="build here (or reuse if it exists) instead of a temporary folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = args.workspace or Path(folder) / "big.db"
        if not path.exists():
            started = time.perf_counter()
            build(path, args.queries)
            print(f"built {path.stat().st_size / 1e9:.2f} GB workspace in "
                  f"{time.perf_counter() - started:.0f} s")
        for stale in path.parent.glob(f".{path.name}.cache/*"):
            stale.unlink()  # time the cold paths cold
        db = store.open_workspace(path)
        print(contents.counts(db))
        queries = segmenting.query_table(db)
        rows = _Rows()

        def cold_run() -> None:
            result_cache.clear_cache()
            ranked_runs.load_run(db, "big", use_disk_cache=False)

        # Minutes per try at 10M rows: timed once.
        rows.append((f"load run from SQLite ({contents.counts(db)['run_results']:,} rows), once",
                     median([timed(cold_run)])))
        result_cache.clear_cache()
        ranked_runs.load_run(db, "big")  # writes the parquet cache

        def warm_run() -> None:
            result_cache.clear_cache()
            ranked_runs.load_run(db, "big")

        rows.append(("load run from the parquet cache",
                     median([timed(warm_run) for _ in range(args.repeat)])))

        def labels() -> None:
            result_cache.clear_cache()
            label_sets.label_snapshot(db)

        rows.append(("consensus labels from 1M judgments + snapshot hash, once",
                     median([timed(labels)])))
        rows.append(("labels from the parquet cache",
                     median([timed(labels) for _ in range(args.repeat)])))

        def rank() -> None:
            result_cache.clear_cache()
            ranked_runs.load_run(db, "big")
            label_sets.label_snapshot(db)
            start = time.perf_counter()
            scoring.per_query(db, "big", ["RR"])
            rank_times.append(time.perf_counter() - start)

        rank_times: list[float] = []
        for _ in range(args.repeat):
            rank()
        rows.append(("rank the run once (rank_rows) + first RR", median(rank_times)))
        rows.append(("query table (segments) from SQLite",
                     median([timed(lambda: segmenting._query_table(db))
                             for _ in range(args.repeat)])))

        controls = [
            ("measures R@10, RR; segment", dict(measures=["R@10", "RR"], segment="segment")),
            ("+ nDCG@10", dict(measures=["R@10", "RR", "nDCG@10"], segment="segment")),
            ("segment -> source", dict(measures=["R@10", "RR"], segment="source")),
            ("split -> test", dict(measures=["R@10", "RR"], segment="segment", split="test")),
            ("policy -> judged only",
             dict(measures=["R@10", "RR"], segment="segment", policy="judged_only")),
        ]

        def numbers(measures, segment, split="all", policy="nonrelevant"):
            return scoring.segment_scorecard(db, "big", measures, segment, queries=queries,
                                               split=split, policy=policy)

        # Keep run, labels and the ranking in memory; drop only the per-control results.
        for name, control in controls:
            firsts, cached = [], []
            for _ in range(args.repeat):
                with result_cache._CACHE.lock:
                    items = result_cache._CACHE.items
                    for key in [k for k in items if k[0] in ("per_query", "scorecard")]:
                        del items[key]
                firsts.append(timed(lambda c=control: numbers(**c)))
                cached.append(timed(lambda c=control: numbers(**c)))
            rows.append((f"control change, first time: {name}", median(firsts)))
            rows.append((f"control change, cached: {name}", median(cached)))

        print(f"\n{args.queries} queries x {DEPTH} results, {contents.counts(db)['judgments']} "
              f"judgments, {SEGMENTS} segments; medians of {args.repeat} runs\n")
        print("| step | seconds |\n|---|---|")
        for name, value in rows:
            print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
