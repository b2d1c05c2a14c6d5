"""The noise-aware regression gate: did a run get worse than its baseline by more than allowed?

Conventions
- Each *check* is one measure on one group of queries: all evaluated queries, and with a
  segment attribute also each of its values. On every check the gate runs the one-sided paired
  test of ``labeling.metrics.drop_test`` (change = run - baseline, allowed drop
  ``max_drop``) and reports the two-sided (1 - 2 alpha) interval of the change, whose upper end
  is the one-sided bound the test decides with.
- Holm's step-down correction runs across every testable check (measures x groups), so the
  chance that a gate with no real regression fails stays at most ``alpha`` however many
  measures and segments it watches. Intervals are not adjusted; the decision is by Holm's p.
- Outcomes, in order of precedence:
  ``not enough labels`` (exit 3): in some group Judged@k of the *run* is below ``min_judged``
  (k: the measure's cutoff, ``DEFAULT_K`` for a measure without one) or the group has fewer than
  two evaluated queries. Unjudged results count as not relevant, so a run that retrieves new,
  unjudged chunks looks worse than it is: the gate will not call that a regression.
  ``worse`` (exit 1): some check's Holm-adjusted p is below ``alpha``.
  ``pass`` (exit 0): otherwise; the run was not shown to lose more than ``max_drop``.
  ``bad input`` (exit 2) is the command line's: a refusal before any check runs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd
import sqlite_utils

from labeling.errors import InputError, ScorecardError
from labeling.evaluation.score_controls import (
    DEFAULT_K,
    MISSING,
    NO_SEGMENT,
    OVERALL,
    Controls,
)
from labeling.evaluation.scoring import per_query
from labeling.evaluation.segmenting import _segments, query_table
from labeling.metrics import statistics
from labeling.metrics.drop_test import drop_test
from labeling.metrics.engine import evaluate
from labeling.metrics.measures import parse_measure

PASS, WORSE, NOT_ENOUGH_LABELS, BAD_INPUT = "pass", "worse", "not enough labels", "bad input"
EXIT_CODES = {PASS: 0, WORSE: 1, BAD_INPUT: 2, NOT_ENOUGH_LABELS: 3}
DEFAULT_ALPHA = 0.05
DEFAULT_MIN_JUDGED = 0.9


@dataclass(frozen=True)
class GateSettings:
    """What the gate checks: ``measures`` (engine names), the allowed drop, the level, the
    Judged@k floor of the run and an optional segment attribute (``NO_SEGMENT``: none)."""

    measures: tuple[str, ...]
    max_drop: float
    alpha: float = DEFAULT_ALPHA
    min_judged: float = DEFAULT_MIN_JUDGED
    segment: str = NO_SEGMENT

    def __post_init__(self) -> None:
        if isinstance(self.measures, str):
            object.__setattr__(self, "measures", (self.measures,))
        if not self.measures:
            raise ScorecardError("name at least one measure to gate on")
        for name in self.measures:
            parse_measure(name)  # a MeasureError names the problem
        object.__setattr__(self, "measures", tuple(dict.fromkeys(self.measures)))
        if not (isinstance(self.max_drop, (int, float)) and 0 <= self.max_drop < math.inf):
            raise ScorecardError(f"--max-drop is a number of at least 0, not {self.max_drop}")
        if not 0 < self.alpha < 0.5:
            raise ScorecardError(f"--alpha is between 0 and 0.5, not {self.alpha}")
        if not 0 <= self.min_judged <= 1:
            raise ScorecardError(f"--min-judged is a share between 0 and 1, not "
                                 f"{self.min_judged}")

    def judged_measure(self, measure: str) -> str:
        """The Judged@k that checks the labels behind ``measure``."""
        return f"Judged@{parse_measure(measure).cutoff or DEFAULT_K}"


@dataclass(frozen=True)
class GateCheck:
    """One measure on one group of queries. ``status``: pass, worse or not enough labels;
    ``p`` and ``p_holm`` are NaN when the check could not be tested."""

    measure: str
    group: str
    n: int
    baseline_mean: float
    run_mean: float
    change: float
    low: float
    high: float
    p: float
    p_holm: float
    judged_measure: str
    judged: float
    status: str
    p_t: float = math.nan
    p_bootstrap: float = math.nan


@dataclass(frozen=True)
class GateResult:
    """The gate's outcome, its one-sentence verdict and every check behind it."""

    run: str
    baseline: str
    settings: GateSettings
    checks: tuple[GateCheck, ...]
    outcome: str
    verdict: str
    tests: int = field(default=0)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.outcome]

    @property
    def confidence(self) -> float:
        """Level of the reported intervals (two-sided): 1 - 2 alpha."""
        return 1.0 - 2.0 * self.settings.alpha

    def table(self) -> pd.DataFrame:
        return pd.DataFrame([c.__dict__ for c in self.checks])


