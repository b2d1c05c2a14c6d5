"""Which unjudged pairs decide between two runs, and how their comparison narrows as labels come.

Conventions
- A comparison is the baseline ``controls.run`` against a candidate on one measure, under the
  controls' policy, split, consensus rule and relevance threshold, at the chunk unit (a chunk is
  what gets judged). Differences are candidate - baseline over the evaluated queries (those
  with at least one label).
- The pairs in play are the unjudged (query, chunk) pairs in the top k of either run, k being
  the measure's cutoff (``controls.k`` for a measure without one).
- A pair's *leverage* is how far the mean difference moves when that pair is judged at the
  scale's top grade instead of grade 0, every other label as it is; the metric engine computes
  it exactly, one pseudo-query per pair. Positive: a relevant verdict helps the candidate. Pairs
  are ordered by absolute leverage, then by their best rank in either run (disagreements in the
  top ranks first), then by ids: the idea of Carterette, Allan & Sitaraman's "Minimal test
  collections for retrieval evaluation" (SIGIR 2006), judge what can change the comparison.
- The *label range* is the mean difference if every pair in play fell against the candidate
  (top grade where a relevant verdict helps the baseline, 0 where it helps the candidate) and if
  every one fell for it. The comparison's *interval* runs from the lower end of the paired t
  interval (``CONFIDENCE``) under the first completion to the upper end under the second: what
  the difference can be whatever the unjudged pairs turn out to be, allowing for the sampling
  of queries. A judgment puts the truth where an extreme was, so the range narrows (by the
  pair's leverage for measures that add up over ranks, such as P@k and DCG@k; usually so for
  normalised ones, whose denominators move too).
- History: the same comparison on the labels as they stood after each of a set of judgments
  (judgments are append-only, so the labels of any past moment are known).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from labeling.errors import ScorecardError
from labeling.evaluation.inputs.label_sets import labels_for
from labeling.evaluation.inputs.ranked_runs import load_run
from labeling.evaluation.inputs.result_cache import _CACHE, _run_version, _workspace, labels_version
from labeling.evaluation.inputs.score_controls import CONFIDENCE, Controls
from labeling.evaluation.inputs.segmenting import query_table
from labeling.judging import consensus, queue
from labeling.metrics.engine import evaluate, ranked_list
from labeling.metrics.measures import parse_measure
from labeling.workspace import grading, provenance, store
from labeling.workspace import judgments as stored_judgments

if TYPE_CHECKING:
    import sqlite_utils

QUEUE_REASON = "decide"
DEFAULT_BATCH = 20
HISTORY_POINTS = 12
LEVERAGE_TOLERANCE = 1e-12
PAIR_COLUMNS = ["query_id", "chunk_id", "baseline_rank", "candidate_rank", "leverage"]


@dataclass(frozen=True)
class ComparisonState:
    """One comparison on one set of labels (see the module docstring); ``judgments``: judgment
    rows recorded up to these labels; ``in_play``: unjudged pairs in the top k of either run."""

    measure: str
    n: int
    difference: float
    ci_low: float
    ci_high: float
    label_low: float
    label_high: float
    low: float
    high: float
    in_play: int
    judgments: int

    @property
    def width(self) -> float:
        return self.high - self.low

    def row(self) -> dict:
        """The state as one table row, with its width and verdict."""
        return {**asdict(self), "width": self.width, "verdict": self.verdict}

    @property
    def verdict(self) -> str:
        """``candidate better``, ``candidate worse`` or ``undecided`` (the interval holds 0)."""
        if self.low > 0:
            return "candidate better"
        if self.high < 0:
            return "candidate worse"
        return "undecided"


@dataclass(frozen=True)
class ComparisonSetup:
    """What a comparison is computed under: ``measure`` as the engine names it (relevance
    threshold written out), the cutoff ``k`` of the pairs in play, the unjudged policy and
    the scale's top grade."""

    measure: str
    k: int
    judged_only: bool
    top_grade: int


