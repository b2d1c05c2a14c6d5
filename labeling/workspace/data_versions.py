"""Versions of a workspace's data, for caches that must never serve a result of older data.

- ``workspace_key``: the workspace file, the file's identity (another workspace restored at the
  same path is another key) and the change counters that triggers bump on every write to a
  table scores depend on (``change_counters`` ``data`` and ``queries``, migrations 15-16), so
  a write from anywhere (a page, the command line, another process) changes it.
- ``labels_version``: judgments are append-only with increasing ids, so (newest id, its time)
  changes with every new judgment (the time tells apart an id reused after a rolled-back save).

A result keyed by both is the same as long as neither changed. ``VersionedCache`` keeps a few
such results in memory, shared by the threads (browser sessions) of one process.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

import sqlite_utils

from labeling.workspace import contents, file_identity, judgments


def workspace_file(db: sqlite_utils.Database) -> str:
    """The workspace's file, or the connection for an in-memory one."""
    path = file_identity.database_file(db)
    return str(path) if path is not None else str(id(db))


def workspace_key(db: sqlite_utils.Database) -> tuple:
    """(file, file identity, data and queries counters): see the module docstring."""
    return workspace_file(db), file_identity.identity_of(db), contents.change_counters(db)


def labels_version(db: sqlite_utils.Database) -> tuple[int, str]:
    """(max id, time of the last judgment); (0, '') without judgments."""
    return judgments.last_judgment(db) or (0, "")


class LRU:
    """Up to ``size`` values by key, least recently used first out; ``get`` computes a missing
    one (outside the lock: two threads may both compute it, the last one is kept)."""

    def __init__(self, size: int):
        self.size = size
        self.items: OrderedDict[Hashable, object] = OrderedDict()
        self.lock = threading.Lock()  # browser sessions run in threads of one process

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

    def clear(self) -> None:
        with self.lock:
            self.items.clear()


class VersionedCache(LRU):
    """Results keyed by (workspace key, labels version, a name and arguments). Values are
    shared: callers must not change them."""

    def __init__(self, size: int = 16):
        super().__init__(size)

    def kept(self, db: sqlite_utils.Database, name: Hashable,
             compute: Callable[[], object]) -> object:
        """The value of ``compute()`` for ``db``'s current data, computed once per version."""
        return self.get((workspace_key(db), labels_version(db), name), compute)
