"""Carrying 1M judgments over to a new chunk set of 1M chunks: time and peak memory.

Builds a workspace in a temporary folder with bulk inserts (the judgment triggers run for
every row, as on a real import), then times ``labeling.rechunking.transfer.transfer_labels``
from the workspace file to the committed transfer: reading spans and judgments, the vectorised
overlap, the rule, and writing the transferred labels, their links, the outcome of every old
judgment, the suggestions, the queue and the pair sources. ``plan_for`` (reading and deciding,
nothing written) is timed too, and the phases of the transfer are taken from its progress
callback. Peak memory is the process's peak resident set (VmHWM) during the transfer, reset
before it through ``/proc/self/clear_refs``, and is printed beside the resident set before it.

The data (seeded):
- ``--chunks / 10`` documents of 4,000 characters (their stored text is a stub: when both chunk
  sets use the same document version the transfer reads spans only, never text);
- old chunk set: 10 chunks of 400 characters per document (1M chunks for the default);
- two new chunk sets of ``--chunks`` chunks, 10 per document, each transferred to on its own
  copy of the workspace:
  - ``aligned``, what a splitter that keeps paragraph boundaries makes of a new size: per
    document two pairs of old chunks merged, two old chunks cut in halves, six kept;
  - ``shifted``, word windows that ignore the boundaries: 500 characters with a stride of 400
    (an overlap of 100), shifted per document by a random -200..200 characters and clipped to
    the document, so judged texts are held whole, split, or straddled (the hard case: many
    suggestions);
- ``--judgments`` judgments (80% of pairs judged by one person, 20% by two) of random old
  chunks by 100k queries, grades 0/1/2/3 with shares 60/20/12/8%.

Usage: ``nice -n 10 .venv/bin/python benchmarks/bench_transfer.py [--chunks 1000000]
[--judgments 1000000] [--repeat 3] [--keep FILE]``. Each repetition transfers on a fresh copy
of the built workspace; the table gives the median. ``--keep FILE`` keeps the built workspace
there and reuses it when it exists (for profiling).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeling.rechunking import transfer
from labeling.workspace import grading, store

DOC_LENGTH = 4_000
OLD_LENGTH = 400
NEW_LENGTH, NEW_STRIDE = 500, 400
QUERIES = 100_000
# Paragraphs (old chunks) 0-9 of 400 characters: 0+1 and 5+6 merged, 3 and 8 cut in halves.
ALIGNED = [(0, 800), (800, 1200), (1200, 1400), (1400, 1600), (1600, 2000), (2000, 2800),
           (2800, 3200), (3200, 3400), (3400, 3600), (3600, 4000)]
ANNOTATORS = ("alice", "bob", "chen", "dana")


def _shifted(shift: int) -> list[tuple[int, int]]:
    """Ten windows of ``NEW_LENGTH`` characters every ``NEW_STRIDE``, moved by ``shift``."""
    return [(max(0, k * NEW_STRIDE + shift), min(DOC_LENGTH, k * NEW_STRIDE + shift + NEW_LENGTH))
            for k in range(10)]


def _status(field: str) -> float:
    """A VmRSS/VmHWM line of /proc/self/status, in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) / 1024
    return float("nan")


