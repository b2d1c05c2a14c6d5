"""The dashboard's data: scorecards by segment, run comparison, coverage, drill-down, reviews.

Conventions
- Scores come from the metric engine (``labeling.metrics.engine.evaluate_ranked``) on the consensus
  labels (``labeling.judging.consensus``); a run is ranked once per (run, label snapshot, unit) with
  ``labeling.metrics.ranking.rank_rows`` and kept in an in-memory cache, so changing a measure, a
  segment, the split or the unjudged policy only re-runs the cheap part.
- Unit ``chunk`` scores the run as stored. Unit ``document`` turns chunks into documents: a
  document takes the rank of its best-ranked chunk and the highest consensus grade of its
  chunks; a chunk without ``doc_id`` is its own document.
- Policy ``nonrelevant`` counts unjudged retrieved items as not relevant (trec_eval's default);
  ``judged_only`` drops them before scoring (``trec_eval -J``). Recall is always measured
  against the labeled set, not the whole corpus.
- The evaluated queries are those with at least one consensus label, filtered by split.
  Segment values come from ``queries.source``, ``queries.split`` or a ``query_attributes``
  name; a query lacking the attribute is in segment ``(missing)``.
- A label snapshot hash is the first 12 hex digits of a SHA-256 over the sorted consensus
  (query, chunk, grade) rows: equal hashes mean equal labels. A split's hash (``split_hash``,
  recorded when the split is locked) also covers the texts those labels describe.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import sqlite_utils

from labeling.errors import InputError, ScorecardError
from labeling.judging import consensus, queue
from labeling.judging.visibility import Sight
from labeling.metrics import statistics
from labeling.metrics.engine import evaluate_ranked
from labeling.metrics.measures import parse_measure
from labeling.metrics.ranking import RankedRows, rank_rows
from labeling.workspace import contents, frozen_split, grading, store

UNITS = ("chunk", "document")
POLICIES: dict[str, str] = {
    "nonrelevant": "Unjudged retrieved chunks count as not relevant (as trec_eval does)",
    "judged_only": "Judged results only: unjudged chunks are removed before scoring "
    "(trec_eval -J)",
}
SPLITS = ("all", "dev", "test")
CONSENSUS_RULES = consensus.RULES
NO_SEGMENT = "(none)"
OVERALL = "(all queries)"
MISSING = "(missing)"
HIDDEN = "hidden"  # grade_name of a grade the viewer may not see yet (labeling.judging.visibility)
FAILURE_TAGS: dict[str, str] = {
    "relevant chunk never retrieved": "A relevant chunk is not in the run at all.",
    "chunk split badly": "The answer is cut across chunks or buried in a long one.",
    "acronym": "The query or the chunk uses an acronym the other spells out.",
    "table": "The answer sits in a table the retriever reads poorly.",
    "stale document": "An outdated document outranks the current one.",
    "label wrong": "The label, not the run, is wrong.",
}
DEFAULT_MEASURES = ("R@10", "RR")
SNIPPET_CHARS = 240
CACHE_ENTRIES = 64
HEAVY_ENTRIES = 6

__all__ = [
    "CONSENSUS_RULES", "DEFAULT_MEASURES", "FAILURE_TAGS", "HIDDEN", "MISSING", "NO_SEGMENT",
    "OVERALL", "POLICIES", "SPLITS", "UNITS", "Labels", "add_failure_tag", "clear_cache",
    "compare_runs", "coverage", "curves", "drill_down", "drill_down_documents", "failure_reviews",
    "failure_tag_names", "history", "judge", "label_snapshot", "load_run", "lock_split",
    "paired_scores", "per_query", "query_table", "save_snapshot", "scorecard",
    "scorecard_matrix", "segment_options", "segment_scorecard", "segment_values",
    "send_unjudged_to_queue", "sensitivity", "snapshot_hash", "split_hash", "split_lock",
    "tag_counts", "tag_failure", "unjudged_pairs", "unlock_split", "with_error_bars",
    "worst_queries", "query_set_versions", "curve_ks", "chunk_documents", "labels_version",
]


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


def clear_cache() -> None:
    """Forget every cached label set, ranking and result (tests; after bulk imports)."""
    for cache in (_CACHE, _HEAVY):
        with cache.lock:
            cache.items.clear()


def _workspace(db: sqlite_utils.Database) -> str:
    row = db.conn.execute("PRAGMA database_list").fetchone()
    return str(row[2] or id(db))


def labels_version(db: sqlite_utils.Database) -> tuple[int, str]:
    """(max id, time of the last judgment): ``judgments`` is append-only with increasing ids,
    so this changes with every new judgment (the time tells apart another file)."""
    row = db.conn.execute(
        "SELECT id, created_at FROM judgments ORDER BY id DESC LIMIT 1"
    ).fetchone()
    return (int(row[0]), str(row[1])) if row else (0, "")


def _db_state(db: sqlite_utils.Database) -> tuple[int, int]:
    """Changes whenever anything is committed: by another connection (``data_version``) or by
    this one (``total_changes``). Keys caches of cheap-to-change tables (queries, splits)."""
    version = db.conn.execute("PRAGMA data_version").fetchone()[0]
    return int(version), db.conn.total_changes


def _run_version(db: sqlite_utils.Database, run: str) -> tuple[int, str]:
    row = contents.get_run(db, run)
    return int(row["id"]), str(row["created_at"])


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


def label_snapshot(db: sqlite_utils.Database, rule: str = "default") -> Labels:
    """The consensus labels now (cached until a judgment is added)."""
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


def _cache_dir(db: sqlite_utils.Database) -> Path | None:
    path = Path(_workspace(db))
    return path.with_name(f".{path.name}.cache") if path.is_file() else None


def _write_parquet(frame: pd.DataFrame, path: Path) -> None:
    """Write ``path`` atomically: another session never reads half a file."""
    partial = path.with_name(path.name + ".partial")
    try:
        path.parent.mkdir(exist_ok=True)
        frame.to_parquet(partial, index=False)
        partial.replace(path)
    except OSError:  # a read-only folder: work without the disk cache
        partial.unlink(missing_ok=True)


def load_run(db: sqlite_utils.Database, run: str, *, use_disk_cache: bool = True) -> pd.DataFrame:
    """A run as query_id, doc_id (chunk id), score, rank; cached in memory and on disk.

    The disk cache is a parquet file per run in ``.<workspace>.cache/`` next to the workspace,
    named by run id and creation time (a replaced run gets a new id, so a stale file is never
    read). Delete the folder to drop it.
    """
    run_id, created = _run_version(db, run)

    def compute() -> pd.DataFrame:
        folder = _cache_dir(db) if use_disk_cache else None
        tag = hashlib.sha256(created.encode()).hexdigest()[:8]
        path = folder / f"run-{run_id}-{tag}.parquet" if folder else None
        if path is not None and path.exists():
            return pd.read_parquet(path)
        frame = consensus.run_frame(db, run)
        if path is not None:
            _write_parquet(frame, path)
        return frame

    return _HEAVY.get(("run", _workspace(db), run_id, created), compute)


def chunk_documents(db: sqlite_utils.Database) -> pd.Series:
    """chunk id -> document id (the chunk id itself when the chunk has no ``doc_id``)."""
    frame = pd.read_sql_query("SELECT id, coalesce(doc_id, id) AS doc FROM chunks", db.conn)
    return pd.Series(frame["doc"].to_numpy(), index=frame["id"].astype("string"))


def _document_of(chunk_ids: pd.Series, chunk_doc: pd.Series) -> pd.Series:
    """Each chunk's document id (``chunk_documents``; a chunk it does not know is its own)."""
    return chunk_ids.map(chunk_doc).fillna(chunk_ids).astype("string")