# ---------------------------------------------------------------------------------------------
# The decision, on per-query values


def _groups(segments: pd.Series | None, index: pd.Index, segment: str) -> list[tuple[str,
                                                                                    pd.Index]]:
    groups = [(OVERALL, index)]
    if segments is not None and segment != NO_SEGMENT:
        values = segments.reindex(index).fillna(MISSING).astype(str)
        for name in sorted(values.unique()):
            groups.append((f"{segment}={name}", index[values.to_numpy() == name]))
    return groups


def decide(
    run: str,
    baseline: str,
    run_values: pd.DataFrame,
    baseline_values: pd.DataFrame,
    settings: GateSettings,
    segments: pd.Series | None = None,
) -> GateResult:
    """The gate on per-query values (index query_id): ``run_values`` holds each measure of
    ``settings`` and its Judged@k (``settings.judged_measure``), ``baseline_values`` each
    measure; ``segments`` maps query ids to segment values. Queries are those both score."""
    index = run_values.index.intersection(baseline_values.index)
    raw: list[dict] = []
    for measure in settings.measures:
        judged_name = settings.judged_measure(measure)
        for group, queries in _groups(segments, index, settings.segment):
            test = drop_test(baseline_values.loc[queries, measure].to_numpy(),
                             run_values.loc[queries, measure].to_numpy(),
                             max_drop=settings.max_drop, alpha=settings.alpha)
            judged = float(run_values.loc[queries, judged_name].mean()) if len(queries) else 0.0
            raw.append({"measure": measure, "group": group, "n": test.n,
                        "baseline_mean": test.baseline_mean, "run_mean": test.candidate_mean,
                        "change": test.change, "low": test.low, "high": test.high,
                        "p": test.p, "judged_measure": judged_name, "judged": judged,
                        "p_t": test.p_t, "p_bootstrap": test.p_bootstrap})
    testable = [i for i, row in enumerate(raw) if not math.isnan(row["p"])]
    adjusted = statistics.holm([raw[i]["p"] for i in testable]) if testable else []
    for row in raw:
        row["p_holm"] = math.nan
    for i, p in zip(testable, adjusted, strict=True):
        raw[i]["p_holm"] = float(p)
    checks = tuple(GateCheck(**row, status=_status(row, settings)) for row in raw)
    outcome = _outcome(checks)
    return GateResult(run, baseline, settings, checks, outcome,
                      verdict(run, baseline, settings, checks, outcome, len(testable)),
                      tests=len(testable))


def _status(row: dict, settings: GateSettings) -> str:
    if math.isnan(row["p"]) or row["judged"] < settings.min_judged:
        return NOT_ENOUGH_LABELS
    return WORSE if row["p_holm"] < settings.alpha else PASS


def _outcome(checks: Sequence[GateCheck]) -> str:
    statuses = {c.status for c in checks}
    for outcome in (NOT_ENOUGH_LABELS, WORSE):
        if outcome in statuses:
            return outcome
    return PASS


def _where(check: GateCheck) -> str:
    return "all queries" if check.group == OVERALL else check.group


