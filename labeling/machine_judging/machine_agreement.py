"""How far a machine judge agrees with people: on the pairs both graded (kappa, weighted kappa,
confusion, per segment and per grade), on the ranking of the runs (Kendall's tau), against
another judge on the same pairs, and where it fails (the disagreements, with its reasons).

Conventions
- People's grade of a pair is the people's consensus under the rule (``label_sources``), the
  machine's is the judge's current grade. Only pairs both graded count.
- With an audit sample (the judge's latest, or the one named), kappa is *design-weighted*: the
  sample's pairs people graded (known and audited, ``machine_estimates.audit_state``) each
  count ``1 / inclusion``, with the machine's grade stored with the sample, so the kappa
  estimates the judge's agreement over all its labels in the sample's universe, not over the
  audit, which over-samples top ranks and pairs near the threshold
  (``label_agreement.design_kappa_interval``; intervals resample queries). Without a sample,
  kappa is the plain figure of the pairs both graded, and says so (``Agreement.scope``).
- Kappas are ``labeling.metrics.label_agreement``'s (scikit-learn's formula, the workspace's
  scale as the label list), with percentile bootstrap intervals (seeded).
- Run rankings compare each run's prediction-powered estimate (``machine_estimates``: the
  judge's labels corrected by the audit, for the mean people would give) with its mean under
  the judge's labels alone, on the audit sample's queries, with the same controls otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import pandas as pd

from labeling.errors import ScorecardError
from labeling.evaluation.inputs.score_controls import (
    BOOTSTRAP_RESAMPLES,
    CONFIDENCE,
    NO_SEGMENT,
    OVERALL,
    SEED,
    Controls,
)
from labeling.evaluation.inputs.segmenting import _segments, query_table
from labeling.judging import label_sources
from labeling.machine_judging import audit_sample, machine_estimates, machine_judge
from labeling.metrics import label_agreement as agree
from labeling.workspace import grading

if TYPE_CHECKING:
    import sqlite_utils

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
    (rows people, columns machine; counts of pairs both graded), per segment and per people
    grade; ``weights`` names the weighted kappa's weights. ``scope`` says what the kappas are
    figures of; ``sample_id`` the audit sample they are weighted by (None: unweighted) and
    ``population`` how many of the judge's labels they stand for."""

    judge: str
    pairs: int
    kappa: agree.KappaInterval
    weighted: agree.KappaInterval
    weights: str
    confusion: pd.DataFrame
    by_segment: pd.DataFrame
    by_grade: pd.DataFrame
    scope: str = ""
    sample_id: int | None = None
    population: int = 0


def latest_sample(db: sqlite_utils.Database, judge: str) -> int | None:
    """The id of ``judge``'s newest audit sample, None when it has none."""
    samples = audit_sample.samples(db, judge)
    return None if samples.empty else int(samples.iloc[0]["id"])


def _audited_grades(db: sqlite_utils.Database, sample_id: int, rule: str
                    ) -> tuple[pd.DataFrame, int, bool]:
    """The sample's pairs both graded (query_id, chunk_id, people, machine, weight), how many
    of its pairs carry the judge's grade, and whether the audit is provisional."""
    state = machine_estimates.audit_state(db, sample_id, rule)
    pairs = state.pairs.loc[state.pairs["machine_grade"].notna()]
    used = pairs.loc[pairs["observed"] & pairs["human"].notna()]
    both = pd.DataFrame({"query_id": used["query_id"], "chunk_id": used["chunk_id"],
                         "people": used["human"].astype("int64"),
                         "machine": used["machine_grade"].astype("int64"),
                         "weight": 1.0 / used["inclusion"].to_numpy()})
    return both.reset_index(drop=True), len(pairs), state.provisional


def _scope(judge: str, pairs: int, sample_id: int | None, population: int,
           provisional: bool) -> str:
    if sample_id is None:
        return (f"audit-sample figure, unweighted: the {pairs} pairs people and {judge} both "
                "graded (no audit sample to weight them by)")
    return (f"design-weighted estimate over all {population} of {judge}'s labels in audit "
            f"sample {sample_id}, from the {pairs} pairs people graded, each weighted by the "
            "inverse of its inclusion probability"
            + (" (provisional: audited pairs still wait)" if provisional else ""))


def agreement(
    db: sqlite_utils.Database, judge: str, *, rule: str = "default",
    segment: str = NO_SEGMENT, weights: str = "quadratic",
    n_resamples: int = BOOTSTRAP_RESAMPLES, seed: int = SEED, sample_id: int | None = None,
) -> Agreement:
    """The judge's agreement with people (see ``Agreement`` and the module conventions);
    ``sample_id`` defaults to the judge's latest audit sample."""
    if weights not in ("linear", "quadratic"):
        raise ScorecardError("weighted kappa uses linear or quadratic weights")
    grades = [g for g, _, _ in grading.get_scale(db)]
    sample_id = latest_sample(db, judge) if sample_id is None else sample_id
    population, provisional = 0, False
    if sample_id is None:
        both = paired_grades(db, judge, rule).assign(weight=1.0)
    else:
        both, population, provisional = _audited_grades(db, sample_id, rule)

    def interval(frame: pd.DataFrame, kind: str | None) -> agree.KappaInterval:
        if sample_id is None:
            return agree.kappa_interval(frame["people"], frame["machine"], grades, kind,
                                        confidence=CONFIDENCE, n_resamples=n_resamples,
                                        seed=seed)
        return agree.design_kappa_interval(
            frame["people"], frame["machine"], grades, kind, sample_weight=frame["weight"],
            clusters=frame["query_id"], confidence=CONFIDENCE, n_resamples=n_resamples,
            seed=seed)

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
                         "exact": _share(part["weight"].to_numpy(),
                                         (part["people"] == part["machine"]).to_numpy(),
                                         part["weight"].sum())})
    by_segment = pd.DataFrame(rows, columns=["segment", "pairs", "kappa", "weighted_kappa",
                                             "weighted_low", "weighted_high", "exact"])
    return Agreement(judge, len(both), interval(both, None), interval(both, weights), weights,
                     confusion, by_segment, _by_grade(both, grades),
                     _scope(judge, len(both), sample_id, population, provisional), sample_id,
                     population)


