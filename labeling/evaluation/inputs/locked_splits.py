"""Locking the test split: its snapshot hash (labels and the texts they describe) and the lock.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from labeling.errors import ScorecardError
from labeling.evaluation.inputs.label_sets import label_snapshot, snapshot_hash
from labeling.workspace import frozen_split, query_store, store

if TYPE_CHECKING:
    import sqlite_utils

# ---------------------------------------------------------------------------------------------
# Frozen test split


def split_hash(db: sqlite_utils.Database, split: str = "test", *, rule: str) -> str:
    """Snapshot hash of one split: the consensus labels (under ``rule``, a ``Controls.rule``)
    of its queries and what they describe (query texts, sources and segment attributes, judged
    chunks' titles and texts; see ``labeling.workspace.frozen_split``). 12 hex digits; equal
    hashes mean equal labels of equal texts under the same rule."""
    labels = label_snapshot(db, rule)
    ids = query_store.split_query_ids(db, split)
    label_digest = snapshot_hash(labels.qrels.loc[labels.qrels["query_id"].isin(ids)])
    texts_digest = frozen_split.described_texts_digest(db.conn, split)
    return hashlib.sha256(f"{label_digest} {texts_digest}".encode()).hexdigest()[:12]


def split_lock(db: sqlite_utils.Database, split: str = "test") -> dict | None:
    """The lock row of ``split`` (split, locked_by, locked_at, snapshot_hash, rule: the
    consensus rule the hash was computed under), or None."""
    return query_store.split_lock_row(db, split)


def lock_split(
    db: sqlite_utils.Database, locked_by: str, split: str = "test", *, rule: str
) -> str:
    """Freeze ``split``: its labels, its membership and the texts its labels describe cannot
    change until unlocked (``labeling.workspace.frozen_split``).

    Records and returns the split's snapshot hash (``split_hash`` under ``rule``, recorded with
    it). Locking twice is an error.
    """
    if split not in ("dev", "test"):
        raise ScorecardError(f"unknown split {split!r}")
    digest = split_hash(db, split, rule=rule)
    with store.write_transaction(db, action="lock") as conn:
        if not query_store.add_split_lock(conn, split, locked_by or "unknown",
                                          store.utc_now(), digest, rule):
            raise ScorecardError(f"the {split} split is already locked")
    return digest


def unlock_split(db: sqlite_utils.Database, split: str = "test") -> None:
    """Lift the lock of ``split`` (no-op when it is not locked)."""
    with store.write_transaction(db, action="unlock") as conn:
        query_store.remove_split_lock(conn, split)
