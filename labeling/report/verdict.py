"""The scorecard's first sentence, the colours of its runs and its glossary.

The verdict names the runs, the number of queries, the lead measure (the report's first) and,
against a baseline, the difference with its interval and whether it is significant:
"bm25 vs bm25-title on 46 queries: nDCG@10 0.61 vs 0.64, difference −0.03 (95% CI −0.07 to
0.01), not significant (p = 0.21, Holm)". Numbers are rounded to two decimals in the sentence
and kept whole in ``Verdict``; the interval of a difference is the percentile bootstrap of the
paired per-query differences (seeded), the p-value the comparison table's.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from labeling.evaluation.inputs.score_controls import (
    BOOTSTRAP_RESAMPLES,
    CONFIDENCE,
    OVERALL,
    SEED,
    Controls,
)
from labeling.evaluation.scores import run_comparison
from labeling.metrics import statistics

if TYPE_CHECKING:
    import sqlite_utils

RUN_COLOUR = "#1f6fb2"  # the reported run, in every chart (the heatmap's blues match it)
BASELINE_COLOUR = "#9aa5b1"  # the baseline, in every chart
MINUS = "\u2212"

GLOSSARY: dict[str, str] = {
    "R@k": "relevant chunks in the top k divided by every relevant labeled chunk of the query",
    "P@k": "relevant chunks in the top k divided by k",
    "RR / MRR": "1 / the rank of the first relevant chunk (0 when none is retrieved); MRR is "
    "its mean over queries",
    "nDCG": "the ranking's gains (the grades) discounted by 1 / log2(rank + 1), divided by "
    "those of the best possible order of the labeled chunks: 1 is a perfect order",
    f"{CONFIDENCE:.0%} CI": "the interval a percentile bootstrap over queries gives the mean "
    "(or the difference)",
    "p (Holm)": "the paired randomization test's p-value, adjusted with Holm's method for the "
    "number of runs compared; below 0.05 reads as significant",
    "wins / ties / losses": "queries on which the run scores higher than, the same as, or "
    "lower than the baseline",
}


@dataclass(frozen=True)
class Verdict:
    """The numbers of the first sentence; ``baseline`` fields are None without a baseline.
    ``ci_low``/``ci_high`` bound the difference against a baseline, else the run's mean."""

    run: str
    measure: str
    n: int
    run_mean: float
    ci_low: float
    ci_high: float
    baseline: str | None = None
    baseline_mean: float | None = None
    difference: float | None = None
    p_holm: float | None = None
    significant: bool | None = None

    def sentence(self) -> str:
        interval = f"{CONFIDENCE:.0%} CI {_num(self.ci_low)} to {_num(self.ci_high)}"
        if self.baseline is None:
            return (f"{self.run} on {self.n} queries: {self.measure} {_num(self.run_mean)} "
                    f"({interval}).")
        verdict = "significant" if self.significant else "not significant"
        return (f"{self.run} vs {self.baseline} on {self.n} queries: {self.measure} "
                f"{_num(self.run_mean)} vs {_num(self.baseline_mean)}, difference "
                f"{_num(self.difference, sign=True)} ({interval}), {verdict} "
                f"(p = {self.p_holm:.2g}, Holm).")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "sentence": self.sentence()}


def _num(value: float | None, *, sign: bool = False) -> str:
    """Two decimals with a true minus sign (and a plus when ``sign``)."""
    if value is None or not math.isfinite(value):
        return "–"
    text = f"{value:+.2f}" if sign else f"{value:.2f}"
    return text.replace("-", MINUS)


def build_verdict(
    db: sqlite_utils.Database, controls: Controls, card: pd.DataFrame,
    comparison: pd.DataFrame | None, baseline: str | None, *,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
) -> Verdict:
    """The verdict on ``controls.measures[0]``: from the run's overall scorecard row
    (``card``), or against ``baseline`` from its ``comparison`` row and the bootstrap interval
    of the paired differences."""
    measure = controls.measures[0]
    if baseline is None or comparison is None:
        row = card.loc[(card["segment"] == OVERALL) & (card["measure"] == measure)].iloc[0]
        return Verdict(controls.run, measure, int(row["n"]), float(row["mean"]),
                       float(row["ci_low"]), float(row["ci_high"]))
    row = comparison.loc[comparison["measure"] == measure].iloc[0]
    pairs = run_comparison.paired_scores(db, controls.for_run(baseline), controls.run, measure)
    interval = statistics.bootstrap_ci(pairs["difference"].to_numpy(), confidence=CONFIDENCE,
                                       n_resamples=n_resamples, seed=SEED)
    return Verdict(
        controls.run, measure, int(row["n"]), float(row["candidate_mean"]), interval.low,
        interval.high, baseline=baseline, baseline_mean=float(row["baseline"]),
        difference=float(row["difference"]), p_holm=float(row["p_holm"]),
        significant=bool(row["significant"]),
    )
