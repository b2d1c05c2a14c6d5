"""The judging budget: how many queries and judgments a comparison needs, and what they cost.

Conventions
- The plan is for one measure and a baseline run (``controls.run``), usually against a
  candidate: the spread that decides everything is ``sd``, the standard deviation of the
  per-query paired differences (candidate - baseline) on the workspace's evaluated queries.
  Without a candidate it is sqrt(2) times the baseline's per-query standard deviation, the
  spread of the difference of two uncorrelated runs (runs that agree on easy and hard queries
  differ less, so this overstates what is needed).
- Queries needed: the fewest n whose paired t-test reaches ``power`` at level ``alpha`` for a
  true difference ``difference`` (``labeling.metrics.power``; Sakai, "Topic set size design",
  2016). ``sides=2`` asks "do the runs differ by ``difference``?"; the regression gate asks a
  one-sided question, where ``difference`` is the distance between the true drop and the
  allowed one (``gate_difference``). Planning for the gate (``max_drop``), the formula's count
  is checked by simulating the gate itself on the candidate's own paired differences (their
  ties and skew kept) and raised until the gate reaches the power
  (``labeling.metrics.non_inferiority.queries_for_simulated_power``): the gate's test is stricter
  than a t-test on skewed differences. The trade-off table and the segments use the formula.
- Judgments: a query's pool at depth D is the union of the top D chunks of the planned runs
  (baseline and candidate). The pool size per query is the mean over the queries the runs
  answered. Judgments needed = queries needed x mean pool size; to judge = the unjudged pairs of
  the pools of the evaluated queries (pro rata when fewer queries are needed than there are)
  plus full pools for the further queries.
- Hours at the team's measured pace (``labeling.judging.pace``, median seconds per card of the
  judgments people made in the app), or its default when nobody's cards are timed. Machine
  judges: one call per pair to judge, tokens ``machine_judge_tokens`` (query and passage text
  plus ``PROMPT_OVERHEAD_TOKENS``).
- The trade-off table asks the same question of the measure cut at each depth D (``nDCG@D`` for
  ``nDCG@10``): its sd on the workspace's labels, the queries it needs, and the judgments at
  pool depth D. Judged@D over the baseline's filled slots says how complete the labels behind
  each sd are; empty slots (the run returned fewer than D results) are reported apart and
  never counted as unjudged. Webber, Moffat & Zobel ("Statistical power in retrieval
  experimentation", CIKM 2008) found more queries judged shallowly give more power for the
  same judging effort than fewer judged deeply.
- Per segment (``segment``): each segment's own sd and the queries it needs at level
  alpha / m for m segments (Bonferroni, the first step of Holm: enough for Holm's correction).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from labeling.errors import ScorecardError
from labeling.evaluation.inputs.label_sets import label_snapshot
from labeling.evaluation.inputs.ranked_runs import load_run
from labeling.evaluation.inputs.score_controls import ALPHA, NO_SEGMENT, POWER, Controls
from labeling.evaluation.inputs.segmenting import _segments, query_table
from labeling.evaluation.scores import judged_coverage
from labeling.evaluation.scores.run_comparison import paired_scores
from labeling.evaluation.scores.scoring import per_query
from labeling.judging import pace
from labeling.metrics import non_inferiority
from labeling.metrics import power as power_calc
from labeling.metrics.measures import KINDS, Measure, parse_measure
from labeling.model_calls.tokens import estimate_tokens
from labeling.workspace import chunk_store

if TYPE_CHECKING:
    import sqlite_utils

DEFAULT_POOL_DEPTH = 10
TRADEOFF_DEPTHS = (1, 2, 3, 5, 10, 20, 50, 100)
# A judging prompt's fixed part: instructions, the grade scale and a one-line answer, about
# 1,200 characters, i.e. 300 tokens at ``labeling.model_calls.tokens``' 4 characters per token.
PROMPT_OVERHEAD_TOKENS = 300
CURVE_POINTS = 40


@dataclass(frozen=True)
class Pace:
    """Seconds per card used for hours, and where the figure comes from (a sentence)."""

    seconds_per_card: float
    source: str


@dataclass(frozen=True)
class JudgingPlan:
    """What detecting ``difference`` on ``measure`` takes; see the module docstring."""

    measure: str
    baseline: str
    candidate: str | None
    difference: float
    power: float
    alpha: float
    sides: int
    pool_depth: int
    sd: float
    sd_source: str
    queries_have: int
    queries_needed: int
    formula_queries: int
    max_drop: float | None
    simulated_power: float | None
    detectable_now: float
    pool_per_query: float
    judgments_needed: int
    to_judge: int
    pace: Pace
    hours: float
    machine_calls: int
    machine_tokens: int
    tradeoff: pd.DataFrame = field(compare=False, repr=False)
    curve: pd.DataFrame = field(compare=False, repr=False)
    segments: pd.DataFrame = field(compare=False, repr=False)

    @property
    def more_queries(self) -> int:
        return max(0, self.queries_needed - self.queries_have)

    def sentences(self) -> list[str]:
        """The plan in plain sentences, each saying what its number is made of."""
        versus = f"{self.candidate} against {self.baseline}" if self.candidate else self.baseline
        if self.max_drop is None:
            goal = (f"Detecting a true difference of {self.difference:.3f} on {self.measure} "
                    f"({versus}) with {self.power:.0%} power in a two-sided paired t-test "
                    f"at level {self.alpha:g}")
        else:
            goal = (f"Catching a true drop of {self.max_drop + self.difference:.3f} on "
                    f"{self.measure} ({versus}) with the gate's allowed drop "
                    f"{self.max_drop:g}, {self.power:.0%} power, one-sided level {self.alpha:g}")
        now = (f"detect {self.detectable_now:.3f} or more" if self.max_drop is None else
               f"catch a true drop of {self.max_drop + self.detectable_now:.3f} or more")
        first = (f"{goal} takes {self.queries_needed:,} queries; you have "
                 f"{self.queries_have:,}, which {now} ({self.sd_source}).")
        if self.simulated_power is not None:
            first += (f" The paired t formula says {self.formula_queries:,}; simulating the "
                      f"gate on {self.candidate}'s own differences (their ties and skew kept, "
                      f"{non_inferiority.PLANNING_TRIALS} trials) gives {self.simulated_power:.0%} "
                      f"power at {self.queries_needed:,}.")
        elif self.max_drop is not None:
            first += " Without a candidate run the gate cannot be simulated: paired t formula."
        return [
            first,
            f"At pool depth {self.pool_depth} (the top {self.pool_depth} of the planned runs, "
            f"{self.pool_per_query:.1f} chunks per query) that is {self.judgments_needed:,} "
            f"judgments, {self.to_judge:,} of them not judged yet.",
            f"Judging them takes {self.hours:,.1f} hours at {self.pace.seconds_per_card:.0f} s "
            f"per card ({self.pace.source}).",
            f"A machine judge would make {self.machine_calls:,} calls, about "
            f"{self.machine_tokens:,} tokens (query and passage text plus "
            f"{PROMPT_OVERHEAD_TOKENS} tokens of prompt per call).",
        ]


def gate_difference(max_drop: float, true_drop: float | None = None) -> float:
    """The one-sided planning distance of the gate: a true drop (twice the allowed one unless
    given) minus the allowed drop."""
    true_drop = 2.0 * max_drop if true_drop is None else true_drop
    if not (0 < max_drop < true_drop < math.inf):  # also refuses nan
        raise ScorecardError(f"plan for a true drop ({true_drop}) larger than the allowed drop "
                             f"({max_drop}), which must be positive")
    return true_drop - max_drop


def planning_pace(db: sqlite_utils.Database) -> Pace:
    """The team's median seconds per card, or the default with the reason."""
    timed = sum(p.cards_timed for p in pace.judging_pace(db))
    default = pace.DEFAULT_SECONDS_PER_CARD
    if timed == 0:
        return Pace(default, f"the default {default:.0f} s: no judging session is timed yet")
    return Pace(pace.team_seconds_per_card(db), f"the team's median over {timed:,} timed cards")


