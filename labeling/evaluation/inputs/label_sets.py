"""The consensus labels a score is computed on, with their snapshot hash, kept up to date
judgment by judgment.

A label snapshot hash is the first 12 hex digits of a SHA-256 over the sorted consensus
(query, chunk, grade) rows: equal hashes mean equal labels. The labels come from the
judgments a label source allows (``labeling.judging.label_sources``: people only by default),
chosen before the consensus is taken.

Judgments are append-only with increasing ids, so the labels after judgment ``n`` differ from
those after judgment ``m < n`` only on the queries judged in between. ``label_snapshot`` keeps,
per workspace, rule, source and judge, the newest labels and a log of the queries each new
judgment changed: a new judgment recomputes the consensus of its query alone (from
``query_judgment_columns``) and splices it in; ``changes_since`` tells the scores which
queries to recompute. Anything the log cannot vouch for (another file at the same path, a
long gap) recomputes everything.
"""

from __future__ import annotations

import bisect
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa

from labeling.errors import ScorecardError
from labeling.evaluation.inputs.judgment_copy import judgment_columns, same_history
from labeling.evaluation.inputs.result_cache import (
    _FORGETTERS,
    _cache_dir,
    _workspace_file,
    _write_parquet,
    labels_version,
)
from labeling.evaluation.inputs.score_controls import CONSENSUS_RULES, Controls
from labeling.judging import label_sources
from labeling.workspace import judgments as stored_judgments

if TYPE_CHECKING:
    import sqlite_utils

COLUMNS = ["query_id", "doc_id", "relevance"]
T = TypeVar("T")
# Beyond this many queries changed at once, one full consensus is cheaper than splicing.
INCREMENTAL_QUERIES = 2_000
LOG_ENTRIES = 4_096  # changes remembered per workspace and choice of labels


def row_hashes(qrels: pd.DataFrame) -> np.ndarray:
    """The 64-bit hash of each (query, chunk, grade) row that ``snapshot_hash`` digests."""
    return pd.util.hash_pandas_object(qrels[COLUMNS], index=False).to_numpy()


def _digest(hashes: np.ndarray) -> str:
    if not len(hashes):
        return hashlib.sha256(b"").hexdigest()[:12]
    return hashlib.sha256(hashes.tobytes()).hexdigest()[:12]


def snapshot_hash(qrels: pd.DataFrame) -> str:
    """12 hex digits identifying a set of consensus labels (order-independent)."""
    if qrels.empty:
        return _digest(np.zeros(0, dtype=np.uint64))
    return _digest(row_hashes(qrels[COLUMNS].sort_values(["query_id", "doc_id"])))


@dataclass(frozen=True)
class Labels:
    """Consensus qrels (query_id, doc_id = chunk id, relevance), sorted by (query, chunk), with
    their snapshot hash, the label version they were read at, the rule, and the label source
    and machine judge whose judgments they are made of.

    ``queries`` (sorted) and ``starts`` locate each query's rows: query ``queries[i]`` holds rows
    ``starts[i]:starts[i + 1]``. ``hashes`` are the rows' ``row_hashes``; ``table`` the same
    rows in Arrow (the frame's columns wrap it).
    """

    qrels: pd.DataFrame
    version: tuple[int, str]
    rule: str
    hashes: np.ndarray = field(repr=False)
    queries: list[str] = field(repr=False)
    starts: np.ndarray = field(repr=False)
    table: pa.Table = field(repr=False)
    source: str = label_sources.DEFAULT_SOURCE
    judge: str = ""

    @property
    def snapshot(self) -> str:
        return _digest(self.hashes)

    @property
    def key(self) -> tuple:
        """What identifies these labels in a cache key: version, rule, source and judge."""
        return (self.version, self.rule, self.source, self.judge)

    def rows_of(self, query_ids: list[str]) -> pd.DataFrame:
        """The labels of ``query_ids`` (those without labels contribute no row)."""
        picked = [self._range(q) for q in query_ids]
        rows = [np.arange(a, b) for a, b in picked if b > a]
        taken = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        return _string_frame(self.table.take(pa.array(taken, pa.int64())))

    def _range(self, query_id: str) -> tuple[int, int]:
        """Rows of ``query_id``; an empty range where its rows would go when it has none."""
        at = bisect.bisect_left(self.queries, query_id)
        if at < len(self.queries) and self.queries[at] == query_id:
            return int(self.starts[at]), int(self.starts[at + 1])
        return int(self.starts[at]), int(self.starts[at])


_SCHEMA = pa.schema([("query_id", pa.large_string()), ("doc_id", pa.large_string()),
                     ("relevance", pa.int64())])


def _string_frame(table: pa.Table) -> pd.DataFrame:
    """A qrels frame over Arrow columns (no copy of the ids)."""
    return pd.DataFrame({
        "query_id": pd.Series(table["query_id"], dtype="string"),
        "doc_id": pd.Series(table["doc_id"], dtype="string"),
        "relevance": table["relevance"].to_numpy().astype(np.int64),
    })