def _by_grade(both: pd.DataFrame, grades: list[int]) -> pd.DataFrame:
    """Per people grade: pairs, and the shares the machine graded the same or higher and its
    mean grade (weighted like the kappas)."""
    rows = []
    for g in grades:
        part = both.loc[both["people"] == g]
        weight, machine = part["weight"].to_numpy(), part["machine"].to_numpy()
        total = weight.sum()
        rows.append({"people": g, "pairs": len(part),
                     "machine_same": _share(weight, machine == g, total),
                     "machine_higher": _share(weight, machine > g, total),
                     "machine_mean": _share(weight, machine, total)})
    return pd.DataFrame(rows)


def _share(weight, values, total: float) -> float:
    return float((weight * values).sum() / total) if total > 0 else float("nan")


@dataclass(frozen=True)
class RankingAgreement:
    """Runs ranked by their corrected estimate (``people``: prediction-powered, for the mean
    people would give) and by the judge's labels alone (``machine``): ``table`` (run, people,
    machine, people_rank, machine_rank, shift), Kendall's tau-b and the swapped pairs (above
    for people, above for the machine, size); ``sample_id`` the audit sample used."""

    measure: str
    tau: float
    table: pd.DataFrame
    swaps: list[tuple[str, str, float]]
    sample_id: int = 0


def ranking_agreement(
    db: sqlite_utils.Database, controls: Controls, judge: str, runs: Sequence[str],
    sample_id: int | None = None,
) -> RankingAgreement:
    """Kendall's tau between the run rankings by the prediction-powered estimates (audit
    sample ``sample_id``, by default ``judge``'s latest) and by ``judge``'s labels alone, on
    ``controls.measures[0]`` (the rest of the controls as given)."""
    if len(runs) < 2:
        raise ScorecardError("ranking agreement needs at least two runs")
    sample_id = latest_sample(db, judge) if sample_id is None else sample_id
    if sample_id is None:
        raise ScorecardError(f"rank the runs after an audit sample of {judge}: the people's "
                             "ranking uses the audit-corrected estimates")
    measure = controls.measures[0]
    scoped = replace(controls, label_source="people", judge="").with_measures([measure])
    rows = []
    for run in runs:
        table, _ = machine_estimates.estimates(db, scoped.for_run(run), sample_id)
        mean = table.loc[table["segment"] == OVERALL].set_index("estimate")["mean"]
        rows.append({"run": run, "people": float(mean["prediction-powered"]),
                     "machine": float(mean["machine only"])})
    table = pd.DataFrame(rows)
    table["people_rank"] = table["people"].rank(ascending=False, method="min").astype(int)
    table["machine_rank"] = table["machine"].rank(ascending=False, method="min").astype(int)
    table["shift"] = table["machine_rank"] - table["people_rank"]
    tau = agree.kendall_tau(table["people"], table["machine"])
    swaps = agree.rank_swaps(table["run"].tolist(), table["people"], table["machine"])
    return RankingAgreement(measure, tau, table.sort_values("people_rank", ignore_index=True),
                            swaps, sample_id)


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
    agreement with people (kappa, quadratic-weighted kappa, pairs compared, what the kappas
    are: ``scope``). Empty for people only."""
    if not controls.machine_assisted:
        return []
    names = [controls.judge] if controls.judge else machine_judge.judges(db)
    out = []
    for name in names:
        labels = len(machine_judge.machine_labels(db, name))
        found = agreement(db, name, rule=controls.rule, n_resamples=1)
        sample = None
        if found.sample_id is not None:
            progress = audit_sample.audit_progress(db, found.sample_id)
            sample = {"id": found.sample_id, "drawn": progress.drawn, "judged": progress.judged}
        out.append({"judge": name, "labels": labels, "audit": sample, "pairs_compared":
                    found.pairs, "kappa": found.kappa.kappa if found.pairs else None,
                    "weighted_kappa": found.weighted.kappa if found.pairs else None,
                    "kappa_scope": found.scope})
    return out


def describe_assistance(items: list[dict]) -> list[str]:
    """One sentence per judge of ``assistance``: audit size and kappa, and what it is of."""
    lines = []
    for item in items:
        audit = item["audit"]
        audited = ("no audit sample drawn" if audit is None else
                   f"audit sample {audit['id']}: {audit['judged']} of {audit['drawn']} pairs "
                   "verified by people")
        kappa = ("no pair graded by both yet" if item["kappa"] is None else
                 f"kappa {_number(item['kappa'])} (quadratic-weighted "
                 f"{_number(item['weighted_kappa'])}) against people, "
                 f"{item['kappa_scope']}")
        lines.append(f"Machine judge {item['judge']}: {item['labels']} labels; {audited}; "
                     f"{kappa}.")
    return lines


def _number(value: float) -> str:
    return "undefined" if value != value else f"{value:.2f}"
