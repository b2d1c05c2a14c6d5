"""The audit sample: which of a machine judge's pairs people should verify, within a budget, with
the sampling probabilities stored so the estimates built on it stay unbiased.

Conventions
- The universe is every labeled pair of every query that has a label from the judge or from
  people (queries of a locked split left out: their labels cannot change). Pairs people had
  graded when the sample is drawn are *known*: first in their query's audit order, inclusion 1.
- The judge's other pairs follow in order of weight: the discount ``1 / log2(1 + rank)`` of the
  pair's best rank among the chosen runs (rank capped at ``RANK_CAP``; a pair no run ranks takes
  the cap), doubled when the machine's grade is the relevance threshold or one below it (where
  a one-grade error flips relevant and not relevant). A wrong label moves a score most there.
- The budget is the exact number of pairs audited. First probabilities are ``min(1, c *
  weight)``, summing to the budget, with the budget shared by segment value when a segment
  attribute is given (each segment gets the share its open pairs make up, in whole pairs).
  The audit of each query is a prefix of its order, of a random length whose law those
  probabilities give (``P(length >= j) = p_j``); the lengths are drawn jointly, conditioned
  on summing to the budget (``labeling.metrics.prediction_powered.draw_exact``, exact
  conditional Poisson-style sampling), and the stored probabilities are the conditional
  ones, so pair ``j`` is audited with exactly its stored probability and a query's first
  pairs most often.
- The audited pairs go to the labeling queue (reason ``audit``). Judging them is blind: the
  queue shows no run, rank or score, and a machine's grade of a pair waiting in the queue is
  hidden from everyone (``labeling.judging.visibility``).
- Draws are seeded (``numpy.random.default_rng(seed)``): the same workspace, judge, budget and
  seed draw the same sample.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from labeling.errors import InputError, ScorecardError
from labeling.judging import consensus, label_sources, queue
from labeling.metrics import prediction_powered
from labeling.workspace import contents, label_queue, roles, store
from labeling.workspace import machine_labels as machine_tables

if TYPE_CHECKING:
    import sqlite_utils

AUDIT_REASON = queue.AUDIT  # its pairs are served from the audit queue only
RANK_CAP = 100
NEAR_THRESHOLD_FACTOR = 2.0
PAIR = ["query_id", "chunk_id"]


@dataclass(frozen=True)
class AuditDraw:
    """A drawn sample: its id, the queries and labeled pairs it covers, how many of those
    people had already graded (``known``), the machine-only pairs, the size asked for and the
    number of audited pairs drawn, and how many of them were new to the queue."""

    sample_id: int
    queries: int
    pairs: int
    known: int
    machine_only: int
    asked: int
    drawn: int
    queued: int

    def summary(self) -> str:
        short = ("" if self.drawn == self.asked else
                 f" ({self.asked} asked: " + ("every machine-only pair" if self.drawn ==
                                              self.machine_only else
                                              "no draw of exactly that size exists") + ")")
        return (f"audit sample {self.sample_id}: {self.drawn} pair(s) to verify{short} among "
                f"{self.machine_only} machine-only pair(s) of {self.queries} queries; "
                f"{self.known} pair(s) already had people's labels")


def _machine_grades(db: sqlite_utils.Database, judge: str) -> pd.DataFrame:
    _, machines = label_sources.current_by_origin(db)
    mine = machines.loc[machines["annotator"] == judge, PAIR + ["grade"]]
    return mine.reset_index(drop=True)


def _best_ranks(db: sqlite_utils.Database, runs: Sequence[str]) -> pd.Series:
    """(query_id, chunk_id) -> best rank among ``runs`` (1-based, trec_eval order)."""
    frames = []
    for run in runs:
        frame = consensus.run_frame(db, run)
        frames.append(frame.rename(columns={"doc_id": "chunk_id"})[PAIR + ["rank"]])
    if not frames:
        return pd.Series(dtype="int64")
    both = pd.concat(frames).astype({"query_id": str, "chunk_id": str})
    return both.groupby(PAIR)["rank"].min()


def weights(ranks: np.ndarray, grades: np.ndarray, relevance: int) -> np.ndarray:
    """Audit weights of pairs with best ranks ``ranks`` (NaN: no run ranks them) and machine
    grades ``grades`` (see the module conventions)."""
    ranks = np.where(np.isnan(ranks), RANK_CAP, np.minimum(ranks, RANK_CAP))
    near = (grades == relevance) | (grades == relevance - 1)
    return (1.0 / np.log2(1.0 + ranks)) * np.where(near, NEAR_THRESHOLD_FACTOR, 1.0)


def _segments(db: sqlite_utils.Database, segment: str | None) -> dict[str, str]:
    if segment is None:
        return {}
    if segment in ("source", "split"):
        return {q: str(v) for q, v in contents.query_column(db, segment).items()}
    return {q: str(v) for q, v in contents.query_segments(db, segment).items()}


def plan_universe(
    db: sqlite_utils.Database, judge: str, *, runs: Sequence[str], relevance: int,
) -> pd.DataFrame:
    """Every pair of the sample's universe, in audit order: query_id, chunk_id, position
    (1-based within the query), known, machine_grade, weight (0 for known pairs)."""
    machine = _machine_grades(db, judge)
    if machine.empty:
        raise ScorecardError(f"the machine judge {judge!r} has no labels to audit")
    people, _ = label_sources.current_by_origin(db)
    known = people[PAIR].drop_duplicates()
    locked = contents.locked_query_ids(db)
    universe = pd.merge(known.assign(known=True),
                        machine.rename(columns={"grade": "machine_grade"}), on=PAIR, how="outer")
    universe = universe.loc[~universe["query_id"].isin(locked)].copy()
    universe["known"] = universe["known"].fillna(False).astype(bool)
    universe["machine_grade"] = universe["machine_grade"].astype("Int64")
    ranks = _best_ranks(db, runs)
    index = pd.MultiIndex.from_frame(universe[PAIR].astype(str))
    best = ranks.reindex(index).to_numpy(dtype=float) if len(ranks) else np.full(len(index),
                                                                                 np.nan)
    grades = universe["machine_grade"].to_numpy(dtype=float, na_value=np.nan)
    universe["weight"] = np.where(universe["known"], 0.0, weights(best, grades, relevance))
    universe["shuffle"] = [queue.shuffle_key(q, c) for q, c in zip(
        universe["query_id"], universe["chunk_id"], strict=True)]
    # Known pairs first, then by weight, ties in the queue's stable shuffled order.
    universe = universe.sort_values(["query_id", "known", "weight", "shuffle"],
                                    ascending=[True, False, False, True], ignore_index=True)
    universe["position"] = universe.groupby("query_id").cumcount() + 1
    return universe.drop(columns="shuffle")


def draw_audit(
    db: sqlite_utils.Database,
    judge: str,
    budget: int,
    *,
    runs: Sequence[str],
    relevance: int,
    segment: str | None = None,
    seed: int = 0,
    created_by: str | None = None,
) -> AuditDraw:
    """Draw an audit sample of ``judge``'s pairs (see the module conventions), store it with
    its probabilities and queue the audited pairs. ``budget``: the number of pairs to audit
    (exactly, or every machine-only pair when there are fewer)."""
    roles.check_current(db, "audit")  # before the work of the design, not only at the write
    if not (budget > 0 and float(budget).is_integer()):
        raise InputError(f"the audit budget is a whole number of pairs above 0, not {budget}",
                         source="audit")
    universe = plan_universe(db, judge, runs=runs, relevance=relevance)
    if universe["known"].all():
        raise ScorecardError(f"every pair {judge} graded already has people's labels: "
                             "nothing to audit")
    segments = _segments(db, segment) if segment is not None else None
    universe = design(universe, budget, seed, segments)
    audited = universe.loc[universe["sampled"] & ~universe["known"], PAIR]
    with store.write_transaction(db, action="audit") as conn:
        sample_id = machine_tables.add_audit_sample(conn, {
            "judge": judge, "budget": int(budget), "relevance": int(relevance), "runs": runs,
            "segment": segment, "seed": int(seed), "pairs": len(audited),
            "created_by": created_by, "created_at": store.utc_now(),
        }, [(r.query_id, r.chunk_id, int(r.position), int(r.known),
             None if pd.isna(r.machine_grade) else int(r.machine_grade), float(r.weight),
             float(r.inclusion), int(r.sampled)) for r in universe.itertuples()])
        queued = queue.enqueue_pairs(db, map(tuple, audited.to_numpy()), reason=AUDIT_REASON)
        # An audited pair already waiting in the labeling queue moves to the audit queue.
        label_queue.move_to_reason(conn, list(audited.itertuples(index=False, name=None)),
                                   AUDIT_REASON)
    machine_only = universe.loc[~universe["known"]]
    return AuditDraw(int(sample_id), universe["query_id"].nunique(), len(universe),
                     int(universe["known"].sum()), len(machine_only), int(budget),
                     len(audited), int(queued))


def design(
    universe: pd.DataFrame, budget: int, seed: int, segments: dict[str, str] | None = None
) -> pd.DataFrame:
    """``universe`` (``plan_universe``) with ``inclusion`` and ``sampled`` columns: exactly
    ``budget`` open pairs are audited (every open pair when there are fewer), shared by the
    segment values of ``segments`` when given in proportion to their open pairs (largest
    remainders); the stored inclusion probabilities are those of the exact-size design
    (``prediction_powered.draw_exact``), drawn with ``numpy.random.default_rng(seed)``."""
    universe = universe.copy()
    open_ = ~universe["known"].to_numpy()
    strata = np.full(len(universe), "")
    if segments is not None:
        strata = universe["query_id"].map(segments).fillna("(missing)").to_numpy(dtype=str)
    names, counts = np.unique(strata[open_], return_counts=True)
    shares = _allocate(min(int(budget), int(open_.sum())), counts)
    rng = np.random.default_rng(seed)
    inclusion = np.ones(len(universe))
    sampled = universe["known"].to_numpy().copy()
    for name, share in zip(names, shares, strict=True):
        rows = np.flatnonzero(open_ & (strata == name))
        first = prediction_powered.inclusion_probabilities(
            universe["weight"].to_numpy()[rows], float(share))
        taken, exact = _exact_in_queries(universe["query_id"].to_numpy()[rows], first,
                                         int(share), rng)
        inclusion[rows], sampled[rows] = exact, taken
    universe["inclusion"] = inclusion
    universe["sampled"] = sampled
    return universe


def _allocate(size: int, counts: np.ndarray) -> np.ndarray:
    """``size`` split in proportion to ``counts``, whole numbers by largest remainders."""
    if not len(counts):
        return np.zeros(0, dtype=np.int64)
    exact = size * counts / counts.sum()
    shares = np.floor(exact).astype(np.int64)
    order = np.argsort(-(exact - shares), kind="stable")
    shares[order[: size - int(shares.sum())]] += 1
    return shares


def _exact_in_queries(query_ids: np.ndarray, inclusion: np.ndarray, size: int,
                      rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Of open pairs in audit order (grouped by query), which are audited in an exact-size
    nested draw and their inclusion probabilities under it."""
    starts = np.flatnonzero(np.r_[True, query_ids[1:] != query_ids[:-1]])
    lengths = np.diff(np.r_[starts, len(query_ids)])
    column = np.arange(len(query_ids)) - np.repeat(starts, lengths)
    row = np.repeat(np.arange(len(starts)), lengths)
    grid = np.zeros((len(starts), int(lengths.max()) if len(lengths) else 0))
    grid[row, column] = inclusion
    drawn = prediction_powered.draw_exact(grid, size, rng)
    return column < drawn.sizes[row], drawn.inclusion[row, column]


