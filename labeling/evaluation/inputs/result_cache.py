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

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path

import pandas as pd
import sqlite_utils

from labeling.workspace import contents, file_identity, private_files
from labeling.workspace import judgments as stored_judgments

CACHE_ENTRIES = 64
HEAVY_ENTRIES = 6


# ---------------------------------------------------------------------------------------------
# In-memory cache: keyed by workspace file, label version and the controls.


class _LRU:
    def __init__(self, size: int):
        self.size = size
        self.items: OrderedDict[Hashable, object] = OrderedDict()
        self.lock = threading.Lock()  # Streamlit sessions share the module

    def get(self, key: Hashable, compute: Callable[[], object]) -> object:
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                return self.items[key]
        value = compute()
        with self.lock:
            self.items[key] = value
            while len(self.items) > self.size:
                self.items.popitem(last=False)
        return value


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


def _workspace_file(db: sqlite_utils.Database) -> str:
    """The workspace's file, or the connection for an in-memory one."""
    path = file_identity.database_file(db)
    return str(path) if path is not None else str(id(db))


def _workspace(db: sqlite_utils.Database) -> tuple:
    """The cache key of a workspace's data: its file, the file's identity and the counters of
    the tables scores depend on (``change_counters``: ``data`` and ``queries``, kept by
    triggers, see migration 15). Every cached result's key starts with it, so any write to
    those tables, from this process or another, makes the results computed before it unused;
    judgments are keyed by ``labels_version`` instead (append-only: new labels patch results)."""
    counters = contents.change_counters(db)
    return _workspace_file(db), file_identity.identity_of(db), counters


def labels_version(db: sqlite_utils.Database) -> tuple[int, str]:
    """(max id, time of the last judgment): ``judgments`` is append-only with increasing ids,
    so this changes with every new judgment (the time tells apart another file)."""
    return stored_judgments.last_judgment(db) or (0, "")


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
