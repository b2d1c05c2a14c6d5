"""The noise-aware regression gate: did a run get worse than its baseline by more than allowed?

Conventions
- Each *check* is one measure on one group of queries: all evaluated queries, and with a
  segment attribute also each of its values. On every check the gate runs the one-sided paired
  test of ``labeling.metrics.non_inferiority`` (change = run - baseline, allowed drop
  ``max_drop``) and reports the two-sided (1 - 2 alpha) interval of the change, whose upper end
  is the one-sided bound the test decides with.
- Unjudged results are not guessed (``labeling.metrics.unjudged_fillings``): per query the
  change has a *best case* for the run (the best of the fillings "the run's first j unjudged
  results relevant at the top grade, every other unjudged pair not relevant", j = 0 as scored
  up to every unjudged result of the run relevant and none of the baseline's) and a *worst
  case* (the mirror: the baseline's first j unjudged results relevant). The gate tests both.
  Empty slots (a run returned fewer than k results) are not unjudged: nothing is there.
- Holm's step-down correction runs across every testable check (measures x groups), once for
  the best cases and once for the worst cases, so the chance that a gate with no real
  regression fails stays at most ``alpha`` however many measures and segments it watches.
  Intervals are not adjusted; the decision is by Holm's p.
- Outcomes, in order of precedence:
  ``worse`` (exit 1): some check is significantly worse than allowed even in its best case,
  whatever the coverage: not even "every unjudged result of the run relevant, none of the
  baseline's", nor any cut of it, would save it. (The line is not every labelling: a filling
  off it could in principle do better for nDCG or AP; the rule is stated in the report.)
  ``not enough labels`` (exit 3): some check's verdict depends on the unjudged results (its
  worst case is significantly worse, its best case is not), or a group has fewer than two
  evaluated queries, or (when asked, ``min_judged`` > 0) Judged@k of the run over its filled
  slots is below the floor (k: the measure's cutoff, ``DEFAULT_K`` for a measure without one).
  ``pass`` (exit 0): otherwise; the run was not shown to lose more than ``max_drop``, even in
  its worst case over its unjudged results.
  ``bad input`` (exit 2) is the command line's: a refusal before any check runs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from labeling.errors import InputError, ScorecardError
from labeling.evaluation.inputs.score_controls import DEFAULT_K, MISSING, NO_SEGMENT, OVERALL
from labeling.evaluation.inputs.segmenting import _segments, query_table
from labeling.evaluation.planning import gate_values
from labeling.metrics import statistics
from labeling.metrics.measures import parse_measure
from labeling.metrics.non_inferiority import NonInferiorityTest, non_inferiority_test
from labeling.metrics.unjudged_fillings import GateValues

if TYPE_CHECKING:
    import sqlite_utils

PASS, WORSE, NOT_ENOUGH_LABELS, BAD_INPUT = "pass", "worse", "not enough labels", "bad input"
EXIT_CODES = {PASS: 0, WORSE: 1, BAD_INPUT: 2, NOT_ENOUGH_LABELS: 3}
DEFAULT_ALPHA = 0.05
DEFAULT_MIN_JUDGED = 0.0  # no floor: the bounds decide whether the labels are enough
FILLING_RULE = ("unjudged results filled: the run's best case is the best per query of "
                "'its first j unjudged results relevant at the top grade, every other "
                "unjudged pair not relevant' (j from 0, as scored, to all: every unjudged "
                "result of the run relevant, none of the baseline's); its worst case the "
                "mirror; empty slots are not unjudged")


@dataclass(frozen=True)
class GateSettings:
    """What the gate checks: ``measures`` (engine names), the allowed drop, the level, an
    optional Judged@k floor of the run over its filled slots (0: none) and an optional segment
    attribute (``NO_SEGMENT``: none)."""

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

    def cutoff(self, measure: str) -> int:
        """The k whose slots are counted for ``measure``."""
        return parse_measure(measure).cutoff or DEFAULT_K

    def judged_measure(self, measure: str) -> str:
        """The Judged@k that checks the labels behind ``measure``."""
        return f"Judged@{self.cutoff(measure)}"

    @property
    def cutoffs(self) -> list[int]:
        return sorted({self.cutoff(m) for m in self.measures})


@dataclass(frozen=True)
class GateCheck:
    """One measure on one group of queries. Means and ``change`` as scored (unjudged not
    relevant); ``change_best`` / ``change_worst`` the mean change in the run's best and worst
    case; ``low``, ``high``, ``p`` and ``p_holm`` the test of the best case, ``high_worst``,
    ``p_worst`` and ``p_worst_holm`` that of the worst case (NaN when untestable). Slots of the
    run's top k on the group: ``slots`` (k per query), ``filled``, ``judged``; ``judged_share``
    is judged / filled, empty slots counted apart. ``status``: pass, worse or not enough
    labels; ``depends`` says the verdict depends on the unjudged results."""

    measure: str
    group: str
    n: int
    baseline_mean: float
    run_mean: float
    change: float
    change_best: float
    change_worst: float
    low: float
    high: float
    p: float
    p_holm: float
    high_worst: float
    p_worst: float
    p_worst_holm: float
    judged_measure: str
    slots: int
    filled: int
    judged: int
    status: str
    depends: bool = False
    p_t: float = math.nan
    p_bootstrap: float = math.nan

    @property
    def judged_share(self) -> float:
        """Judged@k over the filled slots (1 when no slot is filled: nothing to judge)."""
        return self.judged / self.filled if self.filled else 1.0

    @property
    def empty(self) -> int:
        return self.slots - self.filled

    @property
    def unjudged(self) -> int:
        return self.filled - self.judged


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
        rows = [{**c.__dict__, "judged_share": c.judged_share, "empty": c.empty,
                 "unjudged": c.unjudged} for c in self.checks]
        return pd.DataFrame(rows)


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


def _test(baseline: np.ndarray, run: np.ndarray, settings: GateSettings) -> NonInferiorityTest:
    return non_inferiority_test(baseline, run, max_drop=settings.max_drop, alpha=settings.alpha)


def _check_row(measure: str, queries: pd.Index, values: GateValues,
               settings: GateSettings) -> dict:
    """One check's numbers before Holm's correction: as scored, best and worst case."""
    before = values.baseline.loc[queries, measure].to_numpy()
    after = values.run.loc[queries, measure].to_numpy()
    means = ((float(before.mean()), float(after.mean()), float((after - before).mean()))
             if len(queries) else (math.nan, math.nan, math.nan))
    best_change = values.best.loc[queries, measure].to_numpy()
    worst_change = values.worst.loc[queries, measure].to_numpy()
    zeros = np.zeros(len(queries))
    best = _test(zeros, best_change, settings)
    worst = best if np.array_equal(best_change, worst_change) else _test(zeros, worst_change,
                                                                         settings)
    k = settings.cutoff(measure)
    slots, filled, judged = values.slots[k].totals(queries)
    return {"measure": measure, "n": len(queries), "baseline_mean": means[0],
            "run_mean": means[1], "change": means[2],
            "change_best": best.change, "change_worst": worst.change, "low": best.low,
            "high": best.high, "p": best.p, "high_worst": worst.high, "p_worst": worst.p,
            "judged_measure": settings.judged_measure(measure), "slots": slots,
            "filled": filled, "judged": judged, "p_t": best.p_t,
            "p_bootstrap": best.p_bootstrap}


def _holm(raw: list[dict], column: str) -> int:
    """Holm-adjust ``column`` over the testable rows into ``column + '_holm'``; returns how
    many rows were tested."""
    testable = [i for i, row in enumerate(raw) if not math.isnan(row[column])]
    adjusted = statistics.holm([raw[i][column] for i in testable]) if testable else []
    for row in raw:
        row[f"{column}_holm"] = math.nan
    for i, p in zip(testable, adjusted, strict=True):
        raw[i][f"{column}_holm"] = float(p)
    return len(testable)


def decide(
    run: str,
    baseline: str,
    values: GateValues,
    settings: GateSettings,
    segments: pd.Series | None = None,
) -> GateResult:
    """The gate on per-query values (``labeling.metrics.unjudged_fillings.GateValues``, index
    query_id, one column per measure of ``settings``, the run's slots at each
    ``settings.cutoffs``); ``segments`` maps query ids to segment values. Queries are those
    both runs score."""
    index = values.run.index.intersection(values.baseline.index)
    raw: list[dict] = []
    for measure in settings.measures:
        for group, queries in _groups(segments, index, settings.segment):
            raw.append({"group": group, **_check_row(measure, queries, values, settings)})
    tests = _holm(raw, "p")
    _holm(raw, "p_worst")
    checks = tuple(GateCheck(**row, status=_status(row, settings),
                             depends=_depends(row, settings)) for row in raw)
    outcome = _outcome(checks)
    return GateResult(run, baseline, settings, checks, outcome,
                      verdict(run, baseline, settings, checks, outcome, tests), tests=tests)


def _depends(row: dict, settings: GateSettings) -> bool:
    """The worst case is significantly worse, the best case is not."""
    return row["p_worst_holm"] < settings.alpha and not row["p_holm"] < settings.alpha


def _status(row: dict, settings: GateSettings) -> str:
    if row["p_holm"] < settings.alpha:
        return WORSE
    share = row["judged"] / row["filled"] if row["filled"] else 1.0
    if math.isnan(row["p"]) or _depends(row, settings) or share < settings.min_judged:
        return NOT_ENOUGH_LABELS
    return PASS


def _outcome(checks: Sequence[GateCheck]) -> str:
    statuses = {c.status for c in checks}
    for outcome in (WORSE, NOT_ENOUGH_LABELS):
        if outcome in statuses:
            return outcome
    return PASS


def _where(check: GateCheck) -> str:
    return "all queries" if check.group == OVERALL else check.group


def slots_phrase(check: GateCheck, run: str) -> str:
    """'Judged@10 of new 97% of 371 filled slots (22 unjudged; 89 of 460 slots empty)'."""
    return (f"{check.judged_measure} of {run} {check.judged_share:.0%} of {check.filled} "
            f"filled slots ({check.unjudged} unjudged; {check.empty} of {check.slots} slots "
            "empty)")


def verdict(run: str, baseline: str, settings: GateSettings, checks: Sequence[GateCheck],
            outcome: str, tests: int) -> str:
    """The outcome in one sentence, with the interval and the number of queries that decide."""
    confidence = 1.0 - 2.0 * settings.alpha
    holm = f" after Holm's correction over {tests} tests" if tests > 1 else ""
    if outcome == WORSE:
        c = min((c for c in checks if c.status == WORSE), key=lambda c: c.p_holm)
        case = ("" if math.isclose(c.change_best, c.change, abs_tol=1e-12) else
                " even if every unjudged result of the run were relevant and none of the "
                "baseline's")
        return (f"Worse: {run} lost {-c.change:.4f} {c.measure} against {baseline} on "
                f"{_where(c)} ({c.n} queries, {slots_phrase(c, run)}), at least "
                f"{-c.high:.4f} with {1 - settings.alpha:.0%} confidence{case}, more than the "
                f"allowed {settings.max_drop:g} ({confidence:.0%} interval of the change "
                f"{c.low:+.4f} to {c.high:+.4f}; p = {c.p_holm:.3g}{holm}).")
    if outcome == NOT_ENOUGH_LABELS:
        return _not_enough(run, settings, checks)
    c = min(checks, key=lambda c: (c.p_worst_holm, c.p_holm, c.measure))
    if c.change_best == c.change_worst:  # nothing unjudged moves it
        tested = (f"{confidence:.0%} interval {c.low:+.4f} to {c.high:+.4f} (p = "
                  f"{c.p_holm:.3g}{holm})")
        if -c.low > settings.max_drop:
            tested += f"; the interval still allows a loss of up to {-c.low:.4f}"
    else:
        tested = (f"{c.change_worst:+.4f} in its worst case (p = {c.p_worst_holm:.3g}{holm}), "
                  f"{c.change_best:+.4f} in its best")
    return (f"Pass: {run} is not shown to lose more than {settings.max_drop:g} against "
            f"{baseline}, even in its worst case over its unjudged results; closest check "
            f"{c.measure} on {_where(c)}: change {c.change:+.4f} as scored on {c.n} queries "
            f"({slots_phrase(c, run)}), {tested}.")


def _not_enough(run: str, settings: GateSettings, checks: Sequence[GateCheck]) -> str:
    short = [c for c in checks if c.status == NOT_ENOUGH_LABELS]
    few = [c for c in short if c.n < 2]
    if few:
        worst = few[0]
        return (f"Not enough labels to decide: {_where(worst)} has {worst.n} evaluated "
                f"{'query' if worst.n == 1 else 'queries'}, and a paired test needs at "
                "least two; label more of its queries.")
    depends = [c for c in short if c.depends]
    if depends:
        c = min(depends, key=lambda c: c.p_worst_holm)
        return (f"Not enough labels to decide: on {_where(c)} ({c.n} queries, "
                f"{slots_phrase(c, run)}) the verdict depends on the unjudged results: "
                f"{c.measure} changes by {c.change_worst:+.4f} if they all went against "
                f"{run} (significantly worse, p = {c.p_worst_holm:.3g}) and by "
                f"{c.change_best:+.4f} if they all went for it (not significantly worse); "
                "judge the unjudged results of both runs before gating.")
    c = min(short, key=lambda c: c.judged_share)
    return (f"Not enough labels to decide: {slots_phrase(c, run)} on {_where(c)} "
            f"({c.n} queries), below the floor of {settings.min_judged:.0%} of filled slots "
            "judged; judge its unjudged results before gating.")


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
    (unjudged results filled as the module docstring says; chunk unit)."""
    if run == baseline:
        raise ScorecardError("the run and its baseline are the same run")
    values = gate_values.stored_pair(db, run, baseline, settings.measures, settings.cutoffs,
                                     rule=rule, split=split)
    segments = None
    if settings.segment != NO_SEGMENT:
        segments = _segments(query_table(db), settings.segment, values.run.index)
    return decide(run, baseline, values, settings, segments)


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
    returned nothing for score 0, as ``scorecard evaluate`` counts them; unjudged results are
    filled up to the highest grade in ``qrels``. ``queries`` (records with an ``id`` column)
    gives the segment attribute."""
    values = gate_values.file_pair(qrels, run, baseline, settings.measures, settings.cutoffs)
    segments = None
    if settings.segment != NO_SEGMENT:
        if queries is None:
            raise ScorecardError("--segment on files needs --queries FILE with that attribute")
        if settings.segment not in queries.columns:
            raise InputError(f"no column {settings.segment!r} to segment by",
                             source="queries file")
        table = queries.set_index(queries["id"].astype("string"))
        segments = table[settings.segment].astype("string")
    return decide(names[0], names[1], values, settings, segments)
