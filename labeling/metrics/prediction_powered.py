"""Prediction-powered estimates of a mean per-query score from machine labels and an audit.

The setting: every pair of a query's pool has a machine grade; an audit sample of those pairs gets
a person's grade; the target is the mean score the queries would get if people had judged every
pair. The machine's score alone is biased; the audit's human grades alone are few. Prediction-
powered inference (Angelopoulos et al. 2023, "Prediction-powered inference", Science 382) adds
to the machine's mean the audit's mean human-minus-machine difference, inverse-probability
weighted, and its interval counts the uncertainty of both parts.

Conventions
- The audit is *nested* per query: a query's pairs are put in a priority order and the audit
  takes a prefix of random length, so pair ``j`` is audited with probability ``inclusion[j]``,
  non-increasing along the order (``draw_nested``). Uniform inclusion is the special case where
  a query is audited whole or not at all.
- ``values[..., q, j]`` is the query's score when the first ``j`` pairs of its order carry the
  human grade and the rest the prediction (``j = 0``: prediction only; last: human only).
  Its steps ``values[j + 1] - values[j]`` telescope to human minus prediction, and
  ``T_q = values[0] + sum_j sampled_j * step_j / inclusion_j`` is an unbiased per-query estimate
  of the human score for *any* score function (nDCG's normaliser included), because step ``j``
  is observed exactly when the audit reached pair ``j``.
- The prediction is the machine's grade (prediction-powered) or "not relevant" for every
  unaudited pair (people only: the audit's human grades alone, design-weighted). Both estimates
  are unbiased; ``tuned_terms`` mixes them with the weight of least variance (power tuning,
  Angelopoulos, Duchi and Zrnic 2023, "PPI++"), fitted on the other half of the queries so the
  weight does not flatter its own interval. Weight 1 is classical prediction-powered inference,
  weight 0 the people-only estimate.
- Queries are independent draws from the population the workspace's queries represent; the
  interval is for that population's mean (as the dashboard's bootstrap intervals are). It is a
  t interval whose degrees of freedom shrink with the excess kurtosis of the per-query terms
  (an audited query weighs 1/inclusion, so the terms are heavy-tailed): matching the variance of
  the sample variance, ``(2 / (n - 1) + kurtosis / n) * sigma**4``, to a scaled chi-square
  (Satterthwaite 1946).
- Every function works on leading batch axes too (many simulated workspaces at once).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from labeling.errors import InputError

__all__ = [
    "ExactDraw", "MeanInterval", "draw_exact", "draw_nested", "effective_labels",
    "inclusion_probabilities",
    "query_terms", "t_interval", "tuned_terms",
]


@dataclass(frozen=True)
class MeanInterval:
    """A mean with its interval: floats for one estimate, arrays for a batch. ``se`` is the
    standard error, ``df`` the degrees of freedom of the t quantile, ``n`` the number of
    queries."""

    mean: float | np.ndarray
    low: float | np.ndarray
    high: float | np.ndarray
    se: float | np.ndarray
    df: float | np.ndarray
    n: int

    @property
    def half_width(self) -> float | np.ndarray:
        return (self.high - self.low) / 2

    def clipped(self, low: float, high: float) -> MeanInterval:
        """The interval with its mean and bounds clipped to the measure's range [low, high]
        (a mean score lies there, so clipping never moves a bound away from the truth);
        ``se`` and ``df`` are kept (they describe the unclipped interval)."""
        def clip(value):
            clipped = np.clip(value, low, high)
            return float(clipped) if np.ndim(clipped) == 0 else clipped

        return MeanInterval(clip(self.mean), clip(self.low), clip(self.high), self.se, self.df,
                            self.n)


# ---------------------------------------------------------------------------------------------
# The design


def inclusion_probabilities(
    weights: np.ndarray, budget: float, strata: np.ndarray | None = None
) -> np.ndarray:
    """Inclusion probabilities ``min(1, c * weight)`` summing to ``budget`` (the expected number
    of audited pairs), one ``c`` per stratum.

    ``weights`` are positive (how much a wrong label there can move the score). With ``strata``
    (one label per pair) each stratum gets the share of the budget its pairs make up
    (proportional allocation), so every segment is audited in proportion. A budget at or above
    the number of pairs audits everything.
    """
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 1:
        raise InputError("weights are one value per pair", source="audit design")
    if len(weights) and (not np.isfinite(weights).all() or weights.min() <= 0):
        raise InputError("audit weights must be positive numbers", source="audit design")
    if not budget >= 0:
        raise InputError(f"the audit budget must be zero or more, not {budget}",
                         source="audit design")
    if strata is None:
        return _scaled_probabilities(weights, float(budget))
    strata = np.asarray(strata)
    out = np.empty_like(weights)
    total = len(weights)
    for stratum in np.unique(strata):
        where = strata == stratum
        out[where] = _scaled_probabilities(weights[where], budget * where.sum() / total)
    return out


def _scaled_probabilities(weights: np.ndarray, budget: float) -> np.ndarray:
    """``min(1, c * weights)`` with ``c`` solved exactly so the sum is ``budget``."""
    n = len(weights)
    if n == 0 or budget <= 0:
        return np.zeros(n)
    if budget >= n:
        return np.ones(n)
    ordered = np.sort(weights)[::-1]
    tail = np.cumsum(ordered[::-1])[::-1]  # tail[k]: sum of the weights from the k-th largest
    capped = np.arange(n)  # the k largest are capped at 1, the rest scaled by c_k
    scale = (budget - capped) / tail
    fits = scale * ordered <= 1.0 + 1e-12
    fits &= np.concatenate([[True], scale[1:] * ordered[:-1] >= 1.0 - 1e-12])
    k = int(np.argmax(fits))  # the smallest number of capped pairs that is consistent
    return np.minimum(1.0, scale[k] * weights)


def draw_nested(inclusion: np.ndarray, uniforms: np.ndarray) -> np.ndarray:
    """Which pairs the audit takes: ``inclusion[..., q, j] >= uniforms[..., q]``.

    ``inclusion`` must be non-increasing along each query's order, so the audited pairs are a
    prefix and pair ``j`` is taken with probability ``inclusion[j]``; one uniform draw per query.
    """
    inclusion = np.asarray(inclusion, dtype=np.float64)
    if inclusion.shape[-1] > 1 and (np.diff(inclusion, axis=-1) > 1e-12).any():
        raise InputError("inclusion probabilities must not increase along a query's order",
                         source="audit design")
    return inclusion >= np.asarray(uniforms, dtype=np.float64)[..., None]


@dataclass(frozen=True)
class ExactDraw:
    """A nested audit of exactly ``size`` pairs: ``sizes[q]``, how many of query ``q``'s pairs
    (a prefix of its order) are audited, and ``inclusion[q, j]``, the probability that pair
    ``j`` is audited under the exact-size design. ``asked`` is the size requested; ``size``
    differs from it only when no draw of that exact size exists."""

    sizes: np.ndarray
    inclusion: np.ndarray
    size: int
    asked: int


def draw_exact(inclusion: np.ndarray, size: int, rng: np.random.Generator) -> ExactDraw:
    """The nested draw (``draw_nested``) conditioned on auditing exactly ``size`` pairs.

    ``inclusion`` (queries, width; non-increasing along each row, 0 past a query's pairs)
    gives each query's number of audited pairs ``X_q`` the law ``P(X_q >= j) = inclusion[q,
    j - 1]``, independently. Conditioning on ``sum X_q = size`` keeps each query's audit a
    prefix; the conditional law is computed exactly (convolutions of the queries' laws, as in
    conditional Poisson sampling) and sampled query by query, and the returned inclusion
    probabilities are the conditional ones, ``P(X_q >= j | sum = size)``: they sum to ``size``
    and make ``query_terms`` unbiased as before. When no draw has exactly ``size`` pairs (e.g.
    every query's probabilities are equal and the queries are of one length), the largest
    feasible size below it is used.
    """
    inclusion = np.asarray(inclusion, dtype=np.float64)
    if inclusion.ndim != 2:
        raise InputError("inclusion is one row per query", source="audit design")
    draw_nested(inclusion, np.zeros(len(inclusion)))  # checks the order
    asked = int(size)
    queries, width = inclusion.shape
    padded = np.concatenate([np.ones((queries, 1)), inclusion, np.zeros((queries, 1))], axis=1)
    laws = np.clip(padded[:, :-1] - padded[:, 1:], 0.0, None)  # laws[q, x] = P(X_q = x)
    after = _tail_laws(laws, asked)  # after[q]: law of the sum over queries q.., up to asked
    feasible = np.flatnonzero(after[0] > 0)
    if not len(feasible):
        raise InputError("no audit of that size can be drawn", source="audit design")
    size = int(feasible[-1])
    before = np.zeros(size + 1)
    before[0] = 1.0
    conditioned = np.zeros((queries, width + 1))
    total = after[0][size]
    for q in range(queries):
        # rest[x] = P(the other queries audit size - x) = sum_s before[s] after[size - x - s]
        reverse = np.concatenate([after[q + 1][::-1], np.zeros(width + 1)])
        windows = np.lib.stride_tricks.sliding_window_view(reverse, size + 1)[: width + 1]
        rest = windows @ before
        conditioned[q] = laws[q] * rest / total
        before = np.convolve(before, laws[q])[: size + 1]
    sizes = np.zeros(queries, dtype=np.int64)
    left = size
    for q in range(queries):
        chances = laws[q][: left + 1] * after[q + 1][left::-1][: width + 1]
        sizes[q] = rng.choice(len(chances), p=chances / chances.sum())
        left -= int(sizes[q])
    audited = np.cumsum(conditioned[:, ::-1], axis=1)[:, ::-1][:, 1:]  # P(X_q >= j)
    return ExactDraw(sizes, np.clip(audited, 0.0, 1.0), size, asked)


def _tail_laws(laws: np.ndarray, limit: int) -> list[np.ndarray]:
    """For each q, the law of ``X_q + ... + X_last`` on 0..limit (index q = len: the sum of
    nothing, 0 for sure)."""
    out = [np.zeros(limit + 1) for _ in range(len(laws) + 1)]
    out[-1][0] = 1.0
    for q in range(len(laws) - 1, -1, -1):
        out[q] = np.convolve(laws[q], out[q + 1])[: limit + 1]
    return out


# ---------------------------------------------------------------------------------------------
# Estimates


def query_terms(values: np.ndarray, inclusion: np.ndarray, sampled: np.ndarray) -> np.ndarray:
    """Per-query unbiased estimates of the human score: ``values[..., 0]`` plus the audited
    steps divided by their inclusion probability (see the module conventions).

    ``values`` has one more entry along the last axis than ``inclusion`` and ``sampled``.
    Positions past a query's last pair carry a zero step.
    """
    values = np.asarray(values, dtype=np.float64)
    inclusion = np.asarray(inclusion, dtype=np.float64)
    sampled = np.asarray(sampled, dtype=bool)
    if values.shape[:-1] != inclusion.shape[:-1] or values.shape[-1] != inclusion.shape[-1] + 1:
        raise InputError("values need one more entry per query than the inclusion "
                         "probabilities", source="estimate")
    if inclusion.shape != sampled.shape:
        raise InputError("inclusion and sampled differ in shape", source="estimate")
    if (sampled & ~(inclusion > 0)).any():
        raise InputError("an audited pair has inclusion probability 0", source="estimate")
    steps = np.diff(values, axis=-1)
    weighted = np.divide(steps, inclusion, out=np.zeros_like(steps), where=sampled)
    return values[..., 0] + weighted.sum(axis=-1)


def tuned_terms(
    machine: np.ndarray, people: np.ndarray, folds: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per-query terms ``people + weight * (machine - people)`` and the weights (one per fold
    and batch member), each fold's weight fitted on the other folds' queries.

    The weight minimises the variance of the mixed terms, ``-cov(people, d) / var(d)`` with
    ``d = machine - people``, clipped to [0, 1]; 1 when ``d`` does not vary. ``folds`` (one
    integer per query, at least two distinct) is shared by the batch.
    """
    machine = np.asarray(machine, dtype=np.float64)
    people = np.asarray(people, dtype=np.float64)
    folds = np.asarray(folds)
    if machine.shape != people.shape or machine.shape[-1] != len(folds):
        raise InputError("machine and people terms need one value per query", source="estimate")
    names = np.unique(folds)
    if len(names) < 2:
        raise InputError("power tuning needs at least two folds of queries", source="estimate")
    difference = machine - people
    terms = np.empty_like(people)
    weights = []
    for name in names:
        inside = folds == name
        weight = _least_variance_weight(people[..., ~inside], difference[..., ~inside])
        terms[..., inside] = people[..., inside] + weight[..., None] * difference[..., inside]
        weights.append(weight)
    return terms, np.stack(weights, axis=-1)


def _least_variance_weight(people: np.ndarray, difference: np.ndarray) -> np.ndarray:
    centred_p = people - people.mean(axis=-1, keepdims=True)
    centred_d = difference - difference.mean(axis=-1, keepdims=True)
    variance = (centred_d * centred_d).sum(axis=-1)
    covariance = (centred_p * centred_d).sum(axis=-1)
    flat = variance <= 1e-24 * np.maximum(1.0, (difference * difference).sum(axis=-1))
    weight = np.divide(-covariance, variance, out=np.ones_like(variance), where=~flat)
    return np.clip(weight, 0.0, 1.0)


def t_interval(terms: np.ndarray, confidence: float = 0.95) -> MeanInterval:
    """The mean of per-query ``terms`` (last axis) with a t interval whose degrees of freedom
    account for heavy tails (see the module conventions). Fewer than two queries: NaN bounds.
    """
    from scipy import stats  # lazy: seconds to import
    terms = np.asarray(terms, dtype=np.float64)
    if np.isnan(terms).any():
        raise InputError("per-query terms contain NaN", source="estimate")
    n = terms.shape[-1]
    mean = terms.mean(axis=-1) if n else np.full(terms.shape[:-1], math.nan)
    if n < 2:
        nan = np.full(np.shape(mean), math.nan)
        return _interval(mean, nan, nan, nan, nan, n)
    sd = terms.std(axis=-1, ddof=1)
    se = sd / math.sqrt(n)
    df = np.full(np.shape(sd), n - 1.0)
    varying = sd > 1e-12 * np.maximum(1.0, np.abs(terms).max(axis=-1))
    if n > 3 and np.any(varying):
        excess = stats.kurtosis(terms, axis=-1, fisher=True, bias=False)
        excess = np.where(varying, np.nan_to_num(excess, nan=0.0), 0.0)
        df = np.maximum(1.0, 2.0 / (2.0 / (n - 1) + np.maximum(excess, 0.0) / n))
    half = stats.t.ppf(0.5 + confidence / 2, df) * se
    return _interval(mean, mean - half, mean + half, se, df, n)


def _interval(mean, low, high, se, df, n: int) -> MeanInterval:
    values = [np.asarray(v, dtype=np.float64) for v in (mean, low, high, se, df)]
    if values[0].ndim == 0:
        return MeanInterval(*(float(v) for v in values), n=n)
    return MeanInterval(*values, n=n)


def effective_labels(labels: int, people_half_width: float, half_width: float) -> float:
    """How many audited human labels the people-only estimate would need to be as precise as
    an estimate of ``half_width``: ``labels * (people_half_width / half_width) ** 2`` (a
    half-width shrinks with the square root of the sample). NaN when either width is not
    positive and finite."""
    if not (half_width > 0 and people_half_width > 0) or not math.isfinite(people_half_width):
        return math.nan
    return labels * (people_half_width / half_width) ** 2
