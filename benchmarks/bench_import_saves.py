"""Save latency while a large run imports: four annotators save while one run file imports.

    python benchmarks/bench_import_saves.py [--rows 1000000] [--savers 4] [--repeats 3]

Each repetition makes a new workspace, stores a small run (the pairs the annotators judge),
then imports a generated ``--rows`` TREC run in one thread while ``--savers`` threads, each
with its own connection (as each browser session has), call ``add_judgment`` in a loop with a
short pause. Everything runs in one process, as in the app's server: the import's Python work
competes with the saves for the interpreter too. Prints, per repetition and as medians of the
repetitions: import seconds, saves made during the import, p50/p99/max save latency (ms) and
failed saves (any exception).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_import import generate  # noqa: E402

PAUSE_S = 0.05  # between two saves of one annotator


def one_run(folder: Path, run_file: Path, savers: int) -> dict:
    from labeling.files.importers import import_run
    from labeling.workspace.grading import init_workspace
    from labeling.workspace.judgments import add_judgment
    from labeling.workspace.store import open_workspace

    db_path = folder / "w.db"
    small = folder / "small.trec"
    small.write_text("".join(f"sq{q} Q0 sc{q * 10 + r} {r} {10 - r} s\n"
                             for q in range(50) for r in range(10)))
    db = init_workspace(db_path)
    import_run(db, small, "small")
    pairs = db.conn.execute("SELECT query_id, chunk_id FROM run_results").fetchall()
    done = threading.Event()
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()

    def save_loop(name: str) -> None:
        conn = open_workspace(db_path)
        n = 0
        while not done.is_set():
            query_id, chunk_id = pairs[(n * 7) % len(pairs)]
            start = time.perf_counter()
            try:
                add_judgment(conn, query_id, chunk_id, n % 4, name)
            except Exception as error:  # counted, the loop goes on
                with lock:
                    failures.append(f"{type(error).__name__}: {error}")
            with lock:
                latencies.append(time.perf_counter() - start)
            n += 1
            time.sleep(PAUSE_S)
        conn.close()

    threads = [threading.Thread(target=save_loop, args=(f"ann{i}",)) for i in range(savers)]
    for thread in threads:
        thread.start()
    start = time.perf_counter()
    rows = import_run(db, run_file, "big").rows
    seconds = time.perf_counter() - start
    done.set()
    for thread in threads:
        thread.join()
    db.close()
    ms = sorted(x * 1000 for x in latencies)
    return {"rows": rows, "seconds": seconds, "saves": len(ms), "failed": len(failures),
            "p50": statistics.median(ms), "p99": ms[min(len(ms) - 1, int(0.99 * len(ms)))],
            "max": ms[-1], "first_failure": failures[0] if failures else ""}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--savers", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        run_file = Path(tmp) / "run.trec"
        generate(run_file, args.rows)
        for repeat in range(args.repeats):
            folder = Path(tmp) / f"r{repeat}"
            folder.mkdir()
            results.append(one_run(folder, run_file, args.savers))
            print(results[-1], flush=True)
    print(f"\n{args.rows:,}-row run imported while {args.savers} annotators save "
          f"(pause {PAUSE_S * 1000:.0f} ms), Python {sys.version.split()[0]}\n")
    print("| repetition | import s | saves | p50 ms | p99 ms | max ms | failed |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for i, r in enumerate(results, start=1):
        print(f"| {i} | {r['seconds']:.1f} | {r['saves']} | {r['p50']:.1f} | {r['p99']:.1f} "
              f"| {r['max']:.1f} | {r['failed']} |")
    med = {k: statistics.median(r[k] for r in results)
           for k in ("seconds", "saves", "p50", "p99", "max", "failed")}
    print(f"| median | {med['seconds']:.1f} | {med['saves']:.0f} | {med['p50']:.1f} "
          f"| {med['p99']:.1f} | {med['max']:.1f} | {med['failed']:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
