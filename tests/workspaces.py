"""Workspace contents stated as rows, added through the library (the importers, ``add_judgment``,
``add_user``), never by INSERTs that follow the schema's column lists.

``add_rows`` is what the workspace factory (``make_workspace`` / ``build_workspace`` in
tests/conftest.py) does after copying its template; a helper that must change a workspace it was
handed (tests/hostile.py) calls it directly. The shapes::

    chunks=[{"id": "c1", "text": "cats", "title": "Cats", "doc_id": "d1", "lang": "en"}]
    queries=[{"id": "q1", "text": "cat?", "split": "dev", "source": "real", "topic": "pets"}]
    runs={"bm25": [("q1", "c1", 2.5), ("q1", "c2", 1.0, 2)]}   # (query, chunk, score[, rank])
    runs={"bm25": {"results": [...], "index_build": "bm25s", "notes": "..."}}  # with metadata
    judgments=[("q1", "c1", 3, "ann"), ("q1", "c2", None, "bob", {"flags": {"cant_judge": True}})]
    accounts={"ada": "admin", "bob": ("annotator", "bob-secret-2")}  # password: <name>-password
"""

from __future__ import annotations

import itertools
import json
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import sqlite_utils

from labeling.files import importers
from labeling.workspace import accounts as account_admin
from labeling.workspace import judgments as judgment_log
from labeling.workspace import roles

Row = Mapping[str, Any]
# (query id, chunk id, score) or (query id, chunk id, score, rank)
Result = tuple[str, str, float] | tuple[str, str, float, int]
Run = Sequence[Result] | Mapping[str, Any]
# (query id, chunk id, grade, annotator) or with a fifth item: add_judgment's keyword arguments
Judgment = tuple[str, str, int | None, str] | tuple[str, str, int | None, str, Mapping[str, Any]]
Account = str | tuple[str, str]  # a role, or (role, password)


def _write_jsonl(path: Path, records: Iterable[Mapping[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(dict(r)) + "\n" for r in records), encoding="utf-8")
    return path


def _same_columns(rows: Sequence[Row]) -> Iterator[list[dict[str, Any]]]:
    """The rows without their ``None`` values, in runs of rows with the same keys: one file
    each, since a records file gives every row the same columns (and the importers refuse a
    row whose ``doc_id`` is missing in a file that has the column)."""
    present = [{k: v for k, v in row.items() if v is not None} for row in rows]
    for _, group in itertools.groupby(present, key=lambda row: sorted(row)):
        yield list(group)


def add_rows(
    db: sqlite_utils.Database,
    *,
    chunks: Sequence[Row] = (),
    queries: Sequence[Row] = (),
    runs: Mapping[str, Run] | None = None,
    judgments: Sequence[Judgment] = (),
    accounts: Mapping[str, Account] | None = None,
) -> None:
    """Add the rows to ``db`` through the library, as the file owner (no role check).

    Chunks and queries go through the importers (extra keys become a chunk's metadata and a
    query's segment attributes; a ``None`` value is a key left out). A run is a list of results
    or ``{"results": [...], **meta}`` (``meta`` as ``import_run`` takes it); it is imported
    non-strict, so a result naming an unknown query or chunk makes a placeholder for it, as a
    real import does. Judgments go through ``add_judgment`` in the order given (a later one
    supersedes an earlier one by the same annotator). Accounts come last through ``add_user``,
    so that they never stand in the way of the rest; their hashes cost what
    ``accounts._HASHER`` costs (a test wanting cheap ones uses the ``fast_hashes`` fixture).
    """
    with tempfile.TemporaryDirectory(prefix="rows-") as temporary, roles.acting_as(None):
        folder = Path(temporary)
        for group in _same_columns(chunks):
            importers.import_chunks(db, _write_jsonl(folder / "chunks.jsonl", group))
        for group in _same_columns(queries):
            importers.import_queries(db, _write_jsonl(folder / "queries.jsonl", group))
        for name, spec in (runs or {}).items():
            meta = dict(spec) if isinstance(spec, Mapping) else {"results": spec}
            results = [
                dict(zip(("query_id", "doc_id", "score", "rank"), result, strict=False))
                for result in meta.pop("results")
            ]
            importers.import_run(db, _write_jsonl(folder / "run.jsonl", results), name, meta)
        for query_id, chunk_id, grade, annotator, *options in judgments:
            keywords = options[0] if options else {}
            judgment_log.add_judgment(db, query_id, chunk_id, grade, annotator, **keywords)
        for name, account in (accounts or {}).items():
            role, password = (account, f"{name}-password") if isinstance(account, str) else account
            account_admin.add_user(db, name, role, password)


def rechunk(db: sqlite_utils.Database, name: str = "small", size: int = 250) -> None:
    """A second chunk set ``name``: the workspace's documents split at ``size`` characters (a
    tenth overlapping), with the labels of chunk set ``sections`` (the demo's) carried over,
    through the library as the Chunking page does it."""
    from labeling.rechunking import splitter, transfer

    splitter.rechunk_documents(db, name, size, size // 10)
    transfer.transfer_labels(db, "sections", name)