# ---------------------------------------------------------------------------------------------
# Reading


def samples(db: sqlite_utils.Database, judge: str | None = None) -> pd.DataFrame:
    """The audit samples (of ``judge`` when given), newest first: id, judge, budget, pairs,
    verified (audited pairs people have graded), waiting, relevance, runs, segment, seed,
    created_by, created_at."""
    frame = machine_tables.audit_samples_table(db, judge)
    progress = [audit_progress(db, int(i)) for i in frame["id"]]
    frame.insert(4, "verified", [p.judged for p in progress])
    frame.insert(5, "waiting", [p.waiting for p in progress])
    return frame


def sample_row(db: sqlite_utils.Database, sample_id: int) -> dict:
    """The ``audit_samples`` row of ``sample_id`` (runs decoded)."""
    row = machine_tables.audit_sample(db, sample_id)
    if row is None:
        raise ScorecardError(f"no audit sample {sample_id}")
    return row

def sample_pairs(db: sqlite_utils.Database, sample_id: int) -> pd.DataFrame:
    """Every pair of a sample in audit order: query_id, chunk_id, position, known (bool),
    machine_grade (Int64), weight, inclusion, sampled (bool)."""
    frame = machine_tables.audit_pairs_table(db, sample_id)
    return frame.astype({"query_id": "string", "chunk_id": "string", "known": bool,
                         "machine_grade": "Int64", "sampled": bool})


@dataclass(frozen=True)
class AuditProgress:
    """Of a sample's ``drawn`` pairs, how many have a person's grade now (``judged``) and how
    many still wait (``waiting``)."""

    drawn: int
    judged: int

    @property
    def waiting(self) -> int:
        return self.drawn - self.judged

    @property
    def complete(self) -> bool:
        return self.waiting == 0


def audit_progress(db: sqlite_utils.Database, sample_id: int) -> AuditProgress:
    """How far people are with a sample's audited pairs (a person's current grade counts)."""
    drawn, judged = machine_tables.audit_counts(db, sample_id)
    return AuditProgress(int(drawn), int(judged))
