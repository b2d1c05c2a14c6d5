"""How a stored run should reach the metric engine: the options measured on one workspace.

Each option reads the run of ``--workspace`` (``bench_dashboard.py --workspace PATH`` builds
one: 10M rows) into an Arrow table in the engine's order (by query, score descending, doc id
descending), in a fresh child process, ``--repeat`` times (the first read warms the page
cache; the table shows the median):

- ``rows, pandas``: ``pandas.read_sql_query`` through Python's sqlite3 (a Python object per
  value), then the sort: what the dashboard did before.
- ``rows, adbc``: the Arrow-native SQLite driver (``adbc-driver-sqlite``: its own SQLite
  library, no Python object per row), then the same sort.
- ``blobs, ...``: the run's rows already in that order, stored in the workspace as blobs of a
  million rows (``labeling.workspace.run_parts``): Arrow IPC without compression, with LZ4 or
  ZSTD, and Parquet (ZSTD); read with one ``SELECT`` and decoded by Arrow.

Blob variants other than the one the workspace uses are written to a scratch SQLite file next
to nothing else, the same way. Sizes are the blobs' bytes.

Usage: ``.venv/bin/python benchmarks/bench_run_storage.py --workspace /tmp/big.db``
(``pip install -e '.[bench]'`` brings adbc-driver-sqlite).
"""

from __future__ import annotations

import argparse
import io
import json
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CHILD = r"""
import json, sqlite3, sys, time
sys.path.insert(0, {root!r})
import pyarrow as pa, pyarrow.parquet as pq, pandas as pd
from labeling.workspace import run_parts
method, path = {method!r}, {path!r}
start = time.perf_counter()
if method == "rows, pandas":
    conn = sqlite3.connect(path)
    frame = pd.read_sql_query(
        "SELECT query_id, chunk_id, score FROM run_results WHERE run_id = 1", conn)
    table = run_parts.order_run(pa.array(frame["query_id"].astype(str)),
                                pa.array(frame["chunk_id"].astype(str)),
                                pa.array(frame["score"]))
elif method == "rows, adbc":
    import adbc_driver_sqlite.dbapi as adbc
    with adbc.connect(path) as conn, conn.cursor() as cursor:
        cursor.execute("SELECT query_id, chunk_id, score FROM run_results WHERE run_id = 1")
        raw = cursor.fetch_arrow_table()
    table = run_parts.order_run(raw["query_id"].combine_chunks(),
                                raw["chunk_id"].combine_chunks(), raw["score"].combine_chunks())
else:
    conn = sqlite3.connect(path)
    blobs = [b for (b,) in conn.execute("SELECT data FROM run_parts WHERE run_id = 1"
                                        " ORDER BY part")]
    if "parquet" in method:
        table = pa.concat_tables(pq.read_table(pa.BufferReader(b)) for b in blobs)
    else:
        table = pa.concat_tables(pa.ipc.open_stream(pa.py_buffer(b)).read_all() for b in blobs)
print(json.dumps({{"seconds": time.perf_counter() - start, "rows": table.num_rows}}))
"""


def _scratch(workspace: Path, folder: Path, codec: str) -> tuple[Path, int]:
    """A scratch file holding the workspace's parts re-encoded (``codec``); its blob bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from labeling.workspace import run_parts

    source = sqlite3.connect(workspace)
    target_path = folder / f"{codec}.db"
    target = sqlite3.connect(target_path)
    target.execute("CREATE TABLE run_parts (run_id, part, data BLOB)")
    size = 0
    for part, (blob,) in enumerate(source.execute(
            "SELECT data FROM run_parts WHERE run_id = 1 ORDER BY part")):
        table = run_parts.from_blob(blob)
        if codec == "parquet-zstd":
            sink = io.BytesIO()
            pq.write_table(table, sink, compression="zstd")
            data = sink.getvalue()
        else:
            out = pa.BufferOutputStream()
            options = pa.ipc.IpcWriteOptions(compression=None if codec == "none" else codec)
            with pa.ipc.new_stream(out, table.schema, options=options) as writer:
                writer.write_table(table)
            data = out.getvalue().to_pybytes()
        size += len(data)
        target.execute("INSERT INTO run_parts VALUES (1, ?, ?)", [part, data])
    target.commit()
    return target_path, size


def _time(method: str, path: Path, repeat: int) -> list[float]:
    root = str(Path(__file__).resolve().parents[1])
    seconds = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", CHILD.format(root=root, method=method,
                                                                   path=str(path))],
                             capture_output=True, text=True, check=True)
        seconds.append(json.loads(out.stdout.strip().splitlines()[-1])["seconds"])
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workspace", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    conn = sqlite3.connect(args.workspace)
    rows = conn.execute("SELECT count(*) FROM run_results WHERE run_id = 1").fetchone()[0]
    lz4 = conn.execute("SELECT sum(length(data)) FROM run_parts WHERE run_id = 1").fetchone()[0]
    table = [("rows, pandas", args.workspace, None), ("rows, adbc", args.workspace, None),
             ("blobs, IPC LZ4 (the workspace's)", args.workspace, lz4)]
    with tempfile.TemporaryDirectory(dir=args.workspace.parent) as folder:
        for codec, name in (("none", "blobs, IPC uncompressed"), ("zstd", "blobs, IPC ZSTD"),
                            ("parquet-zstd", "blobs, Parquet ZSTD")):
            path, size = _scratch(args.workspace, Path(folder), codec)
            table.append((name, path, size))
        print(f"{rows:,} run rows; medians of {args.repeat} reads, each in a fresh process\n")
        print("| option | seconds to the ordered Arrow table | stored MB |\n|---|---:|---:|")
        for name, path, size in table:
            method = name if name.startswith("rows") else name.lower()
            seconds = _time(method, path, args.repeat)
            stored = f"{size / 1e6:.0f}" if size else "(rows only)"
            print(f"| {name} | {statistics.median(seconds):.2f} "
                  f"(all: {', '.join(f'{s:.2f}' for s in seconds)}) | {stored} |", flush=True)


if __name__ == "__main__":
    main()