def build(path: Path, n_chunks: int, n_judgments: int, seed: int = 0) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    timings: dict[str, float] = {}
    db = grading.init_workspace(path)
    db.conn.execute("PRAGMA cache_size = -1000000")
    docs = n_chunks // 10
    now = store.utc_now()
    started = time.perf_counter()
    with store.write_transaction(db) as tx:
        tx.executemany("INSERT INTO documents (id, version, text, imported_at)"
                       " VALUES (?, 'v1', 'stub', ?)", ((f"d{d:06d}", now) for d in range(docs)))
        for name in ("old", "aligned", "shifted"):
            tx.execute("INSERT INTO chunk_sets (name, created_at) VALUES (?, ?)", [name, now])
        old_rows = [(f"o{d:06d}-{k}", f"d{d:06d}", d * 10 + k) for d in range(docs)
                    for k in range(10)]
        tx.executemany("INSERT INTO chunks (id, doc_id) VALUES (?, ?)",
                       ((c, d) for c, d, _ in old_rows))
        tx.executemany('INSERT INTO chunk_spans (chunk_id, doc_id, doc_version, start, "end")'
                       " VALUES (?, ?, 'v1', ?, ?)",
                       ((c, d, (p % 10) * OLD_LENGTH, (p % 10 + 1) * OLD_LENGTH)
                        for c, d, p in old_rows))
        tx.executemany("INSERT INTO chunk_set_members (chunk_set, chunk_id, position)"
                       " VALUES ('old', ?, ?)", ((c, p) for c, _, p in old_rows))
        shifts = rng.integers(-200, 201, docs)
        for name, spans in (("aligned", lambda d: ALIGNED),
                            ("shifted", lambda d: _shifted(int(shifts[d])))):
            new_rows = [(f"{name[0]}{d:06d}-{k}", f"d{d:06d}", start, end, d * 10 + k)
                        for d in range(docs) for k, (start, end) in enumerate(spans(d))]
            tx.executemany("INSERT INTO chunks (id, doc_id) VALUES (?, ?)",
                           ((c, d) for c, d, *_ in new_rows))
            tx.executemany('INSERT INTO chunk_spans (chunk_id, doc_id, doc_version, start,'
                           ' "end") VALUES (?, ?, \'v1\', ?, ?)',
                           ((c, d, s, e) for c, d, s, e, _ in new_rows))
            tx.executemany("INSERT INTO chunk_set_members (chunk_set, chunk_id, position)"
                           " VALUES (?, ?, ?)", ((name, c, p) for c, *_, p in new_rows))
        tx.executemany("INSERT INTO queries (id, text) VALUES (?, ?)",
                       ((f"q{q:06d}", f"question {q}") for q in range(QUERIES)))
    timings["documents, chunks, spans, queries"] = time.perf_counter() - started

    started = time.perf_counter()
    pairs = int(n_judgments / 1.2)
    queries = rng.integers(0, QUERIES, pairs)
    chunks = rng.integers(0, len(old_rows), pairs)
    grades = rng.choice(4, size=pairs, p=[0.6, 0.2, 0.12, 0.08])
    second = rng.random(pairs) < (n_judgments - pairs) / pairs
    rows = [(f"q{q:06d}", old_rows[c][0], int(g), ANNOTATORS[i % 2])
            for i, (q, c, g) in enumerate(zip(queries, chunks, grades, strict=True))]
    rows += [(q, c, g, ANNOTATORS[2 + i % 2])
             for i, (q, c, g) in enumerate((r[:3] for r, s in zip(rows, second, strict=True)
                                            if s))]
    with store.write_transaction(db) as tx:
        tx.executemany("INSERT INTO judgments (query_id, chunk_id, grade, annotator, created_at,"
                       " origin) VALUES (?, ?, ?, ?, ?, 'person')",
                       ((q, c, g, a, now) for q, c, g, a in rows))
    timings[f"{len(rows):,} judgments"] = time.perf_counter() - started
    db.close()
    return timings


def transfer_once(path: Path, to_set: str) -> dict:
    """One transfer on the workspace at ``path``: its phases, wall and CPU time, memory."""
    db = store.open_workspace(path, create=False)
    started = time.perf_counter()
    plan = transfer.plan_for(db, "old", to_set)
    planned = time.perf_counter() - started
    del plan
    phases: list[tuple[float, str]] = []
    rss_before = _status("VmRSS")
    Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current RSS
    cpu = time.process_time()
    started = time.perf_counter()
    result = transfer.transfer_labels(
        db, "old", to_set,
        progress=lambda share, what: phases.append((time.perf_counter() - started, what)))
    total = time.perf_counter() - started
    cpu = time.process_time() - cpu
    peak = _status("VmHWM")
    db.close()
    steps = {what: end - at for (at, what), (end, _) in
             zip(phases, [*phases[1:], (total, "")], strict=True) if what != "done"}
    return {"result": result, "plan": planned, "steps": steps, "total": total, "cpu": cpu,
            "rss_before": rss_before, "peak": peak, "load": os.getloadavg()[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--judgments", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-transfer-") as folder:
        built = args.keep or Path(folder) / "built.db"
        if not built.exists():
            for what, seconds in build(built, args.chunks, args.judgments).items():
                print(f"build: {what}: {seconds:.1f} s")
        for to_set in ("aligned", "shifted"):
            runs = []
            for _ in range(args.repeat):
                copy = Path(folder) / "transfer.db"
                for side in ("", "-wal", "-shm"):
                    Path(f"{copy}{side}").unlink(missing_ok=True)
                shutil.copyfile(built, copy)
                runs.append(transfer_once(copy, to_set))
            if runs:
                _print(to_set, runs)


def _print(to_set: str, runs: list[dict]) -> None:
    median = statistics.median
    print(f"\n### old -> {to_set}\n\n{runs[0]['result'].summary()}\n")
    print(f"| step | seconds, median of {len(runs)} |\n|---|---|")
    print(f"| plan only (read, overlap, rule; nothing written) | "
          f"{median(r['plan'] for r in runs):.1f} |")
    for what in runs[0]["steps"]:
        print(f"| transfer: {what} | {median(r['steps'][what] for r in runs):.1f} |")
    print(f"| **transfer, all of it** (wall) | **{median(r['total'] for r in runs):.1f}** |")
    print(f"| transfer, CPU time of the process | {median(r['cpu'] for r in runs):.1f} |")
    print(f"\nresident set before the transfer: {median(r['rss_before'] for r in runs):.0f} MB; "
          f"peak during it: {median(r['peak'] for r in runs):.0f} MB (VmHWM, median); load "
          f"average of the machine during the runs: "
          + ", ".join(f"{r['load']:.1f}" for r in runs))
    print("each run, wall / CPU seconds: " + ", ".join(
        f"{r['total']:.1f} / {r['cpu']:.1f}" for r in runs))


if __name__ == "__main__":
    main()