def machine_judge_tokens(
    texts: Iterable[tuple[str, str]], overhead: int = PROMPT_OVERHEAD_TOKENS
) -> int:
    """Estimated tokens of judging each (query text, passage text) pair in one call."""
    return sum(estimate_tokens(q) + estimate_tokens(c) + overhead for q, c in texts)


# ---------------------------------------------------------------------------------------------
# Pools


def pair_depths(db: sqlite_utils.Database, runs: Sequence[str], split: str) -> pd.DataFrame:
    """Every (query_id, chunk_id) the runs return, with its best rank in any of them (ranks by
    score descending, ties by chunk id descending: the engine's order); queries of ``split``."""
    frames = []
    for run in runs:
        frame = load_run(db, run)[["query_id", "doc_id", "score"]]
        frame = frame.sort_values(["query_id", "score", "doc_id"],
                                  ascending=[True, False, False], kind="stable")
        frames.append(frame.assign(rank=frame.groupby("query_id").cumcount() + 1))
    both = pd.concat(frames, ignore_index=True)
    if split != "all":
        splits = query_table(db)["split"]
        both = both.loc[both["query_id"].map(splits).eq(split).fillna(False).to_numpy(bool)]
    best = both.groupby(["query_id", "doc_id"], as_index=False, sort=False)["rank"].min()
    return best.rename(columns={"doc_id": "chunk_id"})