def _documents(
    qrels: pd.DataFrame, run: pd.DataFrame, chunk_rows: RankedRows, chunk_doc: pd.Series
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Document-level (qrels, run): best chunk rank and highest chunk grade per document."""
    picked = run.iloc[chunk_rows.doc_row]
    docs = _document_of(picked["doc_id"], chunk_doc)
    doc_run = (
        pd.DataFrame({"query_id": picked["query_id"].to_numpy(), "doc_id": docs.to_numpy(),
                      "rank": chunk_rows.rank})
        .groupby(["query_id", "doc_id"], as_index=False, sort=False)["rank"].min()
    )
    doc_run["score"] = -doc_run["rank"].astype("float64")  # the best chunk's rank orders it
    doc_qrels = (
        qrels.assign(doc_id=_document_of(qrels["doc_id"], chunk_doc))
        .groupby(["query_id", "doc_id"], as_index=False, sort=False)["relevance"].max()
    )
    return doc_qrels, doc_run


def _ranked(db: sqlite_utils.Database, run: str, unit: str, labels: Labels) -> RankedRows:
    if unit not in UNITS:
        raise ScorecardError(f"unknown unit {unit!r} (use chunk or document)")
    key = ("ranked", _workspace(db), _run_version(db, run), labels.version, labels.rule, unit)

    def compute() -> RankedRows:
        frame = load_run(db, run)
        chunk_rows = _ranked(db, run, "chunk", labels) if unit == "document" else None
        if chunk_rows is None:
            return rank_rows(labels.qrels, frame)
        doc_qrels, doc_run = _documents(labels.qrels, frame, chunk_rows, chunk_documents(db))
        return rank_rows(doc_qrels, doc_run)

    return _HEAVY.get(key, compute)


def query_table(db: sqlite_utils.Database) -> pd.DataFrame:
    """Queries indexed by id: text, source, split and one column per segment attribute.

    Cached until the next write to the workspace; treat the frame as read-only.
    """
    return _CACHE.get(("queries", _workspace(db), _db_state(db)), lambda: _query_table(db))


def _query_table(db: sqlite_utils.Database) -> pd.DataFrame:
    frame = pd.read_sql_query("SELECT id, text, source, split FROM queries", db.conn)
    frame = frame.set_index(frame["id"].astype("string")).drop(columns="id")
    attrs = pd.read_sql_query("SELECT query_id, name, value FROM query_attributes", db.conn)
    if not attrs.empty:
        wide = attrs.pivot(index="query_id", columns="name", values="value")
        wide.index = wide.index.astype("string")
        wide = wide.drop(columns=[c for c in wide.columns if c in frame.columns])
        frame = frame.join(wide)
    frame.index.name = "query_id"
    return frame


def segment_options(db: sqlite_utils.Database) -> list[str]:
    """Segment choices: none, ``source``, ``split``, then the attributes in name order."""
    names = [r[0] for r in db.conn.execute(
        "SELECT DISTINCT name FROM query_attributes ORDER BY name"
    )]
    return [NO_SEGMENT, "source", "split", *[n for n in names if n not in ("source", "split")]]


def _segments(queries: pd.DataFrame, segment: str, index: pd.Index) -> pd.Series:
    if segment == NO_SEGMENT:
        return pd.Series(OVERALL, index=index, dtype="string")
    if segment not in queries.columns:
        raise ScorecardError(f"no segment attribute {segment!r}")
    values = queries[segment].reindex(index).astype("string")
    return values.fillna(MISSING).rename(segment)


# ---------------------------------------------------------------------------------------------
# Scores


def _check_measures(measures: Sequence[str]) -> tuple[str, ...]:
    if not measures:
        raise ScorecardError("choose at least one measure")
    for name in measures:
        parse_measure(name)  # raises MeasureError (a ScorecardError) naming the problem
    return tuple(measures)


def _check_policy(policy: str) -> None:
    if policy not in POLICIES:
        raise ScorecardError(f"unknown policy {policy!r} (use {' or '.join(POLICIES)})")


def per_query(
    db: sqlite_utils.Database,
    run: str,
    measures: Sequence[str],
    *,
    unit: str = "chunk",
    policy: str = "nonrelevant",
    split: str = "all",
    rule: str = "default",
) -> pd.DataFrame:
    """Per-query values (index query_id, one column per measure) of the evaluated queries."""
    measures = _check_measures(measures)
    _check_policy(policy)
    if split not in SPLITS:
        raise ScorecardError(f"unknown split {split!r} (use all, dev or test)")
    labels = label_snapshot(db, rule)
    key = ("per_query", _workspace(db), _run_version(db, run), labels.version, rule, unit,
           policy, measures)

    def compute() -> pd.DataFrame:
        if labels.qrels.empty:  # nothing is evaluated before the first label
            return pd.DataFrame({m: pd.Series(dtype="float64") for m in measures},
                                index=pd.Index([], dtype="string", name="query_id"))
        rows = _ranked(db, run, unit, labels)
        values = evaluate_ranked(rows, measures, judged_only=policy == "judged_only").per_query
        values.index = values.index.astype("string")
        return values

    values = _CACHE.get(key, compute)
    if split == "all":
        return values

    def in_split() -> pd.DataFrame:
        splits = query_table(db)["split"].reindex(values.index)
        return values.loc[(splits == split).fillna(False).to_numpy(dtype=bool)]

    # Split membership can change without a new label: key on the workspace state too.
    return _CACHE.get((*key, split, _db_state(db)), in_split)


def scorecard(
    values: pd.DataFrame,
    queries: pd.DataFrame,
    segment: str = NO_SEGMENT,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Per segment and overall: each measure's mean, bootstrap interval and query count.

    Columns: segment, measure, mean, ci_low, ci_high, n. The overall rows come first
    (segment ``(all queries)``), then segments by name. Bootstrap seeds are fixed per cell
    (``seed``), so the table is reproducible.
    """
    groups = _segments(queries, segment, values.index)
    rows = []
    parts: list[tuple[str, pd.DataFrame]] = [(OVERALL, values)]
    if segment != NO_SEGMENT:
        parts += [(str(name), frame) for name, frame in values.groupby(groups, sort=True)]
    for name, frame in parts:
        for measure in values.columns:
            ci = statistics.bootstrap_ci(
                frame[measure].to_numpy(), confidence=confidence, n_resamples=n_resamples,
                seed=seed,
            )
            rows.append({"segment": name, "measure": measure, "mean": ci.mean,
                         "ci_low": ci.low, "ci_high": ci.high, "n": ci.n})
    return pd.DataFrame(rows, columns=["segment", "measure", "mean", "ci_low", "ci_high", "n"])


def segment_scorecard(
    db: sqlite_utils.Database,
    run: str,
    measures: Sequence[str],
    segment: str = NO_SEGMENT,
    *,
    queries: pd.DataFrame | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    **controls: str,
) -> pd.DataFrame:
    """``scorecard`` of ``per_query(db, run, measures, **controls)``, cached per control set.

    The cache key holds the label version, so a new judgment recomputes it. Pass ``queries``
    (``query_table``) to skip re-reading the segments.
    """
    labels = label_snapshot(db, controls.get("rule", "default"))
    # Segments and splits can change without a new label: key on the workspace state too.
    # ``queries`` given by the caller must be the current query_table (same state).
    key = ("scorecard", _workspace(db), _run_version(db, run), labels.version, tuple(measures),
           segment, _db_state(db), n_resamples, seed, tuple(sorted(controls.items())))

    def compute() -> pd.DataFrame:
        table = query_table(db) if queries is None else queries
        values = per_query(db, run, measures, **controls)
        return scorecard(values, table, segment, n_resamples=n_resamples, seed=seed)

    return _CACHE.get(key, compute)


def with_error_bars(card: pd.DataFrame) -> pd.DataFrame:
    """The scorecard plus err_plus / err_minus: distances from the mean to the interval ends."""
    return card.assign(err_plus=card["ci_high"] - card["mean"],
                       err_minus=card["mean"] - card["ci_low"])


def scorecard_matrix(card: pd.DataFrame) -> pd.DataFrame:
    """The scorecard's means as a segment x measure table (for the heatmap)."""
    return card.pivot(index="segment", columns="measure", values="mean")


def segment_values(values: pd.DataFrame, queries: pd.DataFrame, segment: str) -> pd.DataFrame:
    """Per-query values in long form: query_id, segment, measure, value (distributions)."""
    frame = values.copy()
    frame["segment"] = _segments(queries, segment, values.index)
    long = frame.reset_index().melt(
        id_vars=["query_id", "segment"], var_name="measure", value_name="value"
    )
    return long


def curve_ks(depth: int) -> list[int]:
    """Cutoffs for measure-vs-k curves: every k up to 20, then a coarser grid to ``depth``."""
    grid = set(range(1, min(depth, 20) + 1))
    grid.update(k for k in (25, 30, 40, 50, 75, 100, 150, 200, 300, 500, 1000) if k <= depth)
    grid.add(max(depth, 1))
    return sorted(grid)


def curves(
    db: sqlite_utils.Database,
    runs: Sequence[str],
    measures: Sequence[str],
    *,
    unit: str = "chunk",
    policy: str = "nonrelevant",
    split: str = "all",
) -> pd.DataFrame:
    """Mean of each measure as k goes from 1 to the deepest rank: run, measure, k, mean.

    ``measures`` are names with or without a cutoff (``R@10`` and ``R`` both give the R curve);
    measures without a cutoff (``Rprec``) are left out.
    """
    rows = []
    labels = label_snapshot(db)
    for run in runs:
        ranked = _ranked(db, run, unit, labels)
        depth = int(ranked.rank.max()) if len(ranked.rank) else 1
        ks = curve_ks(depth)
        for measure in measures:
            parsed = parse_measure(measure)
            if parsed.kind in ("Rprec",):
                continue
            base = str(measure).split("@", 1)[0]
            names = [f"{base}@{k}" for k in ks]
            means = per_query(db, run, names, unit=unit, policy=policy, split=split).mean()
            rows += [{"run": run, "measure": base, "k": k, "mean": float(means[name])}
                     for k, name in zip(ks, names, strict=True)]
    return pd.DataFrame(rows, columns=["run", "measure", "k", "mean"])


# ---------------------------------------------------------------------------------------------
# Coverage


def coverage(
    db: sqlite_utils.Database,
    runs: Sequence[str],
    k: int,
    queries: pd.DataFrame,
    segment: str = NO_SEGMENT,
    *,
    unit: str = "chunk",
    split: str = "all",
    threshold: float = 0.8,
) -> pd.DataFrame:
    """Judged@k per run and segment: run, segment, judged, n, below (judged < threshold)."""
    measure = f"Judged@{k}"
    frames = []
    for run in runs:
        values = per_query(db, run, [measure], unit=unit, split=split)
        groups = _segments(queries, segment, values.index)
        table = values[measure].groupby(groups).agg(["mean", "size"]).reset_index()
        table.columns = ["segment", "judged", "n"]
        overall = pd.DataFrame({"segment": [OVERALL], "judged": [values[measure].mean()],
                                "n": [len(values)]})
        both = pd.concat([overall, table]) if segment != NO_SEGMENT else overall
        frames.append(both.assign(run=run))
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["segment", "judged", "n", "run"]
    )
    out["judged"] = out["judged"].fillna(0.0).astype("float64")
    out["below"] = out["judged"] < threshold
    return out[["run", "segment", "judged", "n", "below"]]