HASH_COLUMN = "row_hash"  # the rows' hashes, kept in the parquet cache of the labels


# Which labels: (consensus rule, label source, machine judge).
Choice = tuple[str, str, str]


def _labels(qrels: pd.DataFrame, version: tuple[int, str], choice: Choice) -> Labels:
    """``Labels`` of qrels already sorted by (query, chunk) (with their hashes in
    ``HASH_COLUMN`` when they come from the cache)."""
    hashes = (qrels[HASH_COLUMN].to_numpy(np.uint64) if HASH_COLUMN in qrels.columns
              else None)
    table = pa.Table.from_pandas(
        qrels[COLUMNS].astype({"query_id": "string", "doc_id": "string", "relevance": "int64"}),
        preserve_index=False,
    ).cast(_SCHEMA).combine_chunks()
    frame = _string_frame(table)
    codes, uniques = pd.factorize(frame["query_id"], sort=False)
    counts = np.bincount(codes, minlength=len(uniques)) if len(codes) else np.zeros(0, np.int64)
    starts = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    rule, source, judge = choice
    return Labels(frame, version, rule, row_hashes(frame) if hashes is None else hashes,
                  [str(q) for q in uniques], starts, table, source, judge)


def _spliced(
    old: Labels, fresh: pd.DataFrame, changed: list[str], version: tuple[int, str]
) -> Labels:
    """``old`` with the rows of the ``changed`` queries (sorted) replaced by their rows in
    ``fresh`` (all their labels now, sorted; a query with none has no row)."""
    new_rows = pa.Table.from_pandas(
        fresh[COLUMNS].astype({"query_id": "string", "doc_id": "string", "relevance": "int64"}),
        preserve_index=False,
    ).cast(_SCHEMA)
    new_hashes = row_hashes(fresh)
    fresh_queries = fresh["query_id"].astype(str).to_numpy()
    pieces, hashes = [], []
    queries, counts = list(old.queries), np.diff(old.starts)
    cursor = 0
    for query_id in reversed(changed):  # from the end: list positions stay valid
        at = bisect.bisect_left(queries, query_id)
        mine = np.flatnonzero(fresh_queries == query_id)
        present = at < len(queries) and queries[at] == query_id
        if present and len(mine):
            counts[at] = len(mine)
        elif present:
            del queries[at]
            counts = np.delete(counts, at)
        elif len(mine):
            queries.insert(at, query_id)
            counts = np.insert(counts, at, len(mine))
    for query_id in changed:
        start, stop = old._range(query_id)
        pieces.append(old.table.slice(cursor, start - cursor))
        hashes.append(old.hashes[cursor:start])
        mine = np.flatnonzero(fresh_queries == query_id)
        pieces.append(new_rows.take(pa.array(mine, pa.int64())))
        hashes.append(new_hashes[mine])
        cursor = stop
    pieces.append(old.table.slice(cursor))
    hashes.append(old.hashes[cursor:])
    table = pa.concat_tables(pieces).combine_chunks()
    starts = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    return Labels(_string_frame(table), version, old.rule, np.concatenate(hashes), queries,
                  starts, table, old.source, old.judge)


# ---------------------------------------------------------------------------------------------
# The newest labels per (workspace, choice) and the log of what each judgment changed


@dataclass
class _History:
    labels: Labels
    log: OrderedDict = field(default_factory=OrderedDict)  # version -> queries changed to it
    lock: threading.Lock = field(default_factory=threading.Lock)


_HISTORIES: dict[tuple[str, Choice], _History] = {}
_HISTORIES_LOCK = threading.Lock()


def forget_labels() -> None:
    """Drop the kept labels and logs (``result_cache.clear_cache`` calls this)."""
    with _HISTORIES_LOCK:
        _HISTORIES.clear()


_FORGETTERS.append(forget_labels)


def _judged_queries(db: sqlite_utils.Database, after_id: int, limit: int) -> list[str] | None:
    """Queries judged after judgment ``after_id`` (None when more than ``limit``, or when
    more than ``10 * limit`` judgments came since)."""
    rows = stored_judgments.queries_judged_after(db, after_id, 10 * limit + 1)
    queries = set(rows)
    return None if len(rows) > 10 * limit or len(queries) > limit else sorted(queries)


def _consensus(db: sqlite_utils.Database, columns: pa.Table, choice: Choice) -> pd.DataFrame:
    """The consensus qrels of the judgments in ``columns`` that ``choice`` allows."""
    rule, source, judge = choice
    pairs = label_sources.source_consensus(db, rule, source, judge, columns)
    return pairs.rename(columns={"chunk_id": "doc_id", "grade": "relevance"})


def _cache_name(choice: Choice) -> str:
    """The name of ``choice``'s labels in the parquet cache: the rule alone for people's (the
    names the cache had before label sources existed)."""
    rule, source, judge = choice
    if source == label_sources.DEFAULT_SOURCE:
        return rule
    return f"{rule}@{hashlib.sha256(repr((source, judge)).encode()).hexdigest()[:8]}"