def _judged_mask(db: sqlite_utils.Database, pairs: pd.DataFrame, rule: str) -> np.ndarray:
    qrels = label_snapshot(db, rule).qrels
    judged = pd.MultiIndex.from_frame(qrels[["query_id", "doc_id"]].astype("string"))
    keys = pd.MultiIndex.from_frame(pairs[["query_id", "chunk_id"]].astype("string"))
    return keys.isin(judged)


def _texts(db: sqlite_utils.Database, pairs: pd.DataFrame) -> list[tuple[str, str]]:
    queries = query_table(db)["text"].fillna("")
    chunk_ids = pairs["chunk_id"].astype(str).unique().tolist()
    texts = {c: text or "" for c, text in chunk_store.chunk_texts_of(db, chunk_ids).items()}
    return [(str(queries.get(q, "")), texts.get(str(c), ""))
            for q, c in zip(pairs["query_id"], pairs["chunk_id"], strict=True)]


@dataclass(frozen=True)
class _Work:
    """The judging a plan implies at one pool depth (see the module docstring)."""

    pool: pd.DataFrame  # the pool's pairs (query_id, chunk_id, rank)
    unjudged: pd.DataFrame  # its unjudged pairs of evaluated queries
    per_query: float  # mean pool size per answered query
    share: float  # share of the evaluated queries the plan keeps
    extra: int  # further queries the plan needs
    judgments: int  # judgments of the whole plan
    to_judge: int  # of those, not judged yet


def _work(depths: pd.DataFrame, judged: np.ndarray, evaluated: set[str], needed: int,
          depth: int) -> _Work:
    inside = (depths["rank"] <= depth).to_numpy()
    pool = depths.loc[inside]
    per_query = len(pool) / max(pool["query_id"].nunique(), 1)
    mine = pool["query_id"].isin(evaluated).to_numpy()
    unjudged = pool.loc[mine & ~judged[inside]]
    have = max(len(evaluated), 1)
    share, extra = min(needed, have) / have, max(0, needed - have)
    return _Work(pool, unjudged, per_query, share, extra, math.ceil(needed * per_query),
                 math.ceil(share * len(unjudged) + extra * per_query))


# ---------------------------------------------------------------------------------------------
# Spread of the differences


def _differences(db: sqlite_utils.Database, controls: Controls, candidate: str | None,
                 measure: str) -> tuple[pd.Series, str]:
    """Per-query paired differences and a phrase saying where the spread comes from. Without
    a candidate, the baseline's values times sqrt(2) stand in (see the module docstring)."""
    if candidate:
        frame = paired_scores(db, controls, candidate, measure)
        return frame["difference"], "sd {sd:.3f} of the paired differences on {n} queries"
    column = controls.with_measures([measure]).measures[0]
    values = per_query(db, controls.with_measures([measure]))[column]
    return (values * math.sqrt(2.0), "sd {sd:.3f}: sqrt(2) x the baseline's per-query sd on "
            "{n} queries, no candidate to pair with")


def _sd(values: pd.Series) -> float:
    return float(values.std(ddof=1)) if len(values) > 1 else math.nan


def _measure_at(measure: str, depth: int) -> str | None:
    parsed = parse_measure(measure)
    if KINDS[parsed.kind].cutoff == "none":
        return None
    return str(Measure(parsed.kind, depth, parsed.params))