def unjudged_pairs(
    db: sqlite_utils.Database,
    runs: Sequence[str],
    k: int,
    *,
    split: str = "all",
    query_ids: Iterable[str] | None = None,
) -> list[tuple[str, str]]:
    """(query_id, chunk_id) pairs in the top ``k`` of ``runs`` without a consensus label.

    Queries are the evaluated ones (labeled at least once), filtered by split and ``query_ids``.
    """
    labels = label_snapshot(db)
    judged = pd.MultiIndex.from_frame(labels.qrels[["query_id", "doc_id"]].astype("string"))
    wanted = None if query_ids is None else set(query_ids)
    if split != "all":
        in_split = {r[0] for r in db.conn.execute("SELECT id FROM queries WHERE split = ?",
                                                   [split])}
        wanted = in_split if wanted is None else wanted & in_split
    pairs: dict[tuple[str, str], None] = {}
    for run in runs:
        frame = load_run(db, run)
        rows = _ranked(db, run, "chunk", labels)
        top = rows.rank <= k
        picked = frame.iloc[rows.doc_row[top]][["query_id", "doc_id"]].astype("string")
        if wanted is not None:
            picked = picked.loc[picked["query_id"].isin(wanted)]
        keep = ~pd.MultiIndex.from_frame(picked).isin(judged)
        for q, c in zip(picked["query_id"][keep], picked["doc_id"][keep], strict=True):
            pairs[(str(q), str(c))] = None
    return list(pairs)


