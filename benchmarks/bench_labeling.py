"""Labeling-session timings on a large workspace: 100k chunks, 1M judgments, a 200k-pair queue.

Builds the workspace with bulk inserts in a temporary folder (the judgment triggers that keep
the queue's counts run for every row, as they do on a real import), then times the two library
calls a judging card makes per key press, as medians over ``--cards`` cards:

- ``next_card``: the next pair for an annotator (including the lease it writes), for a new
  annotator and for one who has already judged 200k pairs;
- ``save_judgment``: appending the grade (one write transaction, with the triggers).

Usage: ``.venv/bin/python benchmarks/bench_labeling.py [--chunks 100000]
[--judgments 1000000] [--cards 200]``.
"""

from __future__ import annotations

import argparse
import statistics as stats
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeling.judging import queue
from labeling.workspace import contents, grading, store

QUERIES = 10_000
POOL_DEPTH = 20
ANNOTATORS = ("alice", "bob", "chen", "dana", "eli")


def build(path: Path, n_chunks: int, n_judgments: int, seed: int = 0) -> dict[str, float]:
    """The workspace: chunks, queries, a pooled queue (10% overlap) and judgments spread over
    the queue's pairs first, then over random pairs. Returns build timings in seconds."""
    rng = np.random.default_rng(seed)
    timings: dict[str, float] = {}
    db = grading.init_workspace(path)
    conn = db.conn
    conn.execute("PRAGMA cache_size = -2000000")  # 2 GB: random-key index inserts stay in memory
    started = time.perf_counter()
    with store.write_transaction(db) as tx:
        tx.executemany("INSERT INTO chunks (id, doc_id, title, text) VALUES (?, ?, ?, ?)", (
            (f"c{i:06d}", f"d{i // 10:05d}", f"Document {i // 10}",
             f"Chunk {i} about topic {i % 97}: leave, laptops and release notes.")
            for i in range(n_chunks)))
        tx.executemany("INSERT INTO queries (id, text, split) VALUES (?, ?, ?)", (
            (f"q{i:05d}", f"how does topic {i % 97} work", "test" if i % 2 else "dev")
            for i in range(QUERIES)))
    timings["chunks and queries"] = time.perf_counter() - started

    started = time.perf_counter()
    pool_chunks = rng.integers(0, n_chunks, size=(QUERIES, POOL_DEPTH))
    pairs = list(dict.fromkeys(
        (f"q{q:05d}", f"c{c:06d}") for q in range(QUERIES) for c in pool_chunks[q]))
    queue.set_overlap_share(db, 0.1)
    queue.enqueue_pairs(db, pairs, reason="pool")
    timings["queue (pairs)"] = time.perf_counter() - started

    started = time.perf_counter()
    # Judge 95% of the queue once (annotators in turn), then random pairs up to n_judgments.
    judged = pairs[: int(len(pairs) * 0.95)]
    rows = [(q, c, int(rng.integers(0, 4)), ANNOTATORS[i % len(ANNOTATORS)])
            for i, (q, c) in enumerate(judged)]
    extra = max(0, n_judgments - len(rows))
    queries = rng.integers(0, QUERIES, extra)
    chunks = rng.integers(0, n_chunks, extra)
    grades = rng.integers(0, 4, extra)
    who = rng.integers(0, len(ANNOTATORS), extra)
    rows += [(f"q{q:05d}", f"c{c:06d}", int(g), ANNOTATORS[a])
             for q, c, g, a in zip(queries, chunks, grades, who, strict=True)]
    now = store.utc_now()
    with store.write_transaction(db) as tx:
        tx.executemany(
            "INSERT INTO judgments (query_id, chunk_id, grade, annotator, created_at)"
            " VALUES (?, ?, ?, ?, ?)", ((q, c, g, a, now) for q, c, g, a in rows))
    timings[f"{len(rows):,} judgments"] = time.perf_counter() - started
    conn.execute("ANALYZE")
    conn.close()
    return timings


def time_session(db, annotator: str, cards: int) -> tuple[list[float], list[float]]:
    """Judge ``cards`` cards as ``annotator``: per-call seconds of next_card and save_judgment."""
    fetch, save = [], []
    for i in range(cards):
        started = time.perf_counter()
        card = queue.next_card(db, annotator)
        fetch.append(time.perf_counter() - started)
        if card is None:
            break
        started = time.perf_counter()
        queue.save_judgment(db, card.query_id, card.chunk_id, i % 4, annotator)
        save.append(time.perf_counter() - started)
    return fetch, save


def ms(values: list[float]) -> str:
    return (f"median {stats.median(values) * 1000:6.2f} ms · p95 "
            f"{np.percentile(values, 95) * 1000:6.2f} ms · n={len(values)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--judgments", type=int, default=1_000_000)
    parser.add_argument("--cards", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.db"
        for step, seconds in build(path, args.chunks, args.judgments).items():
            print(f"build {step}: {seconds:.1f} s")
        db = store.open_workspace(path)
        counts = contents.counts(db)
        left = db.conn.execute("SELECT count(*) FROM label_queue WHERE judged < needed")
        print(f"workspace: {counts['chunks']:,} chunks, {counts['queries']:,} queries, "
              f"{counts['judgments']:,} judgments, "
              f"{db.conn.execute('SELECT count(*) FROM label_queue').fetchone()[0]:,} queued "
              f"pairs ({left.fetchone()[0]:,} open)")
        for annotator, label in (("newcomer", "a new annotator"),
                                 ("alice", "an annotator with 200k judgments")):
            fetch, save = time_session(db, annotator, args.cards)
            print(f"{label}:")
            print(f"  next_card      {ms(fetch)}")
            print(f"  save_judgment  {ms(save)}")
        for annotator in ("newcomer", "alice"):
            runs = []
            for _ in range(5):
                started = time.perf_counter()
                queue.progress(db, annotator)
                runs.append(time.perf_counter() - started)
            print(f"progress (both bars) for {annotator}: {ms(runs)}")


if __name__ == "__main__":
    main()
