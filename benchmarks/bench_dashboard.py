"""Dashboard timings on a large workspace: 100k queries x 100 results, 1M judgments, 8 segments.

Builds the workspace with bulk inserts in a temporary folder (a few minutes), then writes the
run's columnar copy as an import does (timed), and times:

- opening: the run from the workspace into the engine's order (cold: nothing in memory; later:
  another session of the same server, and a new process reading the blobs again), the
  consensus of the 1M judgments, ranking the run against them, and the whole first open up to
  the scorecard's numbers (means, 95% bootstrap intervals, n per segment);
- a new judgment reflected: ``queue.save_judgment`` on a query, then the scorecard's numbers
  again (median of ``--judgments`` judgments, each on another query), checked at the end
  against a full recompute;
- with run and labels in memory, a control change (measure, segment, split, policy) until the
  scorecard numbers: first time (nothing cached for that control) and cached.

Usage: ``.venv/bin/python benchmarks/bench_dashboard.py [--queries 100000] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics as stats
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeling.evaluation.inputs import (
    judgment_copy,
    label_sets,
    ranked_runs,
    result_cache,
    run_freshness,
    segmenting,
)
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores import label_depth, scoring
from labeling.judging import consensus, queue
from labeling.workspace import contents, grading, run_parts, store

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
    # As an import stores a qrels file: judgments of origin import, and where each pair came from.
    conn.executemany(
        "INSERT INTO judgments (query_id, chunk_id, grade, annotator, created_at, origin,"
        " origin_source) VALUES (?, ?, ?, 'bench.qrels', ?, 'import', 'bench.qrels')",
        ((f"q{q}", f"c{labels[q, j]}", int(grades[q, j]), now)
         for q in range(n_queries) for j in range(labels.shape[1])),
    )
    conn.execute(
        "INSERT INTO pair_sources (query_id, chunk_id, source, detail, created_at)"
        " SELECT query_id, chunk_id, 'import', 'bench.qrels', created_at FROM judgments")
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


def wall_and_cpu(action: Callable[[], object], repeat: int) -> str:
    """Median wall time and median CPU time of this process (user + system): on a loaded
    machine the CPU time is what the step costs with a core to itself."""
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        action()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return f"{stats.median(walls):.3f} (CPU {stats.median(cpus):.3f})"


def write_parts(db) -> float:
    """The run's columnar copy, written as ``import_run`` writes it (in one transaction)."""
    start = time.perf_counter()
    with store.write_transaction(db, action="import") as conn:
        run_parts.write_run_parts(conn, 1)
    return time.perf_counter() - start


def cold() -> None:
    """Nothing in memory: what a new server process starts from."""
    result_cache.clear_cache()


def drop_disk_cache(path: Path) -> None:
    shutil.rmtree(path.parent / f".{path.name}.cache", ignore_errors=True)


def tab_notes(db, controls) -> None:
    """What the Scorecard tab shows beside the numbers: the query count, the label depth
    behind recall and the run's age."""
    scoring.query_count(db, controls)
    label_depth.label_depth(db, controls)
    run_freshness.run_age(db, controls.run, controls.rule)