def send_unjudged_to_queue(db: sqlite_utils.Database, pairs: Sequence[tuple[str, str]]) -> int:
    """Put ``pairs`` in the labeling queue; returns how many were new."""
    return int(queue.enqueue_pairs(db, pairs, reason="coverage"))


# ---------------------------------------------------------------------------------------------
# Comparison


def paired_scores(
    db: sqlite_utils.Database, baseline: str, candidate: str, measure: str, **controls: str
) -> pd.DataFrame:
    """Per query: baseline and candidate values of ``measure`` and their difference."""
    a = per_query(db, baseline, [measure], **controls)[measure]
    b = per_query(db, candidate, [measure], **controls)[measure]
    frame = pd.concat([a.rename("baseline"), b.rename("candidate")], axis=1, join="inner")
    frame["difference"] = frame["candidate"] - frame["baseline"]
    return frame


def compare_runs(
    db: sqlite_utils.Database,
    baseline: str,
    candidates: Sequence[str],
    measures: Sequence[str],
    *,
    query_ids: Iterable[str] | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    n_resamples: int = 10_000,
    seed: int = 0,
    **controls: str,
) -> pd.DataFrame:
    """Every candidate against the baseline, per measure, on the queries both score.

    Columns: candidate, measure, n, baseline, candidate_mean, difference, p_randomization,
    p_t, p_holm, significant, wins, ties, losses, sd_difference, detectable. ``p_holm`` is the
    randomization p-value adjusted with Holm over the candidates of one measure (with one
    candidate it equals the raw p); ``significant`` is ``p_holm < alpha``. ``detectable`` is the
    smallest difference this query set detects at ``power`` and level ``alpha``.
    """
    wanted = None if query_ids is None else set(query_ids)
    rows = []
    for measure in _check_measures(measures):
        for candidate in candidates:
            pairs = paired_scores(db, baseline, candidate, measure, **controls)
            if wanted is not None:
                pairs = pairs.loc[pairs.index.isin(wanted)]
            a, b = pairs["baseline"].to_numpy(), pairs["candidate"].to_numpy()
            test = statistics.compare_paired(a, b, n_resamples=n_resamples, seed=seed)
            wins, ties, losses = statistics.wins_ties_losses(a, b)
            sd = float(np.std(b - a, ddof=1)) if len(a) > 1 else math.nan
            rows.append({
                "candidate": candidate, "measure": measure, "n": test.n,
                "baseline": test.baseline_mean, "candidate_mean": test.candidate_mean,
                "difference": test.difference, "p_randomization": test.p_randomization,
                "p_t": test.p_t, "wins": wins, "ties": ties, "losses": losses,
                "sd_difference": sd,
                "detectable": statistics.minimal_detectable_difference(
                    sd, test.n, power=power, alpha=alpha) if len(a) > 1 else math.inf,
            })
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    frame["p_holm"] = frame.groupby("measure")["p_randomization"].transform(
        lambda p: pd.Series(statistics.holm(p.to_numpy()), index=p.index)
    )
    frame["significant"] = frame["p_holm"] < alpha
    order = ["candidate", "measure", "n", "baseline", "candidate_mean", "difference",
             "p_randomization", "p_t", "p_holm", "significant", "wins", "ties", "losses",
             "sd_difference", "detectable"]
    return frame[order]


