"""The demo workspace: a fictional company's knowledge base with queries, three runs and labels.

The files live in ``data/`` at the top of the repository (see ``data/README.md``), installed with
the app (``labeling.product_files``); ``scripts/make_demo_data.py`` regenerates the chunks,
runs and labels from the hand-written sources.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from labeling import product_files
from labeling.files import importers as imports
from labeling.files.formats import read_qrels
from labeling.judging import pooling
from labeling.workspace import grading, provenance, store

if TYPE_CHECKING:
    import sqlite_utils

DEMO_DATA = product_files.demo_data()

RUNS: dict[str, dict[str, str]] = {
    "bm25": {
        "index_build": "bm25s over chunk text",
        "notes": "Lexical baseline: BM25 over the chunk text only.",
    },
    "bm25-title": {
        "index_build": "bm25s over title + text",
        "notes": "BM25 over the document and section title joined to the chunk text.",
    },
    "fusion": {
        "index_build": "reciprocal-rank fusion (k=60) of bm25 and bm25-title",
        "notes": "Fusion of the two lexical runs.",
    },
}
ANNOTATORS = ("alice", "bob")
QUERY_SET_VERSION = "demo-1"
CHUNK_SET = {"name": "sections", "splitter": "one chunk per markdown ## section"}

# The annotators judged the union of the three runs' top 10 (scripts/make_demo_data.py), and
# the demo's queue is that pool: its pairs nobody has judged yet wait for the first visitor.
POOL_DEPTH = 10


def _record_pool(db: sqlite_utils.Database, data_dir: Path) -> None:
    """Record that every pair the demo's annotators judged reached them through the pool of
    the runs' top ``POOL_DEPTH`` (how its labels were made), before the labels are imported:
    a pool counts for the pairs judged after it (``labeling.evaluation.scores.label_depth``)."""
    pairs = set()
    for annotator in ANNOTATORS:
        qrels = read_qrels(data_dir / "labels" / f"{annotator}.qrels")
        pairs |= set(zip(qrels["query_id"].astype(str), qrels["doc_id"].astype(str),
                         strict=True))
    with store.write_transaction(db, action="import") as conn:
        provenance.add_pair_sources(conn, sorted(pairs), "pool", pool_depth=POOL_DEPTH,
                                    detail=f"top {POOL_DEPTH} of {', '.join(RUNS)}")


def build_demo(
    db_path: str | Path, data_dir: str | Path = DEMO_DATA, *, with_queue: bool = True
) -> None:
    """Create the demo workspace at ``db_path`` from ``data_dir``; do nothing if it exists.

    ``with_queue``: put the pool of the runs in the labeling queue, so that the demo opens with
    pairs to judge (``False`` leaves the queue empty, as in a workspace nobody has pooled yet;
    the tests' template is built so, the demo's queue has a test of its own).

    The workspace is built in a temporary file next to ``db_path`` and moved into place when
    complete, so a reader never sees half a demo and a failed build leaves nothing behind.
    """
    db_path, data_dir = Path(db_path), Path(data_dir)
    if db_path.exists():
        return
    db_path.parent.mkdir(parents=True, exist_ok=True)
    building = db_path.with_name(f".{db_path.name}.building-{uuid.uuid4().hex[:8]}")
    try:
        db = grading.init_workspace(building, scale="graded")
        try:
            imports.import_chunks(db, data_dir / "chunks.jsonl")
            imports.import_queries(db, data_dir / "queries.jsonl")
            imports.import_documents(db, data_dir / "documents.jsonl")
            imports.import_chunk_set(db, data_dir / "chunk_offsets.jsonl", **CHUNK_SET)
            for name, meta in RUNS.items():
                imports.import_run(
                    db, data_dir / "runs" / f"{name}.trec", name,
                    {**meta, "query_set_version": QUERY_SET_VERSION,
                     "chunk_set": CHUNK_SET["name"]}, strict=True,
                )
            _record_pool(db, data_dir)
            for annotator in ANNOTATORS:
                imports.import_qrels(
                    db, data_dir / "labels" / f"{annotator}.qrels", annotator=annotator,
                    origin="person", strict=True,
                )
            if with_queue:  # the library's pooling, as the Label page's "Build the queue"
                pooling.build_pool(db, list(RUNS), POOL_DEPTH)
        finally:
            db.conn.close()  # the last connection checkpoints and removes the WAL file
        try:
            os.link(building, db_path)  # atomic and never replaces: a racing build's copy wins
        except FileExistsError:
            pass
        except OSError:  # no hard links on this file system
            if not db_path.exists():
                os.replace(building, db_path)
    finally:
        for leftover in (building, *(Path(f"{building}{s}") for s in ("-wal", "-shm"))):
            leftover.unlink(missing_ok=True)
