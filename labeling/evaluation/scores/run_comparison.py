"""Runs compared on the same queries: paired differences, randomization and t tests, Holm,
and what a query set can detect.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from labeling.evaluation.inputs.score_controls import ALPHA, POWER, SEED, TEST_RESAMPLES, Controls
from labeling.evaluation.scores.scoring import per_query
from labeling.metrics import statistics

if TYPE_CHECKING:
    import sqlite_utils

# ---------------------------------------------------------------------------------------------
# Comparison


def paired_scores(
    db: sqlite_utils.Database, controls: Controls, candidate: str, measure: str
) -> pd.DataFrame:
    """Per query: the values of ``measure`` for the baseline ``controls.run`` and for
    ``candidate`` under the same controls, and their difference (candidate - baseline)."""
    scoped = controls.with_measures([measure])
    column = scoped.measures[0]  # ``measure`` as the controls write it (``@k``, ``rel=``)
    a = per_query(db, scoped)[column]
    b = per_query(db, scoped.for_run(candidate))[column]
    frame = pd.concat([a.rename("baseline"), b.rename("candidate")], axis=1, join="inner")
    frame["difference"] = frame["candidate"] - frame["baseline"]
    return frame


def compare_runs(
    db: sqlite_utils.Database,
    controls: Controls,
    candidates: Sequence[str],
    *,
    query_ids: Iterable[str] | None = None,
    alpha: float = ALPHA,
    power: float = POWER,
    n_resamples: int = TEST_RESAMPLES,
    seed: int = SEED,
) -> pd.DataFrame:
    """Every candidate against the baseline ``controls.run``, per measure of
    ``controls.measures``, on the queries both score, all under the same controls.

    Columns: candidate, measure, n, baseline, candidate_mean, difference, p_randomization,
    p_t, p_holm, significant, wins, ties, losses, sd_difference, detectable. ``p_holm`` is the
    randomization p-value adjusted with Holm over the candidates of one measure (with one
    candidate it equals the raw p); ``significant`` is ``p_holm < alpha``. ``detectable`` is the
    smallest difference this query set detects at ``power`` and level ``alpha``.
    """
    wanted = None if query_ids is None else set(query_ids)
    rows = []
    for measure in controls.measures:
        for candidate in candidates:
            pairs = paired_scores(db, controls, candidate, measure)
            if wanted is not None:
                pairs = pairs.loc[pairs.index.isin(wanted)]
            a, b = pairs["baseline"].to_numpy(), pairs["candidate"].to_numpy()
            test = statistics.compare_paired(a, b, n_resamples=n_resamples, seed=seed)
            wins, ties, losses = statistics.wins_ties_losses(a, b)
            sd = float(np.std(b - a, ddof=1)) if len(a) > 1 else math.nan
            rows.append({
                "candidate": candidate, "measure": measure, "n": test.n,
                "baseline": test.baseline_mean, "candidate_mean": test.candidate_mean,
                "difference": test.difference, "p_randomization": test.p_randomization,
                "p_t": test.p_t, "wins": wins, "ties": ties, "losses": losses,
                "sd_difference": sd,
                "detectable": statistics.minimal_detectable_difference(
                    sd, test.n, power=power, alpha=alpha) if len(a) > 1 else math.inf,
            })
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    frame["p_holm"] = frame.groupby("measure")["p_randomization"].transform(
        lambda p: pd.Series(statistics.holm(p.to_numpy()), index=p.index)
    )
    frame["significant"] = frame["p_holm"] < alpha
    order = ["candidate", "measure", "n", "baseline", "candidate_mean", "difference",
             "p_randomization", "p_t", "p_holm", "significant", "wins", "ties", "losses",
             "sd_difference", "detectable"]
    return frame[order]


def sensitivity(
    sd_difference: float, n_queries: int, difference: float, *, power: float = POWER,
    alpha: float = ALPHA,
) -> dict[str, float]:
    """What a query set can detect: ``detectable`` now and ``queries_needed`` for ``difference``."""
    return {
        "detectable": statistics.minimal_detectable_difference(
            sd_difference, n_queries, power=power, alpha=alpha),
        "queries_needed": float(statistics.queries_needed(
            sd_difference, difference, power=power, alpha=alpha)),
    }