def sensitivity(
    sd_difference: float, n_queries: int, difference: float, *, power: float = 0.8,
    alpha: float = 0.05,
) -> dict[str, float]:
    """What a query set can detect: ``detectable`` now and ``queries_needed`` for ``difference``."""
    return {
        "detectable": statistics.minimal_detectable_difference(
            sd_difference, n_queries, power=power, alpha=alpha),
        "queries_needed": float(statistics.queries_needed(
            sd_difference, difference, power=power, alpha=alpha)),
    }


# ---------------------------------------------------------------------------------------------
# Worst queries and drill-down


def worst_queries(
    values: pd.DataFrame,
    queries: pd.DataFrame,
    measure: str,
    *,
    baseline: pd.DataFrame | None = None,
    segment: str = NO_SEGMENT,
    segment_value: str | None = None,
    limit: int = 50,
) -> pd.DataFrame:
    """Queries sorted by ``measure`` ascending, or by the drop versus ``baseline`` (largest
    first) when given. Columns: query_id, text, segment, value[, baseline, drop]."""
    frame = pd.DataFrame({"value": values[measure]})
    frame["segment"] = _segments(queries, segment, frame.index)
    frame["text"] = queries["text"].reindex(frame.index)
    if segment_value is not None:
        frame = frame.loc[frame["segment"] == segment_value]
    if baseline is not None:
        frame["baseline"] = baseline[measure].reindex(frame.index)
        frame["drop"] = frame["baseline"] - frame["value"]
        frame = frame.sort_values(["drop", "value"], ascending=[False, True], kind="stable")
    else:
        frame = frame.sort_values("value", kind="stable")
    frame = frame.head(limit).reset_index()
    columns = ["query_id", "text", "segment", "value"]
    return frame[columns + (["baseline", "drop"] if baseline is not None else [])]


def _snippet(text: object) -> str:
    value = " ".join(str(text or "").split())
    return value if len(value) <= SNIPPET_CHARS else value[: SNIPPET_CHARS - 1] + "…"


def _hidden_grades(
    graded: pd.Series, query_id: str, sight: Sight | None
) -> pd.Series:
    """Per labeled chunk id (the index of ``graded``): whether ``sight`` hides its grade."""
    if sight is None or sight.sees_all:
        return pd.Series(False, index=graded.index, dtype=bool)
    return pd.Series([not sight.sees_pair(query_id, c) for c in graded.index.astype(str)],
                     index=graded.index, dtype=bool)


