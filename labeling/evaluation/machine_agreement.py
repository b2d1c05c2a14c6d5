"""How far a machine judge agrees with people: on the pairs both graded (kappa, weighted kappa,
confusion, per segment and per grade), on the ranking of the runs (Kendall's tau), against
another judge on the same pairs, and where it fails (the disagreements, with its reasons).

Conventions
- People's grade of a pair is the people's consensus under the rule (``label_sources``), the
  machine's is the judge's current grade. Only pairs both graded count.
- Kappas are ``labeling.metrics.label_agreement``'s (scikit-learn's formula, the workspace's
  scale as the label list), with percentile bootstrap intervals over pairs (seeded).
- Run rankings compare each run's mean under the people-only labels with its mean under the
  judge's labels alone, with the same controls otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import pandas as pd
import sqlite_utils

from labeling.errors import ScorecardError
from labeling.evaluation.score_controls import (
    BOOTSTRAP_RESAMPLES,
    CONFIDENCE,
    NO_SEGMENT,
    SEED,
    Controls,
)
from labeling.evaluation.scoring import per_query
from labeling.evaluation.segmenting import _segments, query_table
from labeling.judging import audit_sample, label_sources, machine_judge
from labeling.metrics import label_agreement as agree
from labeling.workspace import grading

PAIR = ["query_id", "chunk_id"]
DISAGREEMENT_GAP = 2


def paired_grades(db: sqlite_utils.Database, judge: str, rule: str = "default") -> pd.DataFrame:
    """Pairs graded by people and by ``judge``: query_id, chunk_id, people, machine, reason."""
    people = label_sources.source_consensus(db, rule, "people").rename(
        columns={"grade": "people"})
    machine = machine_judge.machine_labels(db, judge)[PAIR + ["grade", "reason"]].rename(
        columns={"grade": "machine"})
    machine = machine.astype({"query_id": "string", "chunk_id": "string"})
    both = people.merge(machine, on=PAIR)
    return both.astype({"people": "int64", "machine": "int64"})


@dataclass(frozen=True)
class Agreement:
    """A judge against people: kappa and weighted kappa with intervals, the confusion matrix
    (rows people, columns machine), per segment and per people grade; ``weights`` names the
    weighted kappa's weights."""

    judge: str
    pairs: int
    kappa: agree.KappaInterval
    weighted: agree.KappaInterval
    weights: str
    confusion: pd.DataFrame
    by_segment: pd.DataFrame
    by_grade: pd.DataFrame


def agreement(
    db: sqlite_utils.Database, judge: str, *, rule: str = "default",
    segment: str = NO_SEGMENT, weights: str = "quadratic",
    n_resamples: int = BOOTSTRAP_RESAMPLES, seed: int = SEED,
) -> Agreement:
    """The judge's agreement with people on the pairs both graded (see ``Agreement``)."""
    if weights not in ("linear", "quadratic"):
        raise ScorecardError("weighted kappa uses linear or quadratic weights")
    grades = [g for g, _, _ in grading.get_scale(db)]
    both = paired_grades(db, judge, rule)

    def interval(frame: pd.DataFrame, kind: str | None) -> agree.KappaInterval:
        return agree.kappa_interval(frame["people"], frame["machine"], grades, kind,
                                    confidence=CONFIDENCE, n_resamples=n_resamples, seed=seed)

    counts = agree.confusion(both["people"], both["machine"], grades)
    confusion = pd.DataFrame(counts, index=pd.Index(grades, name="people"),
                             columns=pd.Index(grades, name="machine"))
    rows = []
    if segment != NO_SEGMENT and not both.empty:
        groups = _segments(query_table(db), segment, pd.Index(both["query_id"]))
        for name in sorted(groups.unique()):
            part = both.loc[(groups == name).to_numpy()]
            plain, weighted = interval(part, None), interval(part, weights)
            rows.append({"segment": name, "pairs": len(part), "kappa": plain.kappa,
                         "weighted_kappa": weighted.kappa, "weighted_low": weighted.low,
                         "weighted_high": weighted.high,
                         "exact": float((part["people"] == part["machine"]).mean())})
    by_segment = pd.DataFrame(rows, columns=["segment", "pairs", "kappa", "weighted_kappa",
                                             "weighted_low", "weighted_high", "exact"])
    by_grade = pd.DataFrame([
        {"people": g, "pairs": int((both["people"] == g).sum()),
         "machine_same": float((both.loc[both["people"] == g, "machine"] == g).mean())
         if (both["people"] == g).any() else float("nan"),
         "machine_higher": float((both.loc[both["people"] == g, "machine"] > g).mean())
         if (both["people"] == g).any() else float("nan"),
         "machine_mean": float(both.loc[both["people"] == g, "machine"].mean())
         if (both["people"] == g).any() else float("nan")}
        for g in grades])
    return Agreement(judge, len(both), interval(both, None), interval(both, weights), weights,
                     confusion, by_segment, by_grade)


@dataclass(frozen=True)
class RankingAgreement:
    """Runs ranked by their mean under people's labels and under the judge's: ``table`` (run,
    people, machine, people_rank, machine_rank, shift), Kendall's tau-b and the swapped pairs
    (above for people, above for the machine, size)."""

    measure: str
    tau: float
    table: pd.DataFrame
    swaps: list[tuple[str, str, float]]