def comparison_setup(
    db: sqlite_utils.Database, controls: Controls, measure: str
) -> ComparisonSetup:
    """The setup of a comparison on ``measure`` under ``controls`` in this workspace."""
    name = controls.with_measures([measure]).measures[0]
    scale = grading.get_scale(db)
    if not scale:
        raise ScorecardError("the workspace has no grading scale")
    cutoff = parse_measure(name).cutoff
    return ComparisonSetup(name, int(cutoff or controls.k), controls.judged_only, int(scale[-1][0]))


def _split_qrels(db: sqlite_utils.Database, qrels: pd.DataFrame, split: str) -> pd.DataFrame:
    if split == "all":
        return qrels
    splits = query_table(db)["split"]
    wanted = set(splits.index[(splits == split).fillna(False).to_numpy(dtype=bool)])
    return qrels.loc[qrels["query_id"].isin(wanted)]


def _values(qrels: pd.DataFrame, run: pd.DataFrame, setup: ComparisonSetup) -> pd.Series:
    result = evaluate(qrels, run, [setup.measure], judged_only=setup.judged_only)
    values = result.per_query[setup.measure]
    values.index = values.index.astype("string")
    return values


Runs = tuple[pd.DataFrame, pd.DataFrame]  # (baseline, candidate) frames


def _pairs_in_play(qrels: pd.DataFrame, runs: Runs,
                   setup: ComparisonSetup) -> tuple[pd.DataFrame, Runs]:
    """Unjudged pairs in either run's top k (with each run's rank, NaN when not there) and the
    runs as the engine orders them (query_id, doc_id, score, rank), evaluated queries only."""
    ranked, tops = [], []
    for run in runs:
        rows = ranked_list(qrels, run)[["query_id", "doc_id", "score", "rank", "grade"]]
        rows = rows.astype({"query_id": "string", "doc_id": "string"})
        ranked.append(rows[["query_id", "doc_id", "score", "rank"]])
        top = rows.loc[(rows["rank"] <= setup.k) & rows["grade"].isna(),
                       ["query_id", "doc_id", "rank"]]
        tops.append(top)
    pairs = tops[0].merge(tops[1], on=["query_id", "doc_id"], how="outer",
                          suffixes=("_baseline", "_candidate"))
    pairs = pairs.rename(columns={"doc_id": "chunk_id", "rank_baseline": "baseline_rank",
                                  "rank_candidate": "candidate_rank"})
    return pairs.reset_index(drop=True), (ranked[0], ranked[1])


def _expanded_values(qrels: pd.DataFrame, run: pd.DataFrame, pairs: pd.DataFrame, grade: int,
                     setup: ComparisonSetup) -> np.ndarray:
    """Per pair: the run's value on the pair's query with that pair judged ``grade``."""
    ids = pd.DataFrame({"pid": np.arange(len(pairs)).astype(str),
                        "query_id": pairs["query_id"].to_numpy()})
    if not setup.judged_only and parse_measure(setup.measure).cutoff is not None:
        run = run.loc[run["rank"] <= setup.k]  # deeper rows cannot change a cut measure
    labelled = qrels.merge(ids, on="query_id")
    added = pd.DataFrame({"pid": ids["pid"], "doc_id": pairs["chunk_id"].to_numpy(),
                          "relevance": grade})
    expanded_qrels = pd.concat([labelled[["pid", "doc_id", "relevance"]], added],
                               ignore_index=True).rename(columns={"pid": "query_id"})
    expanded_run = run.merge(ids, on="query_id")[["pid", "doc_id", "score"]]
    values = _values(expanded_qrels, expanded_run.rename(columns={"pid": "query_id"}), setup)
    return values.reindex(ids["pid"].astype("string")).fillna(0.0).to_numpy()


def _leverage(qrels: pd.DataFrame, runs: Runs, pairs: pd.DataFrame,
              n: int, setup: ComparisonSetup) -> np.ndarray:
    if pairs.empty:
        return np.zeros(0)
    a, b = runs
    top = (_expanded_values(qrels, b, pairs, setup.top_grade, setup)
           - _expanded_values(qrels, a, pairs, setup.top_grade, setup))
    zero = (_expanded_values(qrels, b, pairs, 0, setup)
            - _expanded_values(qrels, a, pairs, 0, setup))
    leverage = (top - zero) / n
    leverage[np.abs(leverage) < LEVERAGE_TOLERANCE] = 0.0  # rounding, not a real effect
    return leverage