def verdict(run: str, baseline: str, settings: GateSettings, checks: Sequence[GateCheck],
            outcome: str, tests: int) -> str:
    """The outcome in one sentence, with the interval and the number of queries that decide."""
    confidence = 1.0 - 2.0 * settings.alpha
    holm = f" after Holm's correction over {tests} tests" if tests > 1 else ""
    if outcome == NOT_ENOUGH_LABELS:
        short = [c for c in checks if c.status == NOT_ENOUGH_LABELS]
        worst = min(short, key=lambda c: (c.n >= 2, c.judged))
        if worst.n < 2:
            return (f"Not enough labels to decide: {_where(worst)} has {worst.n} evaluated "
                    f"{'query' if worst.n == 1 else 'queries'}, and a paired test needs at "
                    "least two; label more of its queries.")
        return (f"Not enough labels to decide: {worst.judged_measure} of {run} is "
                f"{worst.judged:.0%} on {_where(worst)} ({worst.n} queries), below the floor "
                f"of {settings.min_judged:.0%}; judge its unjudged results before gating, "
                "since unjudged results count as not relevant.")
    if outcome == WORSE:
        c = min((c for c in checks if c.status == WORSE), key=lambda c: c.p_holm)
        return (f"Worse: {run} lost {-c.change:.4f} {c.measure} against {baseline} on "
                f"{_where(c)} ({c.n} queries), at least {-c.high:.4f} with "
                f"{1 - settings.alpha:.0%} confidence, more than the allowed "
                f"{settings.max_drop:g} ({confidence:.0%} interval of the change "
                f"{c.low:+.4f} to {c.high:+.4f}; p = {c.p_holm:.3g}{holm}).")
    c = min(checks, key=lambda c: (c.p_holm, c.measure))
    margin = ("" if -c.low <= settings.max_drop else
              f"; the interval still allows a loss of up to {-c.low:.4f}")
    return (f"Pass: {run} is not shown to lose more than {settings.max_drop:g} against "
            f"{baseline}; closest check {c.measure} on {_where(c)}: change {c.change:+.4f} on "
            f"{c.n} queries, {confidence:.0%} interval {c.low:+.4f} to {c.high:+.4f} "
            f"(p = {c.p_holm:.3g}{holm}){margin}.")


def _needed_measures(settings: GateSettings) -> list[str]:
    judged = [settings.judged_measure(m) for m in settings.measures]
    return list(dict.fromkeys([*settings.measures, *judged]))


# ---------------------------------------------------------------------------------------------
# On a workspace and on files


def gate_stored_runs(
    db: sqlite_utils.Database,
    run: str,
    baseline: str,
    settings: GateSettings,
    *,
    rule: str = "default",
    split: str = "all",
) -> GateResult:
    """The gate on two stored runs, on the workspace's consensus labels under ``rule``
    (policy: unjudged results are not relevant; chunk unit)."""
    if run == baseline:
        raise ScorecardError("the run and its baseline are the same run")
    controls = Controls(baseline, measures=tuple(_needed_measures(settings)), rule=rule,
                        split=split)
    names = dict(zip(_needed_measures(settings), controls.measures, strict=True))
    old = per_query(db, controls).rename(columns={v: k for k, v in names.items()})
    new = per_query(db, controls.for_run(run)).rename(columns={v: k for k, v in names.items()})
    segments = None
    if settings.segment != NO_SEGMENT:
        segments = _segments(query_table(db), settings.segment, new.index)
    return decide(run, baseline, new, old, settings, segments)


def gate_files(
    qrels: pd.DataFrame,
    run: pd.DataFrame,
    baseline: pd.DataFrame,
    settings: GateSettings,
    *,
    names: tuple[str, str] = ("run", "baseline"),
    queries: pd.DataFrame | None = None,
) -> GateResult:
    """The gate on frames read from files (``labeling.files.formats``): labeled queries a run
    returned nothing for score 0, as ``scorecard evaluate`` counts them. ``queries`` (records
    with an ``id`` column) gives the segment attribute."""
    measures = _needed_measures(settings)
    new = evaluate(qrels, run, measures).per_query
    old = evaluate(qrels, baseline, settings.measures).per_query
    for frame in (new, old):
        frame.index = frame.index.astype("string")
    segments = None
    if settings.segment != NO_SEGMENT:
        if queries is None:
            raise ScorecardError("--segment on files needs --queries FILE with that attribute")
        if settings.segment not in queries.columns:
            raise InputError(f"no column {settings.segment!r} to segment by",
                             source="queries file")
        table = queries.set_index(queries["id"].astype("string"))
        segments = table[settings.segment].astype("string")
    return decide(names[0], names[1], new, old, settings, segments)

