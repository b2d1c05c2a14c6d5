"""The consensus labels a score is computed on, with their snapshot hash.

A label snapshot hash is the first 12 hex digits of a SHA-256 over the sorted consensus
(query, chunk, grade) rows: equal hashes mean equal labels. The labels come from the
judgments a label source allows (``labeling.judging.label_sources``: people only by default),
chosen before the consensus is taken.
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
from labeling.evaluation.score_controls import CONSENSUS_RULES, Controls
from labeling.judging import label_sources

# ---------------------------------------------------------------------------------------------
# Loading


@dataclass(frozen=True)
class Labels:
    """Consensus qrels (query_id, doc_id = chunk id, relevance) and their snapshot hash."""

    qrels: pd.DataFrame
    snapshot: str
    version: tuple[int, str]
    rule: str
    source: str = label_sources.DEFAULT_SOURCE
    judge: str = ""

    @property
    def key(self) -> tuple:
        """What identifies these labels in a cache key: version, rule, source and judge."""
        return (self.version, self.rule, self.source, self.judge)


def snapshot_hash(qrels: pd.DataFrame) -> str:
    """12 hex digits identifying a set of consensus labels (order-independent)."""
    if qrels.empty:
        return hashlib.sha256(b"").hexdigest()[:12]
    frame = qrels[["query_id", "doc_id", "relevance"]].sort_values(["query_id", "doc_id"])
    hashed = pd.util.hash_pandas_object(frame, index=False).to_numpy()
    return hashlib.sha256(hashed.tobytes()).hexdigest()[:12]


def label_snapshot(
    db: sqlite_utils.Database, rule: str, source: str = label_sources.DEFAULT_SOURCE,
    judge: str = "",
) -> Labels:
    """The consensus labels now under ``rule`` (a ``Controls.rule``) over the judgments
    ``source`` and ``judge`` allow (cached until a judgment is added)."""
    if rule not in CONSENSUS_RULES:
        raise ScorecardError(f"unknown consensus rule {rule!r}")
    label_sources.check_source(source, judge)
    version = labels_version(db)
    # The people source keeps the cache names it had before label sources existed.
    name = rule if source == label_sources.DEFAULT_SOURCE else (
        f"{rule}@{hashlib.sha256(repr((source, judge)).encode()).hexdigest()[:8]}")

    def compute() -> Labels:
        folder = _cache_dir(db)
        stem = hashlib.sha256(repr((version, rule)).encode()).hexdigest()[:16]
        if folder is not None:
            for path in folder.glob(f"labels-{name}-{stem}-*.parquet"):
                return Labels(pd.read_parquet(path), path.stem.rsplit("-", 1)[1], version, rule,
                              source, judge)
        qrels = label_sources.source_consensus(db, rule, source, judge).rename(
            columns={"chunk_id": "doc_id", "grade": "relevance"})
        digest = snapshot_hash(qrels)
        if folder is not None:
            _write_parquet(qrels, folder / f"labels-{name}-{stem}-{digest}.parquet")
            # Only each rule's (and source's) newest labels are useful.
            for old in folder.glob(f"labels-{name}-*.parquet"):
                if not old.name.startswith(f"labels-{name}-{stem}-"):
                    old.unlink(missing_ok=True)
        return Labels(qrels, digest, version, rule, source, judge)

    return _HEAVY.get(("labels", _workspace(db), version, rule, source, judge), compute)


def labels_for(db: sqlite_utils.Database, controls: Controls) -> Labels:
    """The labels a score under ``controls`` uses: its rule, label source and judge."""
    return label_snapshot(db, controls.rule, controls.label_source, controls.judge)