def _ordered(pairs: pd.DataFrame) -> pd.DataFrame:
    best = pairs[["baseline_rank", "candidate_rank"]].min(axis=1)
    order = pd.DataFrame({"size": -pairs["leverage"].abs(), "best": best,
                          "query_id": pairs["query_id"], "chunk_id": pairs["chunk_id"]})
    return pairs.loc[order.sort_values(["size", "best", "query_id", "chunk_id"]).index]


def _differences(qrels: pd.DataFrame, runs: Runs,
                 setup: ComparisonSetup) -> pd.Series:
    a, b = (_values(qrels, run, setup) for run in runs)
    return (b - a.reindex(b.index).fillna(0.0)).astype("float64")


def _completed(qrels: pd.DataFrame, pairs: pd.DataFrame, relevant: np.ndarray,
               setup: ComparisonSetup) -> pd.DataFrame:
    added = pd.DataFrame({"query_id": pairs["query_id"].to_numpy(),
                          "doc_id": pairs["chunk_id"].to_numpy(),
                          "relevance": np.where(relevant, setup.top_grade, 0)})
    return pd.concat([qrels[["query_id", "doc_id", "relevance"]], added], ignore_index=True)


def _interval(values: np.ndarray) -> tuple[float, float]:
    from scipy import stats  # lazy: seconds to import
    n = len(values)
    if n < 2:
        return math.nan, math.nan
    mean, se = float(values.mean()), float(values.std(ddof=1)) / math.sqrt(n)
    margin = float(stats.t.ppf(0.5 + CONFIDENCE / 2, n - 1)) * se
    return mean - margin, mean + margin


def compare_on(
    qrels: pd.DataFrame, baseline: pd.DataFrame, candidate: pd.DataFrame, setup: ComparisonSetup,
    judgments: int = 0,
) -> tuple[ComparisonState, pd.DataFrame]:
    """The comparison on these labels and the pairs in play, most decisive first."""
    qrels = qrels.astype({"query_id": "string", "doc_id": "string"})
    pairs, runs = _pairs_in_play(qrels, (baseline, candidate), setup)
    now = _differences(qrels, runs, setup)
    n = len(now)
    pairs["leverage"] = _leverage(qrels, runs, pairs, max(n, 1), setup)
    helps = pairs["leverage"].to_numpy() > 0
    hurts = pairs["leverage"].to_numpy() < 0
    against = _differences(_completed(qrels, pairs, hurts, setup), runs, setup)
    for_it = _differences(_completed(qrels, pairs, helps, setup), runs, setup)
    mean = float(now.mean()) if n else math.nan
    ci_low, ci_high = _interval(now.to_numpy())
    ends = [mean, float(against.mean()) if n else math.nan, float(for_it.mean()) if n else math.nan]
    label_low, label_high = min(ends), max(ends)
    low = min(_interval(against.to_numpy())[0], ci_low)
    high = max(_interval(for_it.to_numpy())[1], ci_high)
    state = ComparisonState(setup.measure, n, mean, ci_low, ci_high, label_low, label_high, low,
                            high, len(pairs), judgments)
    return state, _ordered(pairs)[PAIR_COLUMNS].reset_index(drop=True)


# ---------------------------------------------------------------------------------------------
# On a workspace


def _runs(db: sqlite_utils.Database, controls: Controls, candidate: str) -> Runs:
    if candidate == controls.run:
        raise ScorecardError("choose a candidate other than the baseline")
    return load_run(db, controls.run), load_run(db, candidate)


def _judgment_count(db: sqlite_utils.Database) -> int:
    return stored_judgments.judgment_count(db)


def comparison(
    db: sqlite_utils.Database, controls: Controls, candidate: str, measure: str
) -> tuple[ComparisonState, pd.DataFrame]:
    """The comparison of ``controls.run`` with ``candidate`` on ``measure`` now, and the pairs in
    play ordered by leverage (query_id, chunk_id, baseline_rank, candidate_rank, leverage)."""
    setup = comparison_setup(db, controls, measure)
    key = ("deciding", _workspace(db), _run_version(db, controls.run),
           _run_version(db, candidate), labels_version(db), controls, candidate, setup)

    def compute() -> tuple[ComparisonState, pd.DataFrame]:
        qrels = _split_qrels(db, labels_for(db, controls).qrels, controls.split)
        return compare_on(qrels, *_runs(db, controls, candidate), setup, _judgment_count(db))

    return _CACHE.get(key, compute)