def ranking_agreement(
    db: sqlite_utils.Database, controls: Controls, judge: str, runs: Sequence[str],
) -> RankingAgreement:
    """Kendall's tau between the run rankings people's labels and ``judge``'s labels give, on
    ``controls.measures[0]`` (the rest of the controls as given)."""
    if len(runs) < 2:
        raise ScorecardError("ranking agreement needs at least two runs")
    measure = controls.measures[0]
    people = replace(controls, label_source="people", judge="").with_measures([measure])
    machine = replace(controls, label_source="machine", judge=judge).with_measures([measure])
    rows = []
    for run in runs:
        rows.append({"run": run,
                     "people": float(per_query(db, people.for_run(run))[measure].mean()),
                     "machine": float(per_query(db, machine.for_run(run))[measure].mean())})
    table = pd.DataFrame(rows)
    table["people_rank"] = table["people"].rank(ascending=False, method="min").astype(int)
    table["machine_rank"] = table["machine"].rank(ascending=False, method="min").astype(int)
    table["shift"] = table["machine_rank"] - table["people_rank"]
    tau = agree.kendall_tau(table["people"], table["machine"])
    swaps = agree.rank_swaps(table["run"].tolist(), table["people"], table["machine"])
    return RankingAgreement(measure, tau, table.sort_values("people_rank", ignore_index=True),
                            swaps)


def compare_judges(
    db: sqlite_utils.Database, first: str, second: str, *, rule: str = "default",
    weights: str | None = "quadratic", n_resamples: int = BOOTSTRAP_RESAMPLES, seed: int = SEED,
) -> agree.KappaDifference:
    """Two judges (a prompt or model change) on the pairs people and both graded: which agrees
    better with people, and a paired bootstrap interval of ``second - first``."""
    a = paired_grades(db, first, rule)
    b = paired_grades(db, second, rule)
    both = a.merge(b[PAIR + ["machine"]], on=PAIR, suffixes=("_first", "_second"))
    grades = [g for g, _, _ in grading.get_scale(db)]
    return agree.kappa_difference(both["people"], both["machine_first"], both["machine_second"],
                                  grades, weights, confidence=CONFIDENCE,
                                  n_resamples=n_resamples, seed=seed)


def disagreements(
    db: sqlite_utils.Database, judge: str, *, rule: str = "default",
    gap: int = DISAGREEMENT_GAP,
) -> pd.DataFrame:
    """Pairs where people and the judge differ by ``gap`` grades or more, largest gap first:
    query_id, chunk_id, query, chunk, people, machine, gap, reason (the machine's)."""
    both = paired_grades(db, judge, rule)
    both["gap"] = (both["machine"] - both["people"]).abs()
    far = both.loc[both["gap"] >= gap].copy()
    texts = machine_judge.pair_texts(db, list(zip(far["query_id"], far["chunk_id"],
                                                  strict=True)))
    for column, key in (("query", "query"), ("chunk", "passage")):
        far[column] = pd.Series([texts.get((q, c), {}).get(key, "") for q, c in zip(
            far["query_id"], far["chunk_id"], strict=True)], index=far.index, dtype="string")
    columns = ["query_id", "chunk_id", "query", "chunk", "people", "machine", "gap", "reason"]
    return far.sort_values(["gap", "query_id", "chunk_id"], ascending=[False, True, True],
                           ignore_index=True)[columns]


def assistance(db: sqlite_utils.Database, controls: Controls) -> list[dict]:
    """For a machine-assisted ``controls.label_source``: per judge whose labels the scores use,
    its labels, its latest audit sample (pairs drawn and judged by people so far) and its
    agreement with people (kappa, quadratic-weighted kappa, pairs compared). Empty for people
    only."""
    if not controls.machine_assisted:
        return []
    names = [controls.judge] if controls.judge else machine_judge.judges(db)
    out = []
    for name in names:
        labels = len(machine_judge.machine_labels(db, name))
        both = paired_grades(db, name, controls.rule)
        grades = [g for g, _, _ in grading.get_scale(db)]
        plain = agree.kappa(both["people"], both["machine"], grades) if len(both) else None
        weighted = (agree.kappa(both["people"], both["machine"], grades, "quadratic")
                    if len(both) else None)
        samples = audit_sample.samples(db, name)
        sample = None
        if not samples.empty:
            sample_id = int(samples.iloc[0]["id"])
            progress = audit_sample.audit_progress(db, sample_id)
            sample = {"id": sample_id, "drawn": progress.drawn, "judged": progress.judged}
        out.append({"judge": name, "labels": labels, "audit": sample, "pairs_compared": len(both),
                    "kappa": plain, "weighted_kappa": weighted})
    return out


def describe_assistance(items: list[dict]) -> list[str]:
    """One sentence per judge of ``assistance``: audit size and kappa."""
    lines = []
    for item in items:
        audit = item["audit"]
        audited = ("no audit sample drawn" if audit is None else
                   f"audit sample {audit['id']}: {audit['judged']} of {audit['drawn']} pairs "
                   "verified by people")
        kappa = ("no pair graded by both yet" if item["kappa"] is None else
                 f"kappa {_number(item['kappa'])} (quadratic-weighted "
                 f"{_number(item['weighted_kappa'])}) on {item['pairs_compared']} pairs "
                 "graded by both")
        lines.append(f"Machine judge {item['judge']}: {item['labels']} labels; {audited}; "
                     f"{kappa} against people.")
    return lines


def _number(value: float) -> str:
    return "undefined" if value != value else f"{value:.2f}"
