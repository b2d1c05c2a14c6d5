"""The consensus labels a score is computed on, with their snapshot hash.

A label snapshot hash is the first 12 hex digits of a SHA-256 over the sorted consensus
(query, chunk, grade) rows: equal hashes mean equal labels.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pandas as pd
import sqlite_utils

from labeling.errors import ScorecardError
from labeling.evaluation.result_cache import (
    _HEAVY,
    _cache_dir,
    _workspace,
    _write_parquet,
    labels_version,
)
from labeling.evaluation.score_controls import CONSENSUS_RULES
from labeling.judging import consensus

# ---------------------------------------------------------------------------------------------
# Loading


@dataclass(frozen=True)
class Labels:
    """Consensus qrels (query_id, doc_id = chunk id, relevance) and their snapshot hash."""

    qrels: pd.DataFrame
    snapshot: str
    version: tuple[int, str]
    rule: str


def snapshot_hash(qrels: pd.DataFrame) -> str:
    """12 hex digits identifying a set of consensus labels (order-independent)."""
    if qrels.empty:
        return hashlib.sha256(b"").hexdigest()[:12]
    frame = qrels[["query_id", "doc_id", "relevance"]].sort_values(["query_id", "doc_id"])
    hashed = pd.util.hash_pandas_object(frame, index=False).to_numpy()
    return hashlib.sha256(hashed.tobytes()).hexdigest()[:12]


def label_snapshot(db: sqlite_utils.Database, rule: str) -> Labels:
    """The consensus labels now under ``rule`` (a ``Controls.rule``; cached until a judgment is
    added)."""
    if rule not in CONSENSUS_RULES:
        raise ScorecardError(f"unknown consensus rule {rule!r}")
    version = labels_version(db)

    def compute() -> Labels:
        folder = _cache_dir(db)
        stem = hashlib.sha256(repr((version, rule)).encode()).hexdigest()[:16]
        if folder is not None:
            for path in folder.glob(f"labels-{rule}-{stem}-*.parquet"):
                return Labels(pd.read_parquet(path), path.stem.rsplit("-", 1)[1], version, rule)
        qrels = consensus.consensus_qrels(db, rule)
        digest = snapshot_hash(qrels)
        if folder is not None:
            _write_parquet(qrels, folder / f"labels-{rule}-{stem}-{digest}.parquet")
            # Only each rule's newest labels are useful.
            for old in folder.glob(f"labels-{rule}-*.parquet"):
                if not old.name.startswith(f"labels-{rule}-{stem}-"):
                    old.unlink(missing_ok=True)
        return Labels(qrels, digest, version, rule)

    return _HEAVY.get(("labels", _workspace(db), version, rule), compute)