def decisive(pairs: pd.DataFrame) -> pd.DataFrame:
    """The pairs (as ``comparison`` orders them) whose judgment can move the difference."""
    return pairs.loc[pairs["leverage"] != 0]


def send_deciding_pairs(
    db: sqlite_utils.Database,
    controls: Controls,
    candidate: str,
    measure: str,
    *,
    limit: int = DEFAULT_BATCH,
) -> int:
    """Queue the ``limit`` pairs with the largest leverage (non-zero only) and record that the
    queue brought them (``pair_sources`` source ``queue``, once per pair and comparison);
    returns how many were new in the queue. One transaction: either every pair and its source
    row is written, or none."""
    if limit < 1:
        raise ScorecardError(f"send at least one pair, not {limit}")
    state, pairs = comparison(db, controls, candidate, measure)
    chosen = decisive(pairs).head(int(limit))
    picked = list(zip(chosen["query_id"].astype(str), chosen["chunk_id"].astype(str),
                      strict=True))
    if not picked:
        return 0
    detail = f"decide {controls.run} vs {candidate} on {state.measure}"
    with store.write_transaction(db, action="enqueue") as conn:
        new = queue.enqueue_pairs(db, picked, reason=QUEUE_REASON)
        recorded = provenance.queue_pairs_recorded(conn, detail)
        provenance.add_pair_sources(conn, [p for p in picked if p not in recorded], "queue",
                                    detail=detail)
    return int(new)


# ---------------------------------------------------------------------------------------------
# History


def qrels_as_of(db: sqlite_utils.Database, rule: str, last_id: int) -> pd.DataFrame:
    """The consensus qrels under ``rule`` as they stood after judgment ``last_id``: the current
    judgments of that moment (each annotator's latest row per pair), by the same rule."""
    frame = pd.DataFrame(stored_judgments.current_judgments_as_of(db, last_id),
                         columns=list(stored_judgments.AS_OF_COLUMNS)).astype({
        "id": "int64", "query_id": "string", "chunk_id": "string", "grade": "int64",
        "annotator": "string", "adjudicated": "bool", "generator": "bool",
    })
    pairs = consensus.consensus(frame, rule)
    return pairs.rename(columns={"chunk_id": "doc_id", "grade": "relevance"})


def checkpoints(db: sqlite_utils.Database, points: int = HISTORY_POINTS) -> list[tuple[int, int]]:
    """(judgments so far, last judgment id) at up to ``points`` moments evenly spread over the
    judgment log, the latest always included."""
    ids = np.array(stored_judgments.judgment_ids(db))
    if len(ids) == 0:
        return []
    positions = np.unique(np.linspace(0, len(ids) - 1, max(points, 1)).round().astype(int))
    return [(int(p) + 1, int(ids[p])) for p in positions]


def history(
    db: sqlite_utils.Database,
    controls: Controls,
    candidate: str,
    measure: str,
    *,
    points: int = HISTORY_POINTS,
) -> pd.DataFrame:
    """The comparison at each checkpoint (``checkpoints``): judgments, n, difference, ci_low,
    ci_high, label_low, label_high, low, high, in_play, one row per checkpoint."""
    setup = comparison_setup(db, controls, measure)
    key = ("deciding-history", _workspace(db), _run_version(db, controls.run),
           _run_version(db, candidate), labels_version(db), controls, candidate, setup, points)

    def compute() -> pd.DataFrame:
        runs = _runs(db, controls, candidate)
        rows = []
        for count, last_id in checkpoints(db, points):
            qrels = _split_qrels(db, qrels_as_of(db, controls.rule, last_id), controls.split)
            state, _ = compare_on(qrels, *runs, setup, count)
            rows.append(asdict(state))
        columns = [f for f in ComparisonState.__dataclass_fields__ if f != "measure"]
        return pd.DataFrame(rows, columns=["measure", *columns]).drop(columns="measure")

    return _CACHE.get(key, compute)


