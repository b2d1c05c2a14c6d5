"""What unjudged results can do to a paired change: the run's best and worst case over a line
of fillings, and how full its top k is.

Conventions
- A *slot* is a rank 1..k of a query's top k. It is *filled* when the run returned a result
  for it and *empty* when the run returned fewer than k results; a filled slot is *judged*
  when its (query, chunk) pair has a label. Empty slots are never unjudged: nothing is there to
  judge. Judged@k over filled slots is judged / filled; the share of empty slots is
  (k - filled) / k (``Slots``, counts per query).
- A *filling* labels unjudged pairs; one filling holds for both runs (a pair has one true
  grade), and a filled pair enters the labels too, so nDCG's ideal list, recall's and AP's
  denominators move with it. For a measure cut at k only pairs in a run's top k are filled
  (the whole list for a measure without a cutoff): a pair no run returned stays unjudged,
  since nobody can say anything about it.
- The run's *best case* per query is the largest change (run - baseline) over the fillings
  F_0 .. F_m: F_j labels the run's first j unjudged results (in its own order) at
  ``top_grade`` and every other unjudged pair not relevant. F_0 is the change as scored;
  F_m is "every unjudged result of the run relevant, none of the baseline's" (a result both
  returned is the run's, hence relevant). The cut at j matters for nDCG and AP: a relevant
  result the run ranks low raises the ideal more than the gain, so "all relevant" is not
  always the run's best. The *worst case* is the mirror: the smallest change over the
  fillings that label the baseline's first j unjudged results relevant and every other
  unjudged pair not. This is a search along one line of fillings per query, not over every
  labelling of the pairs (exponentially many).
- Queries are those both runs' labels evaluate (a labeled query a run returned nothing for
  scores 0, as the engine counts it); values as the engine computes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from labeling.metrics.engine import evaluate_ranked
from labeling.metrics.measures import parse_measure
from labeling.metrics.ranking import RankedRows, rank_rows

__all__ = ["GateValues", "Slots", "filled_changes", "slot_counts"]

BLOCK_ROWS = 4_000_000  # ranked rows evaluated at once: the fillings come a block at a time


@dataclass(frozen=True)
class Slots:
    """Per query (index query_id): ``filled`` and ``judged`` of the top ``k`` (see the module
    docstring)."""

    k: int
    filled: pd.Series
    judged: pd.Series

    def totals(self, queries: pd.Index) -> tuple[int, int, int]:
        """(slots, filled, judged) of ``queries``: k slots per query, summed over them."""
        filled = int(self.filled.reindex(queries, fill_value=0).sum())
        judged = int(self.judged.reindex(queries, fill_value=0).sum())
        return self.k * len(queries), filled, judged


@dataclass(frozen=True)
class GateValues:
    """Per-query values (index query_id, one column per measure) of a run and its baseline as
    scored (unjudged not relevant), the change in the run's ``best`` and ``worst`` case, and
    the run's ``Slots`` per cutoff."""

    run: pd.DataFrame
    baseline: pd.DataFrame
    best: pd.DataFrame
    worst: pd.DataFrame
    slots: dict[int, Slots]

    @classmethod
    def fully_judged(cls, run: pd.DataFrame, baseline: pd.DataFrame, k: int) -> GateValues:
        """Values with no unjudged pair and every top-``k`` slot of the run filled and
        judged: both cases are the change as scored."""
        change = run - baseline
        full = pd.Series(k, index=run.index, dtype="int64")
        return cls(run, baseline, change, change, {k: Slots(k, full, full)})

    def restricted(self, queries: pd.Index) -> GateValues:
        """The same values on ``queries`` only."""
        return GateValues(self.run.loc[queries], self.baseline.loc[queries],
                          self.best.loc[queries], self.worst.loc[queries], self.slots)


def _slots(rows: RankedRows, k: int) -> Slots:
    index = pd.Index(rows.query_ids.astype(str), dtype="string", name="query_id")
    judged = np.bincount(rows.query[(rows.rank <= k) & ~np.isnan(rows.grade)],
                         minlength=len(index))
    return Slots(k, pd.Series(np.minimum(rows.retrieved, k), index=index, dtype="int64"),
                 pd.Series(judged, index=index, dtype="int64"))


def slot_counts(qrels: pd.DataFrame, run: pd.DataFrame, k: int) -> Slots:
    """Filled and judged slots of ``run``'s top ``k`` on the queries ``qrels`` labels."""
    return _slots(rank_rows(qrels, run), k)


