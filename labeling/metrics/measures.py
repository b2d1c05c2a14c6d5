"""Measures: one registry, ``KINDS``, whose entry per family holds its parameters and its compute
function, and one parser of measure names; shared by the engine, the CLI, the pages and the
exports.

A measure is written as ir_measures writes it: a name, optional parameters in parentheses and an
optional cutoff after ``@`` -- ``nDCG@10``, ``P(rel=2)@5``, ``AP(denom=retrieved)@10``.
Parsing is case-insensitive for names and aliases; ``str(measure)`` gives the canonical form.

Parameters (defaults follow trec_eval):

``rel=N``
    the lowest grade that counts as relevant for binary measures (trec_eval's ``-l``; default 1).
``gain=linear|exp``
    gain of a grade for nDCG, DCG and CG: the grade itself, or ``2**grade - 1`` (default linear).
    Negative grades give gain 0.
``ideal=judged|retrieved``
    nDCG's ideal list: every judged item of the query sorted by gain (trec_eval, default), or
    only the retrieved items' grades re-sorted (the convention of the metric simulator).
``denom=relevant|retrieved``
    AP's denominator: every relevant item of the query (trec_eval, default), or the relevant
    items found in the evaluated list.

A compute function takes the evaluation's ``RankedArrays`` and the parsed measure and returns the
value of every query and the parts it is made of (``AP.sum_precision``, ``nDCG@10.idcg`` ...).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from labeling.errors import MeasureError
from labeling.metrics.ranked_arrays import RankedArrays, divide, gain_of

PARAM_VALUES: dict[str, tuple[str, ...] | None] = {
    "rel": None,  # an integer
    "gain": ("linear", "exp"),
    "ideal": ("judged", "retrieved"),
    "denom": ("relevant", "retrieved"),
}
PARAM_DEFAULTS: dict[str, object] = {
    "rel": 1, "gain": "linear", "ideal": "judged", "denom": "relevant",
}


@dataclass(frozen=True)
class Measure:
    """A parsed measure: kind, cutoff (None for the whole list) and non-default parameters."""

    kind: str
    cutoff: int | None = None
    params: tuple[tuple[str, object], ...] = field(default=())

    def param(self, key: str) -> object:
        return dict(self.params).get(key, PARAM_DEFAULTS[key])

    @property
    def rel(self) -> int:
        return int(self.param("rel"))  # type: ignore[call-overload]

    def __str__(self) -> str:
        text = self.kind
        if self.params:
            text += "(" + ",".join(f"{k}={v}" for k, v in self.params) + ")"
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text


# --- compute functions ---------------------------------------------------------------------------

# What a compute function returns: per-query values and {part name: per-query values}.
Computed = tuple[np.ndarray, dict[str, np.ndarray]]


def _precision(ctx: RankedArrays, m: Measure) -> Computed:
    found = ctx.count(ctx.rows_where(ctx.relevant(m.rel), ctx.within(m.cutoff)))
    return found / m.cutoff, {"relevant_retrieved": found}


def _recall(ctx: RankedArrays, m: Measure) -> Computed:
    found = ctx.count(ctx.rows_where(ctx.relevant(m.rel), ctx.within(m.cutoff)))
    total = ctx.num_relevant(m.rel)
    return divide(found, total), {"relevant_retrieved": found, "relevant": total}


def _success(ctx: RankedArrays, m: Measure) -> Computed:
    found = ctx.count(ctx.rows_where(ctx.relevant(m.rel), ctx.within(m.cutoff)))
    return (found > 0).astype(np.float64), {"relevant_retrieved": found}


def _first_relevant_rank(ctx: RankedArrays, rel: int) -> np.ndarray:
    at = np.flatnonzero(ctx.relevant(rel))
    first = np.zeros(ctx.n, dtype=np.float64)
    if len(at):
        query = ctx.rows.query[at]
        lead = np.ones(len(at), dtype=bool)
        lead[1:] = query[1:] != query[:-1]
        first[query[lead]] = ctx.rows.rank[at[lead]]
    return first


def _reciprocal_rank(ctx: RankedArrays, m: Measure) -> Computed:
    first = _first_relevant_rank(ctx, m.rel)
    if m.cutoff is not None:
        first = np.where(first <= m.cutoff, first, 0.0)
    return divide(np.ones(ctx.n), first), {"first_relevant_rank": first}


def _average_precision(ctx: RankedArrays, m: Measure) -> Computed:
    hits = ctx.rows_where(ctx.relevant(m.rel), ctx.within(m.cutoff))
    precision = ctx.cumulative_relevant(m.rel) / ctx.rows.rank
    summed = ctx.count(hits, precision)
    if m.param("denom") == "retrieved":
        denominator = ctx.count(hits)
    else:
        denominator = ctx.num_relevant(m.rel)
    return divide(summed, denominator), {"sum_precision": summed, "denominator": denominator}


def _ideal_dcg(ctx: RankedArrays, m: Measure, gain_kind: object) -> np.ndarray:
    rows = ctx.rows
    if m.param("ideal") == "retrieved":
        keep = ctx.rows_where(ctx.within(m.cutoff))
        query, gains = rows.query[keep], gain_of(rows.grade[keep], gain_kind)
    else:
        query = rows.qrels_query
        gains = gain_of(rows.qrels_grade.astype(np.float64), gain_kind)
    order = np.lexsort((-gains, query))
    query, gains = query[order], gains[order]
    counts = np.bincount(query, minlength=ctx.n)
    starts = np.zeros(ctx.n, dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    rank = np.arange(1, len(query) + 1) - starts[query]
    keep = slice(None) if m.cutoff is None else rank <= m.cutoff
    return np.bincount(
        query[keep], weights=gains[keep] * ctx.discount[rank[keep] - 1], minlength=ctx.n
    ).astype(np.float64)


def _dcg_parts(ctx: RankedArrays, m: Measure) -> np.ndarray:
    gains = gain_of(ctx.rows.grade, m.param("gain"))
    return ctx.count(ctx.rows_where(ctx.within(m.cutoff)), gains * ctx.discount[ctx.rows.rank - 1])


def _ndcg(ctx: RankedArrays, m: Measure) -> Computed:
    dcg = _dcg_parts(ctx, m)
    idcg = _ideal_dcg(ctx, m, m.param("gain"))
    return divide(dcg, idcg), {"dcg": dcg, "idcg": idcg}


def _dcg(ctx: RankedArrays, m: Measure) -> Computed:
    return _dcg_parts(ctx, m), {}


def _cg(ctx: RankedArrays, m: Measure) -> Computed:
    gains = gain_of(ctx.rows.grade, m.param("gain"))
    return ctx.count(ctx.rows_where(ctx.within(m.cutoff)), gains), {}


def _r_precision(ctx: RankedArrays, m: Measure) -> Computed:
    total = ctx.num_relevant(m.rel)
    found = ctx.count(ctx.relevant(m.rel) & (ctx.rows.rank <= total[ctx.rows.query]))
    return divide(found, total), {"relevant_retrieved": found, "relevant": total}


def _judged(ctx: RankedArrays, m: Measure) -> Computed:
    found = ctx.count(ctx.rows_where(~np.isnan(ctx.rows.grade), ctx.within(m.cutoff)))
    return found / m.cutoff, {"judged": found}


# --- the registry --------------------------------------------------------------------------------


@dataclass(frozen=True)
class MeasureKind:
    """A family of measures: what it accepts and the function that computes it."""

    name: str
    description: str
    compute: Callable[[RankedArrays, Measure], Computed] = field(compare=False, repr=False)
    params: tuple[str, ...] = ()
    cutoff: str = "optional"  # "required", "optional" or "none"
    order_sensitive: bool = True


KINDS: dict[str, MeasureKind] = {
    kind.name: kind
    for kind in (
        MeasureKind("P", "Precision: relevant items in the top k, divided by k.",
                    _precision, ("rel",), "required", order_sensitive=False),
        MeasureKind("R", "Recall: relevant items in the top k, divided by all relevant items.",
                    _recall, ("rel",), "required", order_sensitive=False),
        MeasureKind("Success", "Hit rate: 1 if any relevant item is in the top k, else 0.",
                    _success, ("rel",), "required", order_sensitive=False),
        MeasureKind("RR", "Reciprocal rank of the first relevant item (0 if none); its mean "
                    "is MRR.", _reciprocal_rank, ("rel",), "optional"),
        MeasureKind("AP", "Average precision: the precision at each relevant rank, summed and "
                    "divided by the number of relevant items; its mean is MAP.",
                    _average_precision, ("rel", "denom"), "optional"),
        MeasureKind("nDCG", "Normalised discounted cumulative gain: DCG divided by the DCG of "
                    "the ideal ordering.", _ndcg, ("gain", "ideal"), "optional"),
        MeasureKind("Rprec", "R-precision: precision at rank R, R being the number of relevant "
                    "items.", _r_precision, ("rel",), "none"),
        MeasureKind("CG", "Cumulative gain: the sum of the gains in the top k.",
                    _cg, ("gain",), "required", order_sensitive=False),
        MeasureKind("DCG", "Discounted cumulative gain: sum of gain / log2(rank + 1) over the "
                    "top k.", _dcg, ("gain",), "required"),
        MeasureKind("Judged", "Share of the top k that has any label.", _judged, (), "required",
                    order_sensitive=False),
    )
}

ALIASES: dict[str, str] = {
    "recall": "R",
    "hit": "Success",
    "hitrate": "Success",
    "mrr": "RR",
    "map": "AP",
    "r-prec": "Rprec",
    "rprec": "Rprec",
}
ALIASES.update({name.lower(): name for name in KINDS})

_PATTERN = re.compile(
    r"^\s*(?P<name>[A-Za-z][A-Za-z\-]*)\s*(?:\((?P<params>[^)]*)\))?\s*(?:@\s*(?P<cutoff>\S+))?\s*$"
)


def parse_measure(text: str | Measure) -> Measure:
    """Parse ``text`` such as ``nDCG(gain=exp)@10``; raise MeasureError naming the problem."""
    if isinstance(text, Measure):
        return text
    match = _PATTERN.match(text)
    if not match:
        raise MeasureError(f"cannot read measure {text!r}: expected NAME[(param=value,...)][@k]")
    alias = match["name"].lower()
    if alias not in ALIASES:
        known = ", ".join(sorted(KINDS))
        raise MeasureError(f"unknown measure {match['name']!r} in {text!r}; known: {known}")
    kind = KINDS[ALIASES[alias]]

    cutoff: int | None = None
    if match["cutoff"] is not None:
        if kind.cutoff == "none":
            raise MeasureError(f"{kind.name} takes no cutoff (in {text!r})")
        try:
            cutoff = int(match["cutoff"])
        except ValueError:
            raise MeasureError(f"cutoff must be a whole number in {text!r}") from None
        if cutoff < 1:
            raise MeasureError(f"cutoff must be at least 1 in {text!r}")
    elif kind.cutoff == "required":
        raise MeasureError(f"{kind.name} needs a cutoff, e.g. {kind.name}@10 (in {text!r})")

    params: dict[str, object] = {}
    for item in filter(None, (p.strip() for p in (match["params"] or "").split(","))):
        key, sep, value = (s.strip() for s in item.partition("="))
        if not sep or key not in kind.params:
            allowed = ", ".join(kind.params) or "none"
            raise MeasureError(
                f"parameter {item!r} does not apply to {kind.name} in {text!r}; allowed: {allowed}"
            )
        choices = PARAM_VALUES[key]
        if choices is None:
            try:
                params[key] = int(value)
            except ValueError:
                raise MeasureError(f"{key} must be a whole number in {text!r}") from None
        elif value.lower() in choices:
            params[key] = value.lower()
        else:
            raise MeasureError(f"{key} must be one of {', '.join(choices)} in {text!r}")
    # Keep only non-default parameters, in a fixed order, so equal measures compare equal.
    canonical = tuple(
        (key, params[key]) for key in kind.params
        if key in params and params[key] != PARAM_DEFAULTS[key]
    )
    return Measure(kind.name, cutoff, canonical)