# ---------------------------------------------------------------------------------------------
# The plan


def plan(
    db: sqlite_utils.Database,
    controls: Controls,
    measure: str,
    difference: float,
    *,
    candidate: str | None = None,
    power: float = POWER,
    alpha: float = ALPHA,
    sides: int = 2,
    pool_depth: int = DEFAULT_POOL_DEPTH,
    segment: str = NO_SEGMENT,
    max_drop: float | None = None,
) -> JudgingPlan:
    """The judging plan for detecting ``difference`` on ``measure`` (module docstring). With
    ``max_drop`` it plans for the regression gate: a one-sided test catching a true drop of
    ``max_drop + difference``, the formula's count checked by simulating the gate on the
    candidate's own paired differences (``labeling.metrics.non_inferiority``)."""
    if max_drop is not None:
        sides = 1
    if pool_depth < 1:
        raise ScorecardError(f"the pool depth is at least 1, not {pool_depth}")
    if candidate == controls.run:
        candidate = None
    name = controls.with_measures([measure]).measures[0]
    diffs, source = _differences(db, controls, candidate, measure)
    n_have, sd = len(diffs), _sd(diffs)
    if math.isnan(sd):
        raise ScorecardError(f"{name} has fewer than two evaluated queries: label more queries "
                             "before planning")
    formula = power_calc.queries_for_power(difference, sd, power=power, alpha=alpha,
                                           sides=sides)
    needed, simulated = formula, None
    if max_drop is not None and candidate:
        needed, simulated = non_inferiority.queries_for_simulated_power(
            diffs.to_numpy(), formula, true_change=-(max_drop + difference), max_drop=max_drop,
            power=power, alpha=alpha)
    runs = [controls.run] + ([candidate] if candidate else [])
    depths = pair_depths(db, runs, controls.split)
    judged = _judged_mask(db, depths, controls.rule)
    work = _work(depths, judged, set(diffs.index), needed, pool_depth)
    tokens = _machine_tokens(db, work)
    speed = planning_pace(db)
    return JudgingPlan(
        measure=name, baseline=controls.run, candidate=candidate, difference=difference,
        power=power, alpha=alpha, sides=sides, pool_depth=pool_depth, sd=sd,
        sd_source=source.format(sd=sd, n=n_have), queries_have=n_have, queries_needed=needed,
        formula_queries=formula, max_drop=max_drop, simulated_power=simulated,
        detectable_now=power_calc.detectable_difference(sd, n_have, power=power, alpha=alpha,
                                                        sides=sides),
        pool_per_query=work.per_query, judgments_needed=work.judgments,
        to_judge=work.to_judge, pace=speed,
        hours=pace.hours_for(work.to_judge, speed.seconds_per_card),
        machine_calls=work.to_judge, machine_tokens=tokens,
        tradeoff=tradeoff(db, controls, candidate, measure, difference, depths, judged, speed,
                          power=power, alpha=alpha, sides=sides),
        curve=detectable_curve(sd, max(needed, n_have), power=power, alpha=alpha, sides=sides),
        segments=segment_plan(db, controls, candidate, measure, difference, segment,
                              power=power, alpha=alpha, sides=sides),
    )


def _machine_tokens(db: sqlite_utils.Database, work: _Work) -> int:
    """Tokens a machine judge would read for the plan's judging: its share of the unjudged
    pairs' prompts, plus the extra queries' pools at the pool's mean tokens per pair."""
    texts = _texts(db, work.pool)
    tokens_per_pair = machine_judge_tokens(texts) / len(texts) if texts else 0.0
    unjudged_tokens = machine_judge_tokens(_texts(db, work.unjudged))
    return math.ceil(work.share * unjudged_tokens
                     + work.extra * work.per_query * tokens_per_pair)