def drill_down(
    db: sqlite_utils.Database, run: str, query_id: str, *, rel: int = 1, depth: int | None = None,
    sight: Sight | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One query's ranked list and the judged-relevant chunks the run did not retrieve.

    Ranked list columns: rank, chunk_id, doc_id, score, grade (NA when unjudged), grade_name
    (``unjudged`` when unjudged), relevant, snippet. Missed: chunk_id, doc_id, grade,
    grade_name, snippet, for chunks graded ``>= rel`` that are nowhere in the run's list
    (or below ``depth`` when given). Ranks follow trec_eval's order (score, then id desc).

    ``sight`` (default: everything) is who looks (``labeling.judging.visibility``): a grade they may
    not see is NA with grade_name ``hidden`` (relevant False) in the ranked list, and its chunk
    is left out of the missed list.
    """
    labels = label_snapshot(db)
    frame = load_run(db, run)
    mine = frame.loc[frame["query_id"] == query_id, ["doc_id", "score"]]
    mine = mine.sort_values(["score", "doc_id"], ascending=[False, False], ignore_index=True)
    mine.insert(0, "rank", np.arange(1, len(mine) + 1))
    if depth is not None:
        mine = mine.loc[mine["rank"] <= depth]
    grades = labels.qrels.loc[labels.qrels["query_id"] == query_id].set_index("doc_id")[
        "relevance"]
    hidden = _hidden_grades(grades, query_id, sight)
    hidden_ids = set(hidden.index[hidden].astype(str))
    grades = grades.loc[~hidden]
    scale = {g: name for g, name, _ in grading.get_scale(db)}
    chunks = pd.read_sql_query(
        "SELECT id, doc_id, text FROM chunks WHERE id IN "
        "(SELECT value FROM json_each(?))",
        db.conn, params=[json.dumps([*mine["doc_id"].astype(str), *grades.index.astype(str)])],
    ).set_index("id")
    ranked = pd.DataFrame({
        "rank": mine["rank"].to_numpy(),
        "chunk_id": mine["doc_id"].astype(str).to_numpy(),
    })
    ranked["doc_id"] = ranked["chunk_id"].map(chunks["doc_id"])
    ranked["score"] = mine["score"].to_numpy()
    ranked["grade"] = ranked["chunk_id"].map(grades).astype("Int64")
    ranked["grade_name"] = ranked["grade"].map(scale).fillna("unjudged").astype(str)
    ranked.loc[ranked["chunk_id"].isin(hidden_ids), "grade_name"] = HIDDEN
    ranked["relevant"] = (ranked["grade"].fillna(-1) >= rel).astype(bool)
    ranked["snippet"] = ranked["chunk_id"].map(chunks["text"]).map(_snippet)
    retrieved = set(ranked["chunk_id"])
    relevant = grades.loc[grades >= rel]
    missed = pd.DataFrame({"chunk_id": [str(c) for c in relevant.index
                                        if str(c) not in retrieved]})
    missed["doc_id"] = missed["chunk_id"].map(chunks["doc_id"])
    missed["grade"] = missed["chunk_id"].map(relevant).astype("Int64")
    missed["grade_name"] = missed["grade"].map(scale).astype(str)
    missed["snippet"] = missed["chunk_id"].map(chunks["text"]).map(_snippet)
    return ranked, missed.sort_values(["grade", "chunk_id"], ascending=[False, True],
                                      ignore_index=True)


def drill_down_documents(
    db: sqlite_utils.Database,
    run: str,
    query_id: str,
    *,
    rel: int = 1,
    depth: int | None = None,
    chunk_lists: tuple[pd.DataFrame, pd.DataFrame] | None = None,
    sight: Sight | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The drill-down at document level, as the ``document`` unit scores a query.

    A document is ranked where its best chunk is and graded with the highest label among its
    chunks (unjudged when none of them is labeled). Ranked columns: rank, doc_id,
    best_chunk_id, chunk_rank (that chunk's rank), chunks (how many of its chunks the run
    returned), grade, grade_name, relevant, snippet (of the best chunk). Missed: doc_id, grade,
    grade_name, chunk_id (its highest-labeled chunk), snippet, for documents graded ``>= rel``
    that the run did not return (or only below ``depth`` when given).

    ``chunk_lists``: what ``drill_down(db, run, query_id, rel=rel, sight=sight)`` returned,
    when the caller has it already (it is not read again). ``sight`` as in ``drill_down``: a
    document with a labeled chunk whose grade the viewer may not see is ``hidden`` (its grade
    would tell that chunk's), and is left out of the missed list.
    """
    if chunk_lists is None:
        chunk_lists = drill_down(db, run, query_id, rel=rel, sight=sight)
    chunks, missed_chunks = chunk_lists
    chunk_doc = chunk_documents(db)
    labels = label_snapshot(db)
    graded = labels.qrels.loc[labels.qrels["query_id"] == query_id, ["doc_id", "relevance"]]
    document = _document_of(graded["doc_id"], chunk_doc)
    hidden = _hidden_grades(graded.set_index("doc_id")["relevance"], query_id, sight)
    hidden_docs = set(document.loc[hidden.to_numpy()])
    doc_grade = graded["relevance"].groupby(document.to_numpy()).max()
    doc_grade = doc_grade.loc[~doc_grade.index.isin(hidden_docs)]
    chunks = chunks.assign(document=_document_of(chunks["chunk_id"], chunk_doc))
    best = chunks.drop_duplicates("document")  # rows come in rank order
    ranked = pd.DataFrame({
        "rank": np.arange(1, len(best) + 1),
        "doc_id": best["document"].to_numpy(),
        "best_chunk_id": best["chunk_id"].to_numpy(),
        "chunk_rank": best["rank"].to_numpy(),
        "chunks": best["document"].map(chunks["document"].value_counts()).to_numpy(),
    })
    scale = {g: name for g, name, _ in grading.get_scale(db)}
    ranked["grade"] = ranked["doc_id"].map(doc_grade).astype("Int64")
    ranked["grade_name"] = ranked["grade"].map(scale).fillna("unjudged").astype(str)
    ranked.loc[ranked["doc_id"].isin(hidden_docs), "grade_name"] = HIDDEN
    ranked["relevant"] = (ranked["grade"].fillna(-1) >= rel).astype(bool)
    ranked["snippet"] = best["snippet"].to_numpy()
    if depth is not None:
        ranked = ranked.loc[ranked["rank"] <= depth]
    # A relevant chunk is either in the run's list or missed: both carry its snippet.
    texts = pd.concat([
        chunks.set_index("chunk_id")["snippet"], missed_chunks.set_index("chunk_id")["snippet"]
    ])
    texts = texts[~texts.index.duplicated()]
    relevant = graded.assign(document=document.to_numpy()).loc[graded["relevance"] >= rel]
    relevant = relevant.loc[~relevant["document"].isin(ranked["doc_id"])
                            & ~relevant["document"].isin(hidden_docs)]
    relevant = relevant.sort_values(["relevance", "doc_id"], ascending=[False, True])
    top = relevant.drop_duplicates("document")
    missed = pd.DataFrame({
        "doc_id": top["document"].to_numpy(),
        "grade": top["relevance"].to_numpy(),
        "chunk_id": top["doc_id"].astype(str).to_numpy(),
    })
    missed["grade"] = missed["grade"].astype("Int64")
    missed["grade_name"] = missed["grade"].map(scale).astype(str)
    missed["snippet"] = missed["chunk_id"].map(texts)
    missed = missed[["doc_id", "grade", "grade_name", "chunk_id", "snippet"]]
    return ranked, missed.sort_values(["grade", "doc_id"], ascending=[False, True],
                                      ignore_index=True)


def judge(
    db: sqlite_utils.Database, query_id: str, chunk_id: str, grade: int, annotator: str,
    *, note: str | None = None,
) -> int:
    """Record a judgment from the drill-down, through the labeling queue.

    The scores update by themselves: every cache is keyed on the label version.
    """
    if not annotator.strip():
        raise InputError("type your name in the sidebar before judging", source="judgment")
    return queue.save_judgment(db, query_id, chunk_id, grade, annotator.strip(), note=note or None)


# ---------------------------------------------------------------------------------------------
# Failure review


def failure_tag_names(db: sqlite_utils.Database) -> list[str]:
    """The starting tags, then the team's own in the order they were added."""
    added = [r[0] for r in db.conn.execute("SELECT name FROM failure_tags ORDER BY rowid")]
    return [*FAILURE_TAGS, *[t for t in added if t not in FAILURE_TAGS]]


def add_failure_tag(
    db: sqlite_utils.Database, name: str, description: str = "", created_by: str | None = None
) -> str:
    """Add a team tag (trimmed, 1-60 characters); adding an existing tag is a no-op."""
    name = " ".join(name.split())
    if not 0 < len(name) <= 60:
        raise InputError("a tag has 1 to 60 characters", source="failure tag")
    if name in failure_tag_names(db):
        return name
    with store.write_transaction(db, action="add_tag") as conn:
        conn.execute(
            "INSERT OR IGNORE INTO failure_tags (name, description, created_by, created_at)"
            " VALUES (?, ?, ?, ?)", (name, description, created_by, store.utc_now()),
        )
    return name


def tag_failure(
    db: sqlite_utils.Database, query_id: str, run: str, tags: Sequence[str], reviewer: str,
    note: str | None = None,
) -> int:
    """Record why ``run`` failed on ``query_id``: one review row per tag. Returns rows added."""
    known = set(failure_tag_names(db))
    unknown = [t for t in tags if t not in known]
    if unknown:
        raise InputError(f"unknown failure tag(s) {unknown}", source="failure review")
    if not tags:
        raise InputError("choose at least one tag", source="failure review")
    if not reviewer.strip():
        raise InputError("type your name in the sidebar before tagging", source="failure review")
    contents.get_run(db, run)
    now = store.utc_now()
    with store.write_transaction(db, action="tag_failure") as conn:
        conn.executemany(
            "INSERT INTO failure_reviews (query_id, run_name, tag, note, reviewer, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [(query_id, run, tag, note or None, reviewer.strip(), now) for tag in tags],
        )
    return len(tags)


def failure_reviews(db: sqlite_utils.Database, query_id: str | None = None) -> pd.DataFrame:
    """Review rows (newest first): query_id, run_name, tag, note, reviewer, created_at."""
    sql = "SELECT query_id, run_name, tag, note, reviewer, created_at FROM failure_reviews"
    params: list[str] = []
    if query_id is not None:
        sql += " WHERE query_id = ?"
        params.append(query_id)
    return pd.read_sql_query(sql + " ORDER BY id DESC", db.conn, params=params)


def tag_counts(
    db: sqlite_utils.Database, queries: pd.DataFrame, segment: str = NO_SEGMENT
) -> pd.DataFrame:
    """Tagged queries per segment, run and tag: segment, run, tag, queries (distinct)."""
    reviews = failure_reviews(db)
    if reviews.empty:
        return pd.DataFrame(columns=["segment", "run", "tag", "queries"])
    reviews = reviews.drop_duplicates(["query_id", "run_name", "tag"])
    reviews["segment"] = _segments(
        queries, segment, pd.Index(reviews["query_id"].astype("string"))
    ).to_numpy()
    counts = (reviews.groupby(["segment", "run_name", "tag"]).size()
              .rename("queries").reset_index().rename(columns={"run_name": "run"}))
    return counts.sort_values(["queries", "segment"], ascending=[False, True], ignore_index=True)


# ---------------------------------------------------------------------------------------------
# Frozen test split


def split_hash(db: sqlite_utils.Database, split: str = "test") -> str:
    """Snapshot hash of one split: the consensus labels of its queries and what they describe
    (query texts, sources and segment attributes, judged chunks' titles and texts; see
    ``labeling.workspace.frozen_split``). 12 hex digits; equal hashes mean equal labels of equal texts."""
    labels = label_snapshot(db)
    ids = {r[0] for r in db.conn.execute("SELECT id FROM queries WHERE split = ?", [split])}
    label_digest = snapshot_hash(labels.qrels.loc[labels.qrels["query_id"].isin(ids)])
    texts_digest = frozen_split.described_texts_digest(db.conn, split)
    return hashlib.sha256(f"{label_digest} {texts_digest}".encode()).hexdigest()[:12]


def split_lock(db: sqlite_utils.Database, split: str = "test") -> dict | None:
    """The lock row of ``split`` (split, locked_by, locked_at, snapshot_hash), or None."""
    rows = list(db.query("SELECT * FROM split_locks WHERE split = ?", [split]))
    return rows[0] if rows else None


def lock_split(db: sqlite_utils.Database, locked_by: str, split: str = "test") -> str:
    """Freeze ``split``: its labels, its membership and the texts its labels describe cannot
    change until unlocked (``labeling.workspace.frozen_split``).

    Records and returns the split's snapshot hash (``split_hash``). Locking twice is an error.
    """
    if split not in ("dev", "test"):
        raise ScorecardError(f"unknown split {split!r}")
    digest = split_hash(db, split)
    with store.write_transaction(db, action="lock") as conn:
        if conn.execute("SELECT 1 FROM split_locks WHERE split = ?", [split]).fetchone():
            raise ScorecardError(f"the {split} split is already locked")
        conn.execute(
            "INSERT INTO split_locks (split, locked_by, locked_at, snapshot_hash)"
            " VALUES (?, ?, ?, ?)", (split, locked_by or "unknown", store.utc_now(), digest),
        )
    return digest


def unlock_split(db: sqlite_utils.Database, split: str = "test") -> None:
    """Lift the lock of ``split`` (no-op when it is not locked)."""
    with store.write_transaction(db, action="unlock") as conn:
        conn.execute("DELETE FROM split_locks WHERE split = ?", [split])


# ---------------------------------------------------------------------------------------------
# History


def save_snapshot(
    db: sqlite_utils.Database, run: str, measures: Sequence[str], *, unit: str = "chunk",
    policy: str = "nonrelevant", split: str = "all", created_by: str | None = None,
) -> str:
    """Save ``run``'s headline means on the current labels for the history; returns the hash."""
    values = per_query(db, run, measures, unit=unit, policy=policy, split=split)
    labels = label_snapshot(db)
    means = {m: float(values[m].mean()) if len(values) else 0.0 for m in values.columns}
    version = contents.get_run(db, run)["query_set_version"]
    with store.write_transaction(db, action="save_scores") as conn:
        conn.execute(
            "INSERT INTO evaluation_snapshots (run_name, query_set_version, split, unit, policy,"
            " snapshot_hash, n_queries, means, created_by, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run, version, split, unit, policy, labels.snapshot, len(values), json.dumps(means),
             created_by, store.utc_now()),
        )
    return labels.snapshot


