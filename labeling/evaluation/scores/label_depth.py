"""How deep the relevant labels go: the pool depth (or other source) that brought each relevant
label's pair to the judges, and the warning recall needs when k reaches that depth.

Conventions
- A pair's source comes from ``pair_sources`` (``labeling.workspace.provenance``): when some
  pool brought it, its depth is the deepest such pool (``pool_depth``); otherwise the first of
  search, synthetic, transfer, queue and import that did; otherwise ``no record``. Depth counts
  what was judged, not what was queued: a pool brought a pair only if it was recorded before
  the pair's first judgment (or at the same moment). A deeper pool queued over labels already
  made changes nothing until the pairs it adds are judged.
- Counted over the relevant labels (consensus grade at or above ``controls.relevance``) of the
  evaluated queries of ``controls.split`` that the run is scored on: those of its chunk set
  (``chunk_set_labels``), from the judgments of the controls' label source. Recall's
  denominator; the sentence names both.
- When most of them (more than half) come from pools of depth <= k, R@k is measured against
  what those pools found: a relevant chunk outside every pool was never labeled, so it cannot
  count as missed, and a run that made a pool finds its own labeled chunks by construction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa

from labeling.evaluation.inputs.chunk_set_labels import labels_for_chunk_set, run_chunk_set
from labeling.evaluation.inputs.label_sets import Kept, labels_for
from labeling.evaluation.inputs.result_cache import _FORGETTERS, _workspace
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores.scoring import in_split
from labeling.judging import label_sources
from labeling.metrics.measures import parse_measure
from labeling.workspace import provenance

if TYPE_CHECKING:
    import sqlite_utils

# Measures whose denominator is every relevant label of the query: the ones pool depth bounds.
RECALL_KINDS = ("R", "Rprec", "AP")
# Sources other than a pool, in the order that names a pair reached in several ways.
OTHER_SOURCES = {
    "search": "found by search", "synthetic": "synthetic question", "transfer": "transferred",
    "queue": "queued by hand", "import": "imported",
}
NO_RECORD = "no record"


def labels_described(relevance: int, chunk_set: str | None, label_source: str) -> str:
    """The relevant labels a run is scored on, in words: grade, chunk set (None: every chunk
    set's, or there are none) and label source, e.g. "grade 1 and above, of chunk set
    sections, people's labels"."""
    where = "" if chunk_set is None else f", of chunk set {chunk_set}"
    return f"grade {relevance} and above{where}, {label_sources.LABEL_ORIGINS[label_source]}"


@dataclass(frozen=True)
class LabelDepth:
    """Relevant labels by where their pair came from: ``pools`` maps a pool depth to the labels
    whose deepest pool it is; ``others`` maps a phrase of ``OTHER_SOURCES`` (or ``NO_RECORD``)
    to the labels no pool brought."""

    relevant: int
    relevance: int
    pools: dict[int, int] = field(default_factory=dict)
    others: dict[str, int] = field(default_factory=dict)
    # What the labels are: the run's chunk set (None: every chunk set's, or there are none)
    # and whose judgments (a key of ``label_sources.LABEL_SOURCES``).
    chunk_set: str | None = None
    label_source: str = label_sources.DEFAULT_SOURCE

    def what(self) -> str:
        """What was counted: grade, chunk set and label source, e.g. "grade 1 and above, of
        chunk set sections, people's labels"."""
        return labels_described(self.relevance, self.chunk_set, self.label_source)

    def within(self, k: int) -> int:
        """Relevant labels whose deepest pool is at most ``k`` deep."""
        return sum(n for depth, n in self.pools.items() if depth <= k)

    def most_within(self, k: int) -> bool:
        """Whether more than half of the relevant labels come from pools of depth <= ``k``."""
        return self.relevant > 0 and 2 * self.within(k) > self.relevant

    @property
    def depth_of_most(self) -> int | None:
        """The shallowest pool depth d such that most relevant labels come from pools of depth
        <= d (None when most come from elsewhere): how deep the labels go."""
        return next((d for d in sorted(self.pools) if self.most_within(d)), None)

    def sentence(self) -> str:
        """Where the relevant labels come from, in one sentence."""
        if not self.relevant:
            return f"No relevant labels ({self.what()}) yet."
        parts = [f"pools of depth {d} ({n})" for d, n in sorted(self.pools.items())]
        parts += [f"{name} ({n})" for name, n in self.others.items()]
        return (f"The {self.relevant} relevant labels ({self.what()}) come "
                f"from: {', '.join(parts)}.")

    def warning(self, measure: str) -> str | None:
        """What ``measure`` cannot see when its cutoff reaches the depth of most labels (None
        when it can, or it is not a recall-type measure with a cutoff)."""
        parsed = parse_measure(measure)
        if parsed.kind not in RECALL_KINDS or parsed.cutoff is None:
            return None
        depth = self.depth_of_most
        if depth is None or parsed.cutoff < depth:
            return None
        return (f"{measure} looks as deep as the labels go: {self.within(depth)} of the "
                f"{self.relevant} relevant labels come from pools of depth {depth} or less, and "
                f"k = {parsed.cutoff}. A relevant chunk outside every pool was never labeled, so "
                "it cannot count as missed, and a run that made a pool finds its own labeled "
                "chunks by construction: recall here is an upper bound. Label deeper (a deeper "
                "pool, search) before trusting it.")


PATCH_QUERIES = 2_000  # beyond this many changed queries, recomputing all of it is cheaper
_KEPT = Kept(16)  # relevant labels with their origins, per (workspace, labels, relevance)
_FORGETTERS.append(_KEPT.clear)


def label_depth(db: sqlite_utils.Database, controls: Controls) -> LabelDepth:
    """``LabelDepth`` of the relevant consensus labels under ``controls`` (rule, relevance,
    split). Kept between calls: after new judgments only their queries' labels are looked up
    again (``label_sets.changes_since``); a new pair source recomputes it all."""
    labels = labels_for(db, controls)
    chunk_set = run_chunk_set(db, controls.run)
    sources_version = provenance.pair_sources_version(db)
    state = (_workspace(db), labels.key[1:], controls.relevance, sources_version, chunk_set)

    def scored(qrels: pd.DataFrame) -> pd.DataFrame:  # the labels the run is scored on
        return labels_for_chunk_set(db, chunk_set, qrels)

    def patch(known: pd.DataFrame, changed: frozenset[str]) -> pd.DataFrame:
        queries = sorted(changed)
        fresh = _relevant_origins(db, scored(labels.rows_of(queries)), controls.relevance,
                                  queries)
        return pd.concat([known.loc[~known.index.isin(queries)], fresh])

    origins = _KEPT.up_to_date(
        db, state, labels, lambda: _relevant_origins(db, scored(labels.qrels),
                                                     controls.relevance),
        patch, PATCH_QUERIES)
    merged = in_split(db, origins, controls.split)
    depths = merged["depth"].dropna().astype(int).value_counts()
    others = merged.loc[merged["depth"].isna(), "source"].fillna(NO_RECORD).value_counts()
    order = [*OTHER_SOURCES.values(), NO_RECORD]
    return LabelDepth(
        relevant=len(merged), relevance=controls.relevance,
        pools={int(d): int(n) for d, n in sorted(depths.items())},
        others={name: int(others[name]) for name in order if name in others.index},
        chunk_set=chunk_set, label_source=controls.label_source,
    )


def _relevant_origins(
    db: sqlite_utils.Database, qrels: pd.DataFrame, relevance: int,
    query_ids: list[str] | None = None,
) -> pd.DataFrame:
    """The relevant labels of ``qrels`` (index query_id) with their pair's depth (NaN when no
    pool brought it) and source (``pair_origins`` of ``query_ids``, every query when None),
    joined in Arrow (a pandas merge of a million string pairs took three times as long)."""
    relevant = qrels.loc[qrels["relevance"] >= relevance]
    labels = pa.table({"query_id": pa.array(relevant["query_id"], pa.string()),
                       "doc_id": pa.array(relevant["doc_id"], pa.string())})
    joined = labels.join(pair_origins(db, query_ids), keys=["query_id", "doc_id"],
                         right_keys=["query_id", "chunk_id"], join_type="left outer")
    phrases = np.array([*OTHER_SOURCES.values(), NO_RECORD], dtype=object)
    rank = joined["other"].fill_null(len(OTHER_SOURCES)).to_numpy(zero_copy_only=False)
    return pd.DataFrame(
        {"depth": joined["depth"].to_numpy(zero_copy_only=False).astype(np.float64),
         "source": phrases[rank.astype(np.int64)]},
        index=pd.Index(joined["query_id"].to_pandas(), dtype="string", name="query_id"),
    )


def pair_origins(db: sqlite_utils.Database, query_ids: list[str] | None = None) -> pa.Table:
    """Per recorded pair (of ``query_ids``; of every query when None): query_id, chunk_id,
    depth (the deepest pool that brought it before its first judgment, null when none did)
    and other (the rank in ``OTHER_SOURCES`` of the first other source that did, null when
    none did). Every pair source is read as columns and grouped in Arrow; a few queries'
    through the pair index."""
    # Each other source's rank in ``OTHER_SOURCES``: the first a pair reached names it.
    rows = provenance.pair_source_rows(db, list(OTHER_SOURCES), query_ids)
    grouped = rows.group_by(["query_id", "chunk_id"]).aggregate(
        [("depth", "max"), ("other", "min")])
    return pa.table({"query_id": grouped["query_id"], "chunk_id": grouped["chunk_id"],
                     "depth": grouped["depth_max"], "other": grouped["other_min"]})