@dataclass(frozen=True)
class _Ranked:
    """One run ranked against its labels, its rows' and labels' (query, doc) pairs as integer
    codes shared with the other run (``_Pairs``)."""

    rows: RankedRows
    row_pair: np.ndarray  # pair code per row
    labeled: np.ndarray  # pair codes of its labels
    local_query: np.ndarray  # per global query code: this run's query code, -1 when absent

    @property
    def query_ids(self) -> np.ndarray:
        return self.rows.query_ids.astype(str)

    def top(self, depth: int | None) -> _Ranked:
        """The rows ranked ``depth`` or better (all when None): the only ones a measure cut
        at ``depth`` reads (its denominators come from the labels; a query answered stays
        answered)."""
        if depth is None:
            return self
        keep = self.rows.rank <= depth
        rows = self.rows
        return _Ranked(RankedRows(rows.query_ids, rows.query[keep], rows.rank[keep],
                                  rows.grade[keep], rows.doc_row[keep], rows.qrels_query,
                                  rows.qrels_grade, np.minimum(rows.retrieved, depth)),
                       self.row_pair[keep], self.labeled, self.local_query)

    def unjudged_order(self, depth: int | None) -> tuple[np.ndarray, np.ndarray]:
        """(pair code, position among the query's unjudged results from 0) of the unjudged
        rows in the top ``depth``, in ranking order."""
        rows = self.rows
        mask = np.isnan(rows.grade) & (rows.rank <= (depth or np.iinfo(np.int64).max))
        query = rows.query[mask]
        counts = np.bincount(query, minlength=rows.n_queries)
        starts = np.zeros(rows.n_queries, dtype=np.int64)
        np.cumsum(counts[:-1], out=starts[1:])
        return self.row_pair[mask], np.arange(len(query)) - starts[query]


def _ranked_pair(qrels: tuple[pd.DataFrame, pd.DataFrame],
                 runs: tuple[pd.DataFrame, pd.DataFrame]) -> tuple[_Ranked, _Ranked, int]:
    """Both runs ranked, with pair codes (query code x docs + doc code, over one vocabulary of
    queries and one of docs); returns them and the number of docs."""
    rows = [rank_rows(q, r) for q, r in zip(qrels, runs, strict=True)]
    # Four lists of pairs: each run's rows, then each run's labels.
    queries = [r.query_ids.astype(str)[r.query] for r in rows]
    queries += [q["query_id"].astype(str).to_numpy() for q in qrels]
    docs = [run["doc_id"].astype(str).to_numpy()[r.doc_row] for run, r in
            zip(runs, rows, strict=True)]
    docs += [q["doc_id"].astype(str).to_numpy() for q in qrels]
    own = [r.query_ids.astype(str) for r in rows]
    query_codes, query_vocabulary = pd.factorize(np.concatenate([*queries, *own]))
    doc_codes, doc_vocabulary = pd.factorize(np.concatenate(docs))
    width = max(len(doc_vocabulary), 1)
    ends = np.cumsum([len(a) for a in queries])
    starts = ends - [len(a) for a in queries]
    pairs = [query_codes[a:b].astype(np.int64) * width + doc_codes[a:b]
             for a, b in zip(starts, ends, strict=True)]
    ranked, offset = [], int(ends[-1])
    for i, r in enumerate(rows):
        local = np.full(len(query_vocabulary), -1, dtype=np.int64)
        local[query_codes[offset:offset + r.n_queries]] = np.arange(r.n_queries)
        offset += r.n_queries
        ranked.append(_Ranked(r, pairs[i], np.unique(pairs[2 + i]), local))
    return ranked[0], ranked[1], width


@dataclass(frozen=True)
class _Line:
    """A line of fillings F_0 .. F_m as numbers: each pair's position in the filling order
    (F_j labels the pairs whose position is below j), per row of one run and for the labels
    the fillings add to that run's queries."""

    row_position: np.ndarray  # per row of the run (inf: never filled)
    extra_query: np.ndarray  # query code in the run of each pair it has no label for
    extra_position: np.ndarray
    copies: int  # m + 1