def query_set_versions(db: sqlite_utils.Database) -> list[str]:
    """Distinct ``runs.query_set_version`` values (``(unversioned)`` for NULL), oldest first."""
    rows = db.conn.execute(
        "SELECT coalesce(query_set_version, '(unversioned)') FROM runs GROUP BY 1 ORDER BY min(id)"
    )
    return [r[0] for r in rows]


def history(
    db: sqlite_utils.Database, query_set_version: str, measures: Sequence[str], *,
    unit: str = "chunk", policy: str = "nonrelevant", split: str = "all",
) -> tuple[pd.DataFrame, list[str]]:
    """Runs of one query set in creation order with their headline means, and warnings.

    Rows: run, created_at, measure, now (on the current labels), saved (the latest saved
    snapshot with the same unit, policy and split; NaN if none), saved_snapshot, saved_at.
    A warning names runs whose saved numbers come from different label snapshots.
    """
    runs = list(db.query(
        "SELECT name, created_at FROM runs WHERE coalesce(query_set_version, '(unversioned)') = ?"
        " ORDER BY created_at, id", [query_set_version]))
    rows = []
    snapshots: dict[str, str] = {}
    for run in runs:
        values = per_query(db, run["name"], measures, unit=unit, policy=policy, split=split)
        saved = db.conn.execute(
            "SELECT means, snapshot_hash, created_at FROM evaluation_snapshots WHERE run_name = ?"
            " AND unit = ? AND policy = ? AND split = ? ORDER BY id DESC LIMIT 1",
            [run["name"], unit, policy, split]).fetchone()
        saved_means = json.loads(saved[0]) if saved else {}
        if saved:
            snapshots[run["name"]] = saved[1]
        for measure in measures:
            rows.append({
                "run": run["name"], "created_at": run["created_at"], "measure": measure,
                "now": float(values[measure].mean()) if len(values) else 0.0,
                "saved": saved_means.get(measure, math.nan),
                "saved_snapshot": saved[1] if saved else None,
                "saved_at": saved[2] if saved else None,
            })
    warnings = []
    if len(set(snapshots.values())) > 1:
        groups: dict[str, list[str]] = {}
        for run, digest in snapshots.items():
            groups.setdefault(digest, []).append(run)
        listing = "; ".join(f"{digest}: {', '.join(names)}" for digest, names in groups.items())
        warnings.append(
            "Saved scores come from different label snapshots, so they are not directly "
            f"comparable ({listing}). Compare the 'now' column, computed on today's labels."
        )
    return pd.DataFrame(rows, columns=["run", "created_at", "measure", "now", "saved",
                                       "saved_snapshot", "saved_at"]), warnings
