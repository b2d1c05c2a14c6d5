"""In-memory caches of the evaluation layer, keyed by workspace data, label version and controls.

One mechanism invalidates them: every key starts with ``_workspace(db)``, which holds the
counters that triggers bump on every write to a table a score depends on (chunks and their
``doc_id``, documents, runs, chunk sets, the scale, settings, split locks, queries and their
attributes); nothing clears a cache by hand after a write. A judgment is append-only with an
increasing id, so ``labels_version`` changes with every new judgment; ``queries_state``
changes with any change to the queries or their attributes (segments, splits), ``_db_state``
with any commit. Streamlit sessions share these caches, so they are guarded by locks.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from labeling.workspace import contents, data_versions, file_identity, private_files

if TYPE_CHECKING:
    import sqlite_utils

CACHE_ENTRIES = 64
HEAVY_ENTRIES = 6


# ---------------------------------------------------------------------------------------------
# In-memory cache: keyed by workspace file, label version and the controls.


_LRU = data_versions.LRU  # shared with the judging layer's caches


_CACHE = _LRU(CACHE_ENTRIES)  # small results: per-query values, scorecards
# Runs, label sets and rankings are large (a 10M-row ranking is ~300 MB): keep only a few, so
# a stream of new judgments (each a new label version) cannot pile up old copies.
_HEAVY = _LRU(HEAVY_ENTRIES)


_FORGETTERS: list[Callable[[], None]] = []  # caches kept by other modules


def clear_cache() -> None:
    """Forget every cached label set, ranking and result (tests; after bulk imports)."""
    for cache in (_CACHE, _HEAVY):
        with cache.lock:
            cache.items.clear()
    for forget in _FORGETTERS:
        forget()


# The keys live with the workspace, so that the judging layer's caches use the same ones.
_workspace_file = data_versions.workspace_file
_workspace = data_versions.workspace_key
labels_version = data_versions.labels_version


def queries_state(db: sqlite_utils.Database) -> tuple[int, object]:
    """Changes whenever the queries or their attributes change (a counter kept by triggers),
    not with judgments: keys the query table (segments, splits). The file's identity tells
    apart another workspace at the same path."""
    counter = contents.queries_counter(db)
    return -1 if counter is None else counter, file_identity.identity_of(db)


def _db_state(db: sqlite_utils.Database) -> tuple[int, int]:
    """Changes whenever anything is committed: by another connection (``data_version``) or by
    this one (``total_changes``). Keys caches of cheap-to-change tables (queries, splits)."""
    return contents.data_version(db), db.conn.total_changes


def _run_version(db: sqlite_utils.Database, run: str) -> tuple[int, str, str | None]:
    """(id, created_at, chunk set) of ``run``: a run's scores change when it is imported again
    or when its chunk set (the labels it is scored on) is named or changed."""
    row = contents.get_run(db, run)
    return int(row["id"]), str(row["created_at"]), row.get("chunk_set")


def _cache_dir(db: sqlite_utils.Database) -> Path | None:
    path = Path(_workspace_file(db))
    return path.with_name(f".{path.name}.cache") if path.is_file() else None


def _write_parquet(frame: pd.DataFrame, path: Path) -> None:
    """Write ``path`` atomically: another session never reads half a file."""
    partial = path.with_name(path.name + ".partial")
    try:
        private_files.private_folder(path.parent)
        frame.to_parquet(partial, index=False)
        private_files.keep_private(partial)
        partial.replace(path)
    except OSError:  # a read-only folder: work without the disk cache
        partial.unlink(missing_ok=True)