def _line(run: _Ranked, pairs: np.ndarray, position: np.ndarray, docs: int) -> _Line:
    """The fillings labeling ``pairs`` (codes) in ``position`` order, seen from ``run``."""
    order = np.argsort(pairs, kind="stable")
    ordered = pairs[order]
    at = np.searchsorted(ordered, run.row_pair).clip(max=max(len(ordered) - 1, 0))
    found = ordered[at] == run.row_pair if len(ordered) else np.zeros(len(run.row_pair), bool)
    row_position = np.where(found & np.isnan(run.rows.grade),
                            position[order][at] if len(ordered) else np.inf, np.inf)
    new = ~np.isin(pairs, run.labeled)
    codes = run.local_query[pairs[new] // docs]
    return _Line(row_position.astype(np.float64), codes[codes >= 0],
                 position[new][codes >= 0].astype(np.float64),
                 int(position.max()) + 2 if len(position) else 1)


def _values_under(run: _Ranked, line: _Line, measures: Sequence[str], top_grade: int,
                  fillings: range | None = None) -> np.ndarray:
    """Values (fillings x queries x measures) of the run under the fillings ``fillings`` of
    ``line`` (all by default), in one evaluation: copy j of every query is a query of its
    own."""
    fillings = fillings if fillings is not None else range(line.copies)
    rows, n, copies = run.rows, run.rows.n_queries, len(fillings)
    shift = np.arange(fillings.start, fillings.stop)[:, None]
    grade = np.where(line.row_position[None, :] < shift, float(top_grade),
                     rows.grade[None, :])
    added = line.extra_position[None, :] < shift
    extra_query = np.broadcast_to(line.extra_query, added.shape)[added]
    extra_copy = np.broadcast_to(shift - fillings.start, added.shape)[added]
    copy = shift - fillings.start
    qrels_query = np.concatenate([(rows.qrels_query[None, :] + copy * n).ravel(),
                                  extra_query + extra_copy * n])
    qrels_grade = np.concatenate([np.tile(rows.qrels_grade, copies),
                                  np.full(len(extra_query), top_grade,
                                          dtype=rows.qrels_grade.dtype)])
    virtual = RankedRows(
        query_ids=np.arange(copies * n).astype(object),
        query=(rows.query[None, :] + copy * n).ravel(), rank=np.tile(rows.rank, copies),
        grade=grade.ravel(), doc_row=np.tile(rows.doc_row, copies), qrels_query=qrels_query,
        qrels_grade=qrels_grade, retrieved=np.tile(rows.retrieved, copies))
    values = evaluate_ranked(virtual, measures).per_query.to_numpy()
    return values.reshape(copies, n, len(measures))


def _extreme_change(run: _Ranked, base: _Ranked, source: _Ranked, depth: int | None, docs: int,
                    measures: Sequence[str], top_grade: int, index: pd.Index,
                    pick: str) -> pd.DataFrame:
    """Per query of ``index``, the largest (``pick='max'``) or smallest change over the line
    of fillings of ``source``'s unjudged results in its top ``depth``."""
    pairs, position = source.unjudged_order(depth)
    lines = _line(run, pairs, position, docs), _line(base, pairs, position, docs)
    at_new = pd.Index(run.query_ids).get_indexer(index)
    at_old = pd.Index(base.query_ids).get_indexer(index)
    # Fillings a block at a time, so that a long line on a large run stays in memory.
    rows = max(len(run.rows.query), len(base.rows.query), 1)
    step = max(1, BLOCK_ROWS // rows)
    extreme = None
    for start in range(0, lines[0].copies, step):
        block = range(start, min(start + step, lines[0].copies))
        new = _values_under(run, lines[0], measures, top_grade, block)
        old = _values_under(base, lines[1], measures, top_grade, block)
        change = new[:, at_new, :] - old[:, at_old, :]
        part = change.max(axis=0) if pick == "max" else change.min(axis=0)
        extreme = part if extreme is None else (np.maximum(extreme, part) if pick == "max"
                                                else np.minimum(extreme, part))
    return pd.DataFrame(extreme, index=index, columns=list(measures))


def filled_changes(
    run_qrels: pd.DataFrame,
    run: pd.DataFrame,
    baseline_qrels: pd.DataFrame,
    baseline: pd.DataFrame,
    measures: Sequence[str],
    top_grade: int,
    *,
    slot_ks: Sequence[int] = (),
) -> GateValues:
    """Values of ``run`` and ``baseline`` (each on its labels) as scored, the run's best and
    worst case over the fillings of the module docstring (unjudged pairs labeled up to
    ``top_grade``), and the run's slots at each of ``slot_ks``. Frames as
    ``labeling.metrics.engine.evaluate`` takes them."""
    measures = list(measures)
    new, old, docs = _ranked_pair((run_qrels, baseline_qrels), (run, baseline))
    index = pd.Index(new.query_ids, dtype="string", name="query_id").intersection(
        pd.Index(old.query_ids, dtype="string"), sort=False)
    nothing = np.array([], dtype=np.int64), np.array([], dtype=np.int64)
    scored = [_values_under(r, _line(r, *nothing, docs), measures, top_grade)[0]
              for r in (new, old)]
    frames = [pd.DataFrame(v, index=pd.Index(r.query_ids, dtype="string", name="query_id"),
                           columns=measures).loc[index] for v, r in zip(scored, (new, old),
                                                                         strict=True)]
    best, worst = [], []
    for depth in dict.fromkeys(parse_measure(m).cutoff for m in measures):
        # Each cutoff has its own line: a measure of the top 10 fills only the top 10.
        group = [m for m in measures if parse_measure(m).cutoff == depth]
        top_new, top_old = new.top(depth), old.top(depth)
        best.append(_extreme_change(top_new, top_old, top_new, depth, docs, group, top_grade,
                                    index, "max"))
        worst.append(_extreme_change(top_new, top_old, top_old, depth, docs, group, top_grade,
                                     index, "min"))
    return GateValues(frames[0], frames[1], pd.concat(best, axis=1)[measures],
                      pd.concat(worst, axis=1)[measures],
                      {k: _slots(new.rows, k) for k in slot_ks})