def _full(db: sqlite_utils.Database, version: tuple[int, str], choice: Choice) -> Labels:
    """Every judgment's consensus (or the parquet cache of it beside the workspace)."""
    folder = _cache_dir(db)
    name = _cache_name(choice)
    stem = hashlib.sha256(repr((version, choice[0])).encode()).hexdigest()[:16]
    if folder is not None:
        for path in folder.glob(f"labels-{name}-{stem}-*.parquet"):
            return _labels(pd.read_parquet(path), version, choice)
    labels = _labels(_consensus(db, judgment_columns(db, version), choice), version, choice)
    if folder is not None:
        _write_parquet(labels.qrels.assign(**{HASH_COLUMN: labels.hashes}),
                       folder / f"labels-{name}-{stem}-{labels.snapshot}.parquet")
        # Only each choice's newest labels are useful.
        for old in folder.glob(f"labels-{name}-*.parquet"):
            if not old.name.startswith(f"labels-{name}-{stem}-"):
                old.unlink(missing_ok=True)
    return labels


def label_snapshot(
    db: sqlite_utils.Database, rule: str, source: str = label_sources.DEFAULT_SOURCE,
    judge: str = "",
) -> Labels:
    """The consensus labels now under ``rule`` (a ``Controls.rule``) over the judgments
    ``source`` and ``judge`` allow: kept between calls, and brought up to date by recomputing
    only the queries judged since."""
    if rule not in CONSENSUS_RULES:
        raise ScorecardError(f"unknown consensus rule {rule!r}")
    label_sources.check_source(source, judge)
    choice = (rule, source, judge)
    version = labels_version(db)
    key = (_workspace_file(db), choice)  # labels read judgments only
    with _HISTORIES_LOCK:
        history = _HISTORIES.get(key)
    if history is not None:
        with history.lock:
            if history.labels.version == version:
                return history.labels
            old = history.labels
            if version[0] > old.version[0] and same_history(db, old.version):
                changed = _judged_queries(db, old.version[0], INCREMENTAL_QUERIES)
                if changed is not None:
                    columns = stored_judgments.query_judgment_columns(db, list(changed))
                    fresh = _consensus(db, columns, choice)
                    history.labels = _spliced(old, fresh, changed, version)
                    history.log[version] = frozenset(changed)
                    while len(history.log) > LOG_ENTRIES:
                        history.log.popitem(last=False)
                    return history.labels
    labels = _full(db, version, choice)
    with _HISTORIES_LOCK:
        _HISTORIES[key] = _History(labels, OrderedDict([(version, None)]))
    return labels


def labels_for(db: sqlite_utils.Database, controls: Controls) -> Labels:
    """The labels a score under ``controls`` uses: its rule, label source and judge."""
    return label_snapshot(db, controls.rule, controls.label_source, controls.judge)


def changes_since(
    db: sqlite_utils.Database, labels: Labels, old: tuple[int, str]
) -> frozenset[str] | None:
    """The queries whose labels may differ between label version ``old`` and ``labels`` (both
    read by ``label_snapshot`` with the same rule, source and judge), or None when the log
    cannot tell."""
    new = labels.version
    if old == new:
        return frozenset()
    with _HISTORIES_LOCK:
        history = _HISTORIES.get((_workspace_file(db), (labels.rule, labels.source, labels.judge)))
    if history is None:
        return None
    with history.lock:
        versions = list(history.log)
        if old not in history.log or new not in history.log:
            return None
        first, last = versions.index(old), versions.index(new)
        if last < first:
            return None
        changed: set[str] = set()
        for version in versions[first + 1: last + 1]:
            queries = history.log[version]
            if queries is None:
                return None
            changed |= queries
    return frozenset(changed)


class Kept(Generic[T]):
    """The newest result per key and the label version it was computed at, for results kept up
    to date judgment by judgment (per-query values, label depths); least recently used keys
    beyond ``size`` are dropped. A result computed at an older version never replaces a newer
    one (two sessions may finish in either order)."""

    def __init__(self, size: int):
        self.size = size
        self.items: OrderedDict[tuple, tuple[tuple[int, str], T]] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple) -> tuple[tuple[int, str], T] | None:
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
            return self.items.get(key)

    def put(self, key: tuple, version: tuple[int, str], values: T) -> None:
        with self.lock:
            known = self.items.get(key)
            if known is None or known[0][0] <= version[0]:
                self.items[key] = (version, values)
                self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()

    def up_to_date(
        self, db: sqlite_utils.Database, key: tuple, labels: Labels, full: Callable[[], T],
        patch: Callable[[T, frozenset[str]], T], limit: int,
    ) -> T:
        """The result under ``key`` for ``labels``: kept, ``patch``-ed (the result kept for an
        older version and the queries whose labels changed since, at most ``limit`` of them)
        or computed by ``full``, and kept."""
        known = self.get(key)
        if known is not None and known[0] == labels.version:
            return known[1]
        changed = None if known is None else changes_since(db, labels, known[0])
        if changed is not None and len(changed) <= limit:
            result = patch(known[1], changed)
        else:
            result = full()
        self.put(key, labels.version, result)
        return result