def tradeoff(
    db: sqlite_utils.Database,
    controls: Controls,
    candidate: str | None,
    measure: str,
    difference: float,
    depths: pd.DataFrame,
    judged: np.ndarray,
    speed: Pace,
    *,
    power: float = POWER,
    alpha: float = ALPHA,
    sides: int = 2,
) -> pd.DataFrame:
    """Queries and judgments against pool depth: depth, measure (cut at the depth), judged
    (the share of the baseline's filled top-depth slots that are judged), empty (the share of
    its top-depth slots left empty: it returned fewer results; never counted as unjudged),
    sd, queries_needed, pool_per_query, judgments (the whole plan), to_judge (not judged yet),
    hours (of to_judge). One row per depth of
    ``TRADEOFF_DEPTHS`` up to the deepest rank the runs return; none for a measure without a
    cutoff. ``depths`` and ``judged`` as ``pair_depths`` and its judged mask give them."""
    columns = ["depth", "measure", "judged", "empty", "sd", "queries_needed",
               "pool_per_query", "judgments", "to_judge", "hours"]
    deepest = int(depths["rank"].max()) if len(depths) else 0
    rows = []
    for depth in sorted({d for d in TRADEOFF_DEPTHS if d <= deepest}):
        name = _measure_at(measure, depth)
        if name is None:
            break
        diffs, _ = _differences(db, controls, candidate, name)
        sd = _sd(diffs)
        if math.isnan(sd):
            continue
        judged_share, empty_share = _slot_shares(db, controls, depth)
        needed = power_calc.queries_for_power(difference, sd, power=power, alpha=alpha,
                                              sides=sides)
        work = _work(depths, judged, set(diffs.index), needed, depth)
        rows.append({"depth": depth, "measure": name, "judged": judged_share,
                     "empty": empty_share,
                     "sd": sd,
                     "queries_needed": needed, "pool_per_query": work.per_query,
                     "judgments": work.judgments, "to_judge": work.to_judge,
                     "hours": pace.hours_for(work.to_judge, speed.seconds_per_card)})
    return pd.DataFrame(rows, columns=columns)


def _slot_shares(db: sqlite_utils.Database, controls: Controls, depth: int) -> tuple[float,
                                                                                     float]:
    """(judged share of the filled slots, empty share of all slots) of the baseline's top
    ``depth`` over the evaluated queries (``judged_coverage.coverage``)."""
    row = judged_coverage.coverage(db, replace(controls, k=depth), [controls.run],
                                   query_table(db)).iloc[0]
    judged_slots = row["judged"] * row["slots"]
    share = judged_slots / row["slots_filled"] if row["slots_filled"] else math.nan
    return float(share), float(row["short"])


def detectable_curve(
    sd: float, around: int, *, power: float = POWER, alpha: float = ALPHA, sides: int = 2,
    points: int = CURVE_POINTS,
) -> pd.DataFrame:
    """Smallest detectable difference against the number of queries (queries, detectable),
    from 2 to three times ``around`` on a log-spaced grid."""
    top = max(3 * around, 10)
    grid = np.unique(np.geomspace(2, top, points).round().astype(int))
    detectable = [power_calc.detectable_difference(sd, int(n), power=power, alpha=alpha,
                                                   sides=sides) for n in grid]
    return pd.DataFrame({"queries": grid, "detectable": detectable})


def segment_plan(
    db: sqlite_utils.Database,
    controls: Controls,
    candidate: str | None,
    measure: str,
    difference: float,
    segment: str,
    *,
    power: float = POWER,
    alpha: float = ALPHA,
    sides: int = 2,
) -> pd.DataFrame:
    """Per segment value: segment, n, sd, alpha_each (alpha / number of segments),
    queries_needed, more_needed; empty without a segment. A segment with fewer than two
    queries has no sd and needs at least two more."""
    columns = ["segment", "n", "sd", "alpha_each", "queries_needed", "more_needed"]
    if segment == NO_SEGMENT:
        return pd.DataFrame(columns=columns)
    diffs, _ = _differences(db, controls, candidate, measure)
    groups = _segments(query_table(db), segment, diffs.index)
    parts = list(diffs.groupby(groups, sort=True))
    each = alpha / max(len(parts), 1)
    rows = []
    for name, values in parts:
        sd = _sd(values)
        needed = (power_calc.queries_for_power(difference, sd, power=power, alpha=each,
                                               sides=sides) if not math.isnan(sd) else 2)
        rows.append({"segment": str(name), "n": len(values), "sd": sd, "alpha_each": each,
                     "queries_needed": needed, "more_needed": max(0, needed - len(values))})
    return pd.DataFrame(rows, columns=columns)
