"""Measure names: one parser and one registry, shared by the CLI, the pages and the exports.

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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from labeling.errors import MeasureError


@dataclass(frozen=True)
class MeasureKind:
    """What a family of measures accepts."""

    name: str
    description: str
    params: tuple[str, ...] = ()
    cutoff: str = "optional"  # "required", "optional" or "none"
    order_sensitive: bool = True


KINDS: dict[str, MeasureKind] = {
    kind.name: kind
    for kind in (
        MeasureKind("P", "Precision: relevant items in the top k, divided by k.",
                    ("rel",), "required", order_sensitive=False),
        MeasureKind("R", "Recall: relevant items in the top k, divided by all relevant items.",
                    ("rel",), "required", order_sensitive=False),
        MeasureKind("Success", "Hit rate: 1 if any relevant item is in the top k, else 0.",
                    ("rel",), "required", order_sensitive=False),
        MeasureKind("RR", "Reciprocal rank of the first relevant item (0 if none); its mean "
                    "is MRR.", ("rel",), "optional"),
        MeasureKind("AP", "Average precision: the precision at each relevant rank, summed and "
                    "divided by the number of relevant items; its mean is MAP.",
                    ("rel", "denom"), "optional"),
        MeasureKind("nDCG", "Normalised discounted cumulative gain: DCG divided by the DCG of "
                    "the ideal ordering.", ("gain", "ideal"), "optional"),
        MeasureKind("Rprec", "R-precision: precision at rank R, R being the number of relevant "
                    "items.", ("rel",), "none"),
        MeasureKind("CG", "Cumulative gain: the sum of the gains in the top k.",
                    ("gain",), "required", order_sensitive=False),
        MeasureKind("DCG", "Discounted cumulative gain: sum of gain / log2(rank + 1) over the "
                    "top k.", ("gain",), "required"),
        MeasureKind("Judged", "Share of the top k that has any label.", (), "required",
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

PARAM_VALUES: dict[str, tuple[str, ...] | None] = {
    "rel": None,  # an integer
    "gain": ("linear", "exp"),
    "ideal": ("judged", "retrieved"),
    "denom": ("relevant", "retrieved"),
}
PARAM_DEFAULTS: dict[str, object] = {
    "rel": 1, "gain": "linear", "ideal": "judged", "denom": "relevant",
}

_PATTERN = re.compile(
    r"^\s*(?P<name>[A-Za-z][A-Za-z\-]*)\s*(?:\((?P<params>[^)]*)\))?\s*(?:@\s*(?P<cutoff>\S+))?\s*$"
)


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
