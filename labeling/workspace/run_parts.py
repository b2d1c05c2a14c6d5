"""A stored run's columnar copy: Arrow IPC blobs in ``run_parts``, written when the run is stored.

Conventions
- A part is one Arrow IPC stream (LZ4-compressed buffers) of whole queries: columns query_id
  (dictionary-encoded: the part's queries, sorted), doc_id (string), score (float64) and rank
  (int64). Rows are ordered by query id in byte order (SQLite's ``BINARY`` collation and Arrow's
  string order agree), then as trec_eval ranks them: score descending, doc id descending in
  byte order; ``rank`` is 1 for each query's first row. The parts of a run follow each other in
  query order and no query spans two of them.
- ``run_results`` stays the run's source of truth (pooling and exports read it); the parts are
  written in the same transaction, so the two never disagree. Reading the parts makes no Python
  object per row: each blob is one ``bytes`` value handed to Arrow.
- ``order_run`` is the one place the storage order is defined; ``labeling.metrics.ranking``
  relies on it (``rank_ordered``) instead of sorting the run again.

Why blobs rather than an Arrow-native SQLite reader: see ``benchmarks/README.md`` (measured on
a 10M-row run; a second SQLite library in the process would also break SQLite's POSIX locks,
see ``labeling.workspace.store``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

PART_ROWS = 1_000_000  # rows per blob: ~10 MB compressed, far below SQLite's 1 GB value limit
# Rows turned into Arrow at a time: each step holds the interpreter lock only briefly, so the
# threads saving judgments beside an import are not held up while its parts are built.
FETCH_ROWS = 20_000
CODEC = "lz4"  # measured: 4x smaller than raw, decoded at several GB/s (benchmarks/README.md)
SCHEMA = pa.schema([
    ("query_id", pa.dictionary(pa.int32(), pa.string())),
    ("doc_id", pa.string()),
    ("score", pa.float64()),
    ("rank", pa.int64()),
])


def order_run(
    query_id: pa.Array, doc_id: pa.Array, score: pa.Array, *, by_pair: bool = False
) -> pa.Table:
    """Rows in storage order (see the module docstring) with their trec_eval rank.

    ``by_pair``: the rows already come sorted by (query id, doc id) in byte order (as SQLite
    reads them through the run's unique index); then a stable numeric sort of the reversed
    rows by (query, score descending) gives the same order without comparing strings.
    """
    table = pa.table({"query_id": query_id, "doc_id": doc_id, "score": score})
    if by_pair:
        n = table.num_rows
        reversed_rows = table.take(pa.array(np.arange(n - 1, -1, -1, dtype=np.int64)))
        codes = pc.dictionary_encode(reversed_rows["query_id"].combine_chunks()).indices
        query = -codes.to_numpy(zero_copy_only=False).astype(np.int64)  # reversed: descending
        values = reversed_rows["score"].to_numpy() + 0.0  # -0.0 and 0.0 tie, as in trec_eval
        order = np.lexsort((-values, query))  # lexsort is stable: ties keep doc id descending
        table = reversed_rows.take(pa.array(order))
    else:
        order = pc.sort_indices(table, sort_keys=[
            ("query_id", "ascending"), ("score", "descending"), ("doc_id", "descending"),
        ])
        table = table.take(order)
    encoded = pc.dictionary_encode(table["query_id"].combine_chunks())
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    counts = np.bincount(codes, minlength=len(encoded.dictionary))
    starts = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    rank = np.arange(1, len(codes) + 1, dtype=np.int64) - starts[codes]
    # Sorted rows give a dictionary in first-appearance order, which is sorted too.
    return pa.table([encoded.cast(SCHEMA.field("query_id").type), table["doc_id"],
                     table["score"].cast(pa.float64()), pa.array(rank)], schema=SCHEMA)


def to_blob(table: pa.Table) -> bytes:
    """One part as an IPC stream."""
    sink = pa.BufferOutputStream()
    options = pa.ipc.IpcWriteOptions(compression=CODEC)
    with pa.ipc.new_stream(sink, SCHEMA, options=options) as writer:
        writer.write_table(table.combine_chunks(), max_chunksize=max(table.num_rows, 1))
    return sink.getvalue().to_pybytes()


def from_blob(blob: bytes) -> pa.Table:
    return pa.ipc.open_stream(pa.py_buffer(blob)).read_all()


def _query_groups(conn: sqlite3.Connection, run_id: int, part_rows: int) -> Iterator[tuple]:
    """(first query, last query) of consecutive queries holding about ``part_rows`` rows."""
    counts = conn.execute(
        "SELECT query_id, count(*) FROM run_results WHERE run_id = ?"
        " GROUP BY query_id ORDER BY query_id", [run_id],
    )
    first = last = None
    rows = 0
    for query_id, n in counts:
        if first is not None and rows + n > part_rows:
            yield first, last
            first, rows = None, 0
        first = query_id if first is None else first
        last, rows = query_id, rows + n
    if first is not None:
        yield first, last


def write_run_parts(conn: sqlite3.Connection, run_id: int, *, part_rows: int = PART_ROWS) -> int:
    """Write the parts of run ``run_id`` from its ``run_results`` rows, inside the caller's
    transaction (replacing any parts it had); returns the number of parts."""
    conn.execute("DELETE FROM run_parts WHERE run_id = ?", [run_id])
    parts = 0
    for row in run_part_rows(conn, run_id, part_rows=part_rows):
        insert_run_part(conn, row)
        parts += 1
    return parts


def run_part_rows(
    conn: sqlite3.Connection, run_id: int, *, part_rows: int = PART_ROWS
) -> Iterator[tuple]:
    """The ``run_parts`` rows of run ``run_id`` (run_id, part, first_query, last_query, rows,
    data), built from its ``run_results`` rows; reads only, so a staged run's parts are built
    outside any write transaction (``labeling.workspace.staged_runs``).

    Reads the rows back a part at a time in query order (the run's unique index), so memory
    stays bounded by ``part_rows`` whatever the run's size.
    """
    for part, (first, last) in enumerate(list(_query_groups(conn, run_id, part_rows))):
        cursor = conn.execute(
            "SELECT query_id, chunk_id, score FROM run_results"
            " WHERE run_id = ? AND query_id BETWEEN ? AND ? ORDER BY query_id, chunk_id",
            [run_id, first, last],
        )
        pieces = []
        while rows := cursor.fetchmany(FETCH_ROWS):
            query_id, doc_id, score = zip(*rows, strict=True)
            pieces.append(pa.table({"query_id": pa.array(query_id, pa.string()),
                                    "doc_id": pa.array(doc_id, pa.string()),
                                    "score": pa.array(score, pa.float64())}))
        rows_read = pa.concat_tables(pieces)
        table = order_run(rows_read["query_id"], rows_read["doc_id"], rows_read["score"],
                          by_pair=True)
        yield (run_id, part, first, last, table.num_rows, to_blob(table))


def insert_run_part(conn: sqlite3.Connection, row: tuple) -> None:
    """Store one row of ``run_part_rows``."""
    conn.execute(
        "INSERT INTO run_parts (run_id, part, first_query, last_query, rows, data)"
        " VALUES (?, ?, ?, ?, ?, ?)", row)


def read_run_parts(conn: sqlite3.Connection, run_id: int) -> list[pa.Table] | None:
    """The parts of run ``run_id`` in order, or None when it has none (stored before parts
    existed)."""
    blobs = conn.execute(
        "SELECT data FROM run_parts WHERE run_id = ? ORDER BY part", [run_id]
    ).fetchall()
    if not blobs:
        return None
    return [from_blob(blob) for (blob,) in blobs]


def read_query_part(conn: sqlite3.Connection, run_id: int, query_id: str) -> pa.Table | None:
    """The part holding ``query_id`` (None when no part does): one blob, not the whole run."""
    row = conn.execute(
        "SELECT data FROM run_parts WHERE run_id = ? AND first_query <= ? AND last_query >= ?",
        [run_id, query_id, query_id],
    ).fetchone()
    return None if row is None else from_blob(row[0])
