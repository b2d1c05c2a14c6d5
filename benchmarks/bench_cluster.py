"""The distributed engines on this machine: a run of ``--queries`` x ``--depth`` rows written as
Parquet parts of ``--part-rows`` rows, scored by ``scorecard``'s Dask and Spark paths.

The run is adversarial the way logged traffic is: each query's rows are spread over many parts
(row r belongs to query ``r * 7919 mod Q``), scores are multiples of 1/64 (ties), ids are
strings. Labels: ``--labels-per-query`` per query (grades 0-3), in one Parquet file read on the
client. For each engine the script prints wall time, rows/s and the peak memory of every
process it started (VmHWM from /proc, polled every 0.2 s: the kernel's own high-water mark,
so nothing between polls is missed), grouped by role. ``--check`` also scores the run on one
machine (only for sizes that fit) and compares every query's values.

Usage: ``.venv/bin/python benchmarks/bench_cluster.py --queries 1000000 --depth 100
[--engines dask spark] [--data-dir /tmp/bench-cluster] [--check]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from labeling.cluster.dask_engine import evaluate_on_dask, local_client
from labeling.cluster.parts import list_parts, read_labels
from labeling.cluster.spark_engine import evaluate_on_spark, session

MEASURES = ["P@10", "R@100", "Success@10", "RR", "AP@100", "nDCG@10"]
SPREAD = 7919  # coprime with the query counts used: each query gets exactly ``depth`` rows
DOCS = 10_000_019  # a prime: a query's doc ids never repeat


def _ids(prefix: str, numbers: np.ndarray) -> pa.Array:
    return pc.binary_join_element_wise(prefix, pa.array(numbers).cast(pa.string()), "")


def write_run(folder: Path, queries: int, depth: int, part_rows: int) -> int:
    """The run as Parquet parts; returns the number of parts."""
    folder.mkdir(parents=True, exist_ok=True)
    total = queries * depth
    parts = 0
    for start in range(0, total, part_rows):
        r = np.arange(start, min(start + part_rows, total), dtype=np.int64)
        query = (r * SPREAD) % queries
        doc = (r * 104_729 + 17) % DOCS
        score = ((r * 2_654_435_761) >> 8) % 256 / 64
        pq.write_table(pa.table({"query_id": _ids("q", query), "doc_id": _ids("doc", doc),
                                 "score": score}), folder / f"part-{parts:05d}.parquet")
        parts += 1
    return parts


def write_labels(path: Path, queries: int, depth: int, per_query: int) -> None:
    """``per_query`` labels per query: half on rows the run returned, half elsewhere."""
    rng = np.random.default_rng(0)
    query = np.repeat(np.arange(queries, dtype=np.int64), per_query)
    k = np.tile(np.arange(per_query), queries)
    # Row r of query q satisfies r * SPREAD = q (mod queries): r = q * inverse + j * queries.
    inverse = pow(SPREAD, -1, queries)
    r = (query * inverse) % queries + (k * 7 % depth) * queries
    doc = np.where(k % 2 == 0, (r * 104_729 + 17) % DOCS, DOCS + query * per_query + k)
    grade = rng.choice(4, size=len(query), p=[0.4, 0.3, 0.2, 0.1])
    pq.write_table(pa.table({"query_id": _ids("q", query), "doc_id": _ids("doc", doc),
                             "relevance": grade}), path)


class PeakMemory:
    """The largest VmHWM of every process below this one, by process, polled in a thread."""

    def __init__(self) -> None:
        import psutil

        self.me = psutil.Process()
        self.peaks: dict[int, tuple[str, int]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()

    def _sample(self) -> None:
        for process in [self.me, *self.me.children(recursive=True)]:
            try:
                status = Path(f"/proc/{process.pid}/status").read_text()
                cmdline = " ".join(process.cmdline())
                if process.name() == "java":
                    cmdline = "java " + cmdline
                elif not cmdline:  # exiting: name it after the processes it was forked from
                    cmdline = "forked from " + " ".join(p.name() for p in process.parents())
            except (OSError, Exception):  # gone meanwhile
                continue
            hwm = next((int(line.split()[1]) for line in status.splitlines()
                        if line.startswith("VmHWM:")), 0)
            old = self.peaks.get(process.pid, ("", 0))[1]
            self.peaks[process.pid] = (_role(cmdline, process.pid == self.me.pid),
                                       max(old, hwm))

    def _poll(self) -> None:
        while not self._stop.wait(0.2):
            self._sample()

    def by_role(self) -> dict[str, tuple[int, int]]:
        """role -> (processes, largest peak in MB); processes that never reached 50 MB (shell
        helpers, multiprocessing's resource tracker) are left out."""
        out: dict[str, list[int]] = {}
        for role, kb in self.peaks.values():
            if kb >= 50 * 1024:
                out.setdefault(role, []).append(kb)
        return {role: (len(kbs), max(kbs) // 1024) for role, kbs in out.items()}


def _role(cmdline: str, me: bool) -> str:
    if me:
        return "client (labels, gathered per-query values)"
    if cmdline.startswith("java "):
        return "Spark JVM (driver + executor, local mode)"
    if "pyspark" in cmdline or (cmdline.startswith("forked from") and "java" in cmdline):
        return "Spark Python worker"
    if "multiprocessing" in cmdline and "spawn_main" in cmdline:
        return "Dask worker process"
    if "distributed" in cmdline or "dask" in cmdline or "multiprocessing" in cmdline:
        return "Dask helper process"
    return "other: " + cmdline[:40]


def run_engine(engine: str, labels: pd.DataFrame, label_parts: list[Path], parts: list[Path],
               workers: int, memory_gb: int) -> tuple[float, object, dict]:
    with PeakMemory() as peaks:
        start = time.perf_counter()
        if engine == "dask":
            client = local_client(workers)
            ready = time.perf_counter()
            try:
                # The workers read the labels file (a frame would travel in the task graph).
                result = evaluate_on_dask(label_parts, parts, MEASURES, client=client)
            finally:
                cluster = client.cluster
                client.close()
                cluster.close()
        else:
            spark = session({
                "spark.master": f"local[{workers},4]",
                "spark.driver.memory": f"{memory_gb}g",
                "spark.sql.files.maxPartitionBytes": str(32 << 20),
                "spark.sql.shuffle.partitions": str(len(parts)),
            })
            ready = time.perf_counter()
            try:
                result = evaluate_on_spark(labels, parts, MEASURES, spark=spark,
                                           partitions=len(parts))
            finally:
                spark.stop()
        done = time.perf_counter()
    return done - ready, result, {"start": ready - start, "peaks": peaks.by_role()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1_000_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--part-rows", type=int, default=1_000_000)
    parser.add_argument("--labels-per-query", type=int, default=5)
    parser.add_argument("--engines", nargs="+", default=["dask", "spark"])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--spark-memory-gb", type=int, default=4)
    parser.add_argument("--data-dir", type=Path)
    parser.add_argument("--check", action="store_true",
                        help="also score on one machine and compare every query")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = args.data_dir or Path(temporary)
        run_dir, labels_path = folder / "run", folder / "labels.parquet"
        rows = args.queries * args.depth
        if not run_dir.exists():
            started = time.perf_counter()
            write_run(run_dir, args.queries, args.depth, args.part_rows)
            write_labels(labels_path, args.queries, args.depth, args.labels_per_query)
            print(f"wrote {rows:,} rows in {time.perf_counter() - started:.0f} s")
        parts = list_parts(run_dir, "run")
        size = sum(p.stat().st_size for p in parts) / 1e9
        labels = read_labels(labels_path)
        print(f"{rows:,} rows in {len(parts)} Parquet parts ({size:.2f} GB), "
              f"{len(labels):,} labels; {args.workers} workers", flush=True)
        results = {}
        table = []
        for engine in args.engines:
            seconds, result, info = run_engine(engine, labels, [labels_path], parts,
                                               args.workers, args.spark_memory_gb)
            results[engine] = result
            table.append((engine, seconds, info))
            print(f"{engine}: {seconds:.1f} s ({rows / seconds:,.0f} rows/s), cluster start "
                  f"{info['start']:.1f} s, {result.n:,} queries, means "
                  f"{result.mean.round(4).to_dict()}", flush=True)
            for role, (count, mb) in sorted(info["peaks"].items()):
                print(f"  peak memory, {role}: {mb} MB (largest of {count})", flush=True)
        if len(results) == 2:
            a, b = results["dask"].per_query, results["spark"].per_query
            print(f"dask vs spark: largest per-query difference "
                  f"{float((a - b).abs().max().max()):.1e} over {len(a):,} queries")
        if args.check:
            from labeling.metrics.engine import evaluate

            run = pd.concat(pd.read_parquet(p) for p in parts)
            single = evaluate(labels, run, MEASURES).per_query
            single.index = single.index.astype(str)
            for engine, result in results.items():
                diff = (result.per_query - single.sort_index()).abs().max().max()
                print(f"{engine} vs one machine: largest per-query difference {diff:.1e}")
        print("\n| engine | rows | seconds | rows/s | partition rows | peak MB per process |")
        print("|---|---:|---:|---:|---:|---|")
        for engine, seconds, info in table:
            peaks = "; ".join(f"{role}: {mb} (×{count})"
                              for role, (count, mb) in sorted(info["peaks"].items()))
            print(f"| {engine} | {rows:,} | {seconds:.1f} | {rows / seconds:,.0f} | "
                  f"{args.part_rows:,} | {peaks} |")


if __name__ == "__main__":
    main()