def judge_queries(db, controls, queries, rows, n, segment) -> tuple[list[float], ...]:
    """``n`` judgments, each on another query, each followed by the scorecard's numbers and
    then the rest of the Scorecard tab."""
    rng = np.random.default_rng(1)
    frame = ranked_runs.load_run(db, "big")
    picked = rng.choice(len(queries), size=n, replace=False)
    saves, reflected, whole_tab = [], [], []
    for position in picked:
        query_id = queries[position]
        mine = frame.iloc[ranked_runs.stored_run(db, "big").ordered.rows_of(
            np.array([position]))]
        chunk = str(mine["doc_id"].iloc[int(rng.integers(0, 10))])
        start = time.perf_counter()
        queue.save_judgment(db, query_id, chunk, int(rng.integers(0, 4)), "bench2")
        saved = time.perf_counter()
        card = scoring.segment_scorecard(db, controls, segment, queries=rows)
        done = time.perf_counter()
        tab_notes(db, controls)
        whole_tab.append(time.perf_counter() - start)
        assert not card.empty
        saves.append(saved - start)
        reflected.append(done - start)
    return saves, reflected, whole_tab


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--judgments", type=int, default=20)
    parser.add_argument("--workspace", type=Path,
                        help="build here (or reuse if it exists) instead of a temporary folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = args.workspace or Path(folder) / "big.db"
        rows = _Rows()
        if not path.exists():
            started = time.perf_counter()
            build(path, args.queries)
            print(f"built {path.stat().st_size / 1e9:.2f} GB workspace in "
                  f"{time.perf_counter() - started:.0f} s")
        drop_disk_cache(path)  # time the cold paths cold
        db = store.open_workspace(path)
        counts = contents.counts(db)
        print(counts)
        rows.append((f"columnar copy of the run ({counts['run_results']:,} rows) as an import "
                     "writes it, once", f"{write_parts(db):.3f}"))
        measures = ("R@10", "RR")
        controls = Controls("big", measures=measures)

        def first_open() -> None:
            cold()
            drop_disk_cache(path)
            start = time.perf_counter()
            ranked_runs.stored_run(db, "big")
            run_done = time.perf_counter()
            labels = label_sets.label_snapshot(db, "default")
            labels_done = time.perf_counter()
            ranked_runs._ranked(db, "big", "chunk", labels)
            rank_done = time.perf_counter()
            table = segmenting.query_table(db)
            scoring.segment_scorecard(db, controls, "segment", queries=table)
            done = time.perf_counter()
            tab_notes(db, controls)
            parts["tab"].append(time.perf_counter() - done)
            parts["run"].append(run_done - start)
            parts["labels"].append(labels_done - run_done)
            parts["rank"].append(rank_done - labels_done)
            parts["rest"].append(done - rank_done)
            parts["total"].append(done - start)

        parts: dict[str, list[float]] = {
            k: [] for k in ("run", "labels", "rank", "rest", "total", "tab")}
        for _ in range(args.repeat):
            first_open()
        rows.append(("first open, cold: run from the workspace (columnar parts)",
                     median(parts["run"])))
        rows.append(("first open, cold: consensus of 1M judgments (+ snapshot)",
                     median(parts["labels"])))
        rows.append(("first open, cold: rank the run against the labels", median(parts["rank"])))
        rows.append(("first open, cold: query table, per-query values, scorecard numbers",
                     median(parts["rest"])))
        rows.append(("first open, cold: total, to the scorecard's numbers",
                     median(parts["total"])))
        rows.append(("first open, cold: then the rest of the Scorecard tab (query count, label "
                     "depth, run age)", median(parts["tab"])))
        rows.append(("later open: another session (run in memory)",
                     median([timed(lambda: ranked_runs.stored_run(db, "big"))
                             for _ in range(args.repeat)])))

        def reread() -> None:
            with result_cache._HEAVY.lock:
                result_cache._HEAVY.items.clear()
            ranked_runs.stored_run(db, "big")

        rows.append(("later open: a new process reading the parts again (page cache warm)",
                     wall_and_cpu(reread, args.repeat)))

        def labels_only() -> None:
            cold()
            drop_disk_cache(path)
            consensus.consensus_qrels(db, "default")

        rows.append(("consensus of 1M judgments: read from SQLite as columns, then the rule",
                     wall_and_cpu(labels_only, args.repeat)))

        def from_copy() -> None:
            version = result_cache.labels_version(db)
            columns = judgment_copy.judgment_columns(db, version)
            consensus.consensus_of_columns(columns, "default")

        drop_disk_cache(path)
        from_copy()  # writes the columnar copy of the judgments
        rows.append(("consensus of 1M judgments: read from their columnar copy, then the rule",
                     wall_and_cpu(from_copy, args.repeat)))
        cold()
        label_sets.label_snapshot(db, "default")  # writes the parquet cache

        def labels_cached() -> None:
            cold()
            label_sets.label_snapshot(db, "default")

        rows.append(("labels from the parquet cache (a new process, no new judgment)",
                     median([timed(labels_cached) for _ in range(args.repeat)])))

        # A new judgment reflected in the scorecard's numbers.
        cold()
        table = segmenting.query_table(db)
        scoring.segment_scorecard(db, controls, "segment", queries=table)
        queries = ranked_runs.stored_run(db, "big").queries
        tab_notes(db, controls)
        saves, reflected, whole_tab = judge_queries(db, controls, queries, table,
                                                    args.judgments, "segment")
        rows.append((f"a new judgment: save (median of {args.judgments})", median(saves)))
        rows.append((f"a new judgment reflected in the scorecard's numbers, save included "
                     f"(median of {args.judgments}, each on another query; max "
                     f"{max(reflected):.3f})", median(reflected)))
        rows.append((f"a new judgment reflected in the whole Scorecard tab (numbers, query "
                     f"count, label depth, run age; median of {args.judgments}, max "
                     f"{max(whole_tab):.3f})", median(whole_tab)))
        patched = scoring.per_query(db, controls)
        cold()
        full = scoring.per_query(db, controls)
        pd.testing.assert_frame_equal(patched, full, check_exact=False, rtol=0, atol=1e-12)
        print(f"incremental per-query values equal a full recompute over {len(full)} queries")

        controls_list = [
            ("measures R@10, RR; segment", dict(measures=["R@10", "RR"], segment="segment")),
            ("+ nDCG@10", dict(measures=["R@10", "RR", "nDCG@10"], segment="segment")),
            ("segment -> source", dict(measures=["R@10", "RR"], segment="source")),
            ("split -> test", dict(measures=["R@10", "RR"], segment="segment", split="test")),
            ("policy -> judged only",
             dict(measures=["R@10", "RR"], segment="segment", policy="judged_only")),
        ]

        def numbers(measures, segment, split="all", policy="nonrelevant"):
            chosen = Controls("big", measures=tuple(measures), split=split, policy=policy)
            return scoring.segment_scorecard(db, chosen, segment, queries=table)

        # Keep run, labels and the ranking in memory; drop only the per-control results.
        for name, control in controls_list:
            firsts, cached = [], []
            for _ in range(args.repeat):
                with result_cache._CACHE.lock:
                    items = result_cache._CACHE.items
                    for key in [k for k in items if k[0] in ("per_query", "scorecard")]:
                        del items[key]
                scoring._VALUES.clear()
                firsts.append(timed(lambda c=control: numbers(**c)))
                cached.append(timed(lambda c=control: numbers(**c)))
            rows.append((f"control change, first time: {name}", median(firsts)))
            rows.append((f"control change, cached: {name}", median(cached)))

        counts = contents.counts(db)
        print(f"\n{args.queries} queries x {DEPTH} results, {counts['judgments']} "
              f"judgments, {SEGMENTS} segments; medians of {args.repeat} runs\n")
        print("| step | seconds |\n|---|---|")
        for name, value in rows:
            print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
